/**
 * What the pipeline hands every stage: cache root and switches, progress and log sinks.
 * The nouns only; the terminal progress bars live in util/progress.ts.
 */

/** A progress reporter for one long stage (indexing, encoding, querying, reranking). */
export interface Progress {
  increment(n?: number): void;
  stop(): void;
}

export type ProgressFactory = (label: string, total: number, unit?: string) => Progress;

/** What every stage (retriever, embedder, reranker) gets from the pipeline. */
export interface StageContext {
  /** Root of all caches (BM25 indexes, embeddings, HNSW indexes, model downloads). */
  cacheDir: string;
  /** false under `--no-cache`: neither read nor write any cache. */
  useCache: boolean;
  /** true under `--offline` or SKILLRET_OFFLINE=1: no network access at all. */
  offline: boolean;
  progress: ProgressFactory;
  /** One informational line for the user (stderr). */
  log: (line: string) => void;
}
