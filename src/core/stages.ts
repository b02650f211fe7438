/**
 * The shapes every stage kind has: what a first stage is given and returns, and what a kind of
 * first stage or reranker declares (config schema, config checks, plan line, run). The kinds
 * themselves live in src/pipeline/retrievers/ and src/pipeline/rerankers/, one file each, listed
 * in src/pipeline/registry.ts; the config schema, the plan printer and the orchestrator are built
 * from that list.
 */
import type { z } from 'zod';
import type { StageContext } from './context.js';
import type { Query, Run } from './types.js';

/** One corpus document as the first stages see it: id and the text built from its fields. */
export interface Doc {
  id: string;
  text: string;
}

/**
 * The corpus as the stages read it: ids in corpus order and each document's text (the same text a
 * `Doc` holds), read on demand. The run's store (data/doc-store.ts) keeps only ids and the byte
 * offsets of the skill records and re-reads texts from the skills file, so memory follows the
 * index, not the text; `texts()` streams them in order.
 */
export interface DocStore {
  readonly size: number;
  /** Ids in corpus order. */
  readonly ids: readonly string[];
  /** Position of `id` in the corpus, or undefined. */
  indexOf(id: string): number | undefined;
  /** Text of document `i` (a fresh read for a file-backed store: callers keep what they need). */
  text(i: number): string;
  /** Texts of documents [from, to) in order. */
  texts(from?: number, to?: number): Iterable<string>;
  /** How another thread opens the same store (a file-backed one); undefined for an in-memory store. */
  readonly source: DocSource | undefined;
}

/** A file-backed store, as data/doc-store.ts reopens it (plain data: it crosses to worker threads). */
export interface DocSource {
  kind: 'jsonl';
  path: string;
  /** File size and modification time when the offsets were taken (a changed file is refused). */
  bytes: number;
  mtimeMs: number;
  skillMdField: string;
  fields: readonly string[];
  separator: string;
  ids: readonly string[];
  /** Per document: byte offset and length of its record's line. */
  offsets: Float64Array;
  lengths: Uint32Array;
}

/** What a first stage returns. */
export interface FirstStageOutput {
  run: Run;
  /** Exact top-k, when the run came from an approximate (HNSW) index: the approximation audit compares them. */
  exactRun?: Run;
  /** Every resolved parameter and what the stage measured (goes to the manifest). */
  info: StageInfo;
}

/**
 * The measured facts of a stage that its cost row reads (analysis/stage-cost.ts). A kind sets the
 * ones it measures; their names and types are fixed here, so a kind that reports a throughput, a
 * truncation or a cache outcome is checked by the compiler against what the cost row reads.
 */
export interface StageCostFacts {
  /** Throughput of the work actually done (cached work excluded). */
  throughput?: { docsPerSec?: number | null; tokensPerSec?: number | null };
  /** Documents cut at the model's token window. */
  truncation?: { documentsTruncated?: number; documentsTotal?: number };
  /** What the caches answered: the dense stage (`stage`) and its embedding cache (`hits`/`misses`), or BM25's index outcome. */
  cache?: { stage?: 'hit' | 'miss' | 'off'; hits?: number; misses?: number } | 'hit' | 'miss' | 'off';
  /** BM25: the run itself came from its cache. */
  runCache?: boolean;
  /** Rerankers: pairs scored, of them answered by the score cache, cut to the token budget, and the rate of the rest. */
  pairs?: number;
  cachedPairs?: number;
  truncatedPairs?: number;
  pairsPerSecond?: number;
}

/**
 * A stage's info: the typed cost facts, and the kind's own resolved parameters and measurements
 * (its `type`, model, options, …), written to manifest.json as they are.
 */
export type StageInfo = StageCostFacts & { readonly type?: string; readonly [key: string]: unknown };

/** What a first stage is given besides its own config entry. */
export interface FirstStageInput {
  docs: DocStore;
  /** The evaluated queries, in dataset order. */
  queries: readonly Query[];
  /** Folder of the config file (model references like ./x resolve against it). */
  configDir: string;
  /** First stages already computed, by retriever id (what a fusion reads). */
  earlier: ReadonlyMap<string, FirstStageOutput>;
}

/** Every config entry of a stage has these keys. */
export interface StageConfig {
  id: string;
  type: string;
}

/** Reports one config problem at a key path relative to the entry (e.g. ['inputs', 0]). */
export type ConfigIssue = (path: readonly (string | number)[], message: string) => void;

/** A remote server a stage will contact, and the config key naming it (refused offline unless local). */
export interface StageEndpoint {
  url: string;
  /** Config key path, e.g. `retrievers.qwen3.endpoint.url`. */
  key: string;
  /** The key path of the URL inside the entry, e.g. ['endpoint', 'url']. */
  path: readonly (string | number)[];
}

