/**
 * The BM25 run cache: a warm rerun of the same corpus, parameters, queries and k reads the hits
 * instead of loading the index and scoring every query again. Store kind `bm25-run`
 * (cache/store.ts), grouped by the index key: `<cacheDir>/bm25/<index key>.runs/<run key>.json`,
 * run key = the store's key over (format, k, every query id and text in order). Holds the hits as
 * document numbers and float32 scores (JSON numbers read back as the same doubles) plus the index
 * facts the stage reports, so a hit gives exactly what scoring would give. The store checks the
 * framing (a file cut short or with a byte changed does not fit); a damaged entry, or one that does
 * not fit the corpus and queries, is reported in the store's one line and recomputed.
 */
import type { Query, Run } from '../../core/types.js';
import { cacheKey, strings } from '../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../cache/kinds.js';
import type { CacheStore } from '../../cache/store.js';
import { decodeCompactRun, encodeCompactRun, type CompactRun } from '../../formats/compact-run.js';

export const BM25_RUN_KIND = entryKind(CACHE_KINDS.bm25Run, 'bm25-run-v3');

/** What the stage reports besides the run. */
export interface CachedRunFacts {
  numDocs: number;
  vocabSize: number;
  avgdl: number;
  totalTokens: number;
  noneQueries: number;
  emptyQueries: number;
}

interface RunFile extends CachedRunFacts {
  /** Per query, in query order: [qid, doc numbers, scores]. */
  queries: CompactRun;
}

/** The run key of `queries` at cutoff `k` (the index key is the group). */
export function bm25RunKey(queries: readonly Query[], k: number): string {
  return cacheKey(BM25_RUN_KIND.name, [BM25_RUN_KIND.format, k, strings(queries.flatMap((q) => [q.id, q.text]))]);
}

/** The entry body of a run (document numbers from `docIds`) with its facts. */
export function encodeBm25Run(docIds: readonly string[], queries: readonly Query[], run: Run, facts: CachedRunFacts): string {
  const file: RunFile = { ...facts, queries: encodeCompactRun(run, docIds, queries) };
  return JSON.stringify(file);
}

/** Reads an entry body; throws (the caller recomputes) when it does not fit. */
export function decodeBm25Run(body: string, docIds: readonly string[], queries: readonly Query[]): { run: Run; facts: CachedRunFacts } {
  const f = JSON.parse(body) as RunFile;
  if (f.numDocs !== docIds.length) throw new Error('does not match the corpus');
  const run = decodeCompactRun(f.queries, docIds, queries);
  const { numDocs, vocabSize, avgdl, totalTokens, noneQueries, emptyQueries } = f;
  for (const [k, v] of Object.entries({ vocabSize, avgdl, totalTokens, noneQueries, emptyQueries })) if (typeof v !== 'number') throw new Error(`no ${k}`);
  return { run, facts: { numDocs, vocabSize, avgdl, totalTokens, noneQueries, emptyQueries } };
}

/** The cached run of `runKey` beside the index `indexKey`, or undefined (absent, or damaged: reported). */
export function readBm25RunCache(store: CacheStore, indexKey: string, runKey: string, docIds: readonly string[], queries: readonly Query[]): { run: Run; facts: CachedRunFacts } | undefined {
  return store.readText(BM25_RUN_KIND, runKey, (body) => decodeBm25Run(body, docIds, queries), { group: indexKey });
}

/** Writes the run with its facts (through the store: framed, atomically). */
export function writeBm25RunCache(store: CacheStore, indexKey: string, runKey: string, docIds: readonly string[], queries: readonly Query[], run: Run, facts: CachedRunFacts): void {
  store.write(BM25_RUN_KIND, runKey, encodeBm25Run(docIds, queries, run, facts), { group: indexKey });
}