/**
 * Where a plan's models, caches and servers are, for a kind's `resources` check: what `run` will
 * use (the models folder, the cache root, offline or not). Nothing is fetched, built or loaded.
 */
export interface ResourceContext {
  /** Folder of the config file (model references like ./x resolve against it). */
  configDir: string;
  /** Folder of the bundled and exported local models. */
  modelsDir: string;
  /** The run's cache root (hub downloads are under it). */
  cacheDir: string;
  /** No network (--offline, SKILLRET_OFFLINE=1, HF_HUB_OFFLINE=1). */
  offline: boolean;
}

/** The paper's name for an entry's model (its published rows) and how the entry's settings differ from the protocol's. */
export interface PaperCounterpart {
  model: string;
  deviations: string[];
}

/**
 * How `explain` re-scores with a first stage: the score of every corpus document for a text, and
 * one query's score of document texts standing in for one candidate.
 */
export interface CorpusScorer {
  /** What names the scorer after its kind and id: its parameters or model (`k1=1.5, b=0.75`). */
  detail: string;
  /** How it scores, when worth saying (`exact inner product`). */
  how?: string;
  /** Per text, one score per corpus document, in corpus order. */
  scoreAll(texts: readonly string[]): Promise<ArrayLike<number>[]>;
  scoreDocs(query: string, docTexts: readonly string[]): Promise<number[]>;
  /** Texts a model encoded so far (a model-backed scorer). */
  encoded?(): number;
  dispose?(): Promise<void>;
}

/** What every kind declares, first stage or reranker. `C` is the parsed config entry. */
interface StageKindBase<S extends z.ZodObject, C extends StageConfig = z.output<S> & StageConfig> {
  /** The `type:` value of the config entry. */
  type: C['type'];
  /** The entry's zod schema: a strict object with `id` and `type: z.literal(type)`. */
  schema: S;
  /** After validation: relative paths made absolute (`abs`), method-dependent defaults filled in. */
  resolve?(c: C, abs: (path: string) => string): C;
  /** Checks that need the other entries (`index`: this entry's position in its list). */
  check?(c: C, index: number, all: readonly StageConfig[], issue: ConfigIssue): void;
  /** One line of `run --dry-run`, after `<id>: `. */
  describe(c: C): string;
  /** Remote servers this entry would contact. */
  endpoints?(c: C): StageEndpoint[];
  /** The paper's counterpart of this entry (paper/published-vs-measured.ts pairs its runs with published rows); undefined: none. */
  paperCounterpart?(c: C): PaperCounterpart | undefined;
  /** The model this entry runs on this machine, as its config names it (a bundled model is built before the run); undefined: none (BM25, a served model, a saved run). */
  localModel?(c: C): string | undefined;
  /**
   * The models, presets and files the entry needs, checked before any stage runs (also by
   * `run --dry-run`): names and existence only, no network, nothing built or loaded. Each problem
   * at a key path relative to the entry (its servers are checked from `endpoints`).
   */
  resources?(c: C, rc: ResourceContext, issue: ConfigIssue): void;
}

/** A kind of first stage: bm25, dense, run, fusion, … */
export interface FirstStageKind<S extends z.ZodObject = z.ZodObject, C extends StageConfig & { top_k: number } = z.output<S> & StageConfig & { top_k: number }>
  extends StageKindBase<S, C> {
  /** The run over every evaluated query (the orchestrator keeps each query's top_k: pipeline/first-stage.ts). */
  run(ctx: StageContext, c: C, input: FirstStageInput): Promise<FirstStageOutput>;
  /**
   * The run's lists come in an order of their own that the official code keeps among equal scores
   * (a saved run: its file's order), so the top_k cut and the rerank pool keep it too. Otherwise
   * each list is put in trec order (score desc, doc id desc) first.
   */
  ownOrder?: boolean;
  /**
   * `explain`'s scorer of texts over the corpus `docs` (from the run's caches where it can), or why
   * this entry cannot be explained. A kind without it is not explained.
   */
  explainScorer?(ctx: StageContext, c: C, docs: readonly Doc[], configDir: string): Promise<CorpusScorer | { unsupported: string }>;
}

/** Identity, for type inference of a kind's config from its schema. */
export function defineFirstStage<S extends z.ZodObject>(kind: FirstStageKind<S>): FirstStageKind<S> {
  return kind;
}

/** A kind of reranker (not the `none` entry): cross-encoder, qwen3, remote, … `R` is what it loads. */
export interface RerankerKind<S extends z.ZodObject = z.ZodObject, R = unknown, C extends StageConfig & { depth: number } = z.output<S> & StageConfig & { depth: number }>
  extends StageKindBase<S, C> {
  /** Loads the reranker the entry asks for (model files, a server client, the score cache). */
  load(ctx: StageContext, c: C, configDir: string): Promise<R>;
}
