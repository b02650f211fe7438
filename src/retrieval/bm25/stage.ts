/**
 * The BM25 pipeline stage: builds (or loads from the cache) the index over the documents and
 * runs the queries. Store kind `bm25-index` (cache/store.ts; `<cacheDir>/bm25/<key>.bin`), key
 * over the index format version, k1, b, the tokenizer (bm25s 0.3.3 English stop words, and the
 * runtime's Unicode version, which defines the word characters) and every document text in
 * order. The entry's body is the index file of serialize.ts, which checks itself (its length and
 * SHA-256 trailer) as it is read: the store checks the header only (`readSelfVerified`), so a
 * multi-GB index is read once. A damaged entry is reported in the store's one line and rebuilt.
 * Next to it, the runs of query sets against that index (run-cache.ts): a warm rerun reads its
 * hits and neither loads the index nor scores a query.
 */
import type { Query, Run } from '../../core/types.js';
import type { DocStore, StageInfo } from '../../core/stages.js';
import { MemoryDocStore } from '../../data/doc-store.js';
import type { StageContext } from '../../core/context.js';
import { cacheKey, strings } from '../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../cache/kinds.js';
import { CacheStore } from '../../cache/store.js';
import { corpusFingerprint } from '../../data/corpus-fingerprint.js';
import { resolveParams } from './build.js';
import { buildBm25IndexFromTexts } from './corpus.js';
import { Bm25Pool, buildBm25IndexParallel, defaultBm25Threads, queryBm25IndexParallel } from './parallel.js';
import { queryBm25Index, type Bm25QueryStats, type Bm25Stats } from './query.js';
import { bm25RunKey, readBm25RunCache, writeBm25RunCache } from './run-cache.js';
import { BM25_INDEX_FORMAT_VERSION, readBm25IndexFile, writeBm25Index } from './serialize.js';
import { BM25S_STOPWORDS_EN } from './stopwords.js';
import type { Bm25Index, Bm25Params } from './types.js';
import { faultPoint } from '../../util/fault.js';

export interface Bm25StageInput {
  /**
   * The corpus: a document store (texts streamed from it; a file-backed store is read by the worker
   * threads themselves), or ids and texts in memory.
   */
  docs?: DocStore;
  docIds?: readonly string[];
  /** Document text per docs/protocol.md §2 (name | description | skill_md, trimmed). */
  docTexts?: readonly string[];
  queries: readonly Query[];
  k: number;
  k1?: number;
  b?: number;
  /** Worker threads for tokenizing and querying (0 = in process). Default: `defaultBm25Threads`. Results do not depend on it. */
  threads?: number;
}

export interface Bm25StageStats extends Bm25Stats {
  /** 'hit' = index loaded from cache, 'miss' = built and stored, 'off' = cache disabled. */
  cache: 'hit' | 'miss' | 'off';
  cacheFile?: string;
  /** Time to hash the corpus for the cache key, and to read or write the cache file. */
  cacheMs: number;
  /** true when the hits themselves came from the run cache (run-cache.ts): no index loaded, no query scored. */
  runCache?: boolean;
}

export const BM25_INDEX_KIND = entryKind(CACHE_KINDS.bm25Index, `bm25-index-v${BM25_INDEX_FORMAT_VERSION}`);
export const BM25_ALIAS_KIND = entryKind(CACHE_KINDS.bm25Alias, 'bm25-alias-v2');

/** Everything the index depends on besides the document texts. */
function keyHeader(numDocs: number, params: Readonly<Bm25Params>) {
  return {
    k1: params.k1,
    b: params.b,
    tokenizer: 'bm25s-0.3.3 lower (?u)\\b\\w\\w+\\b',
    stopwords: BM25S_STOPWORDS_EN,
    unicode: process.versions.unicode ?? 'unknown',
    numDocs,
  };
}

/** The store key of an index over `docTexts` (a store's texts, streamed) with `params`. */
export function bm25CacheKey(docTexts: readonly string[] | DocStore, params: Readonly<Bm25Params>): string {
  const numDocs = Array.isArray(docTexts) ? docTexts.length : (docTexts as DocStore).size;
  const texts: Iterable<string> = Array.isArray(docTexts) ? docTexts : (docTexts as DocStore).texts();
  return cacheKey(BM25_INDEX_KIND.name, [BM25_INDEX_KIND.format, keyHeader(numDocs, params), strings(texts)]);
}

/** Where the corpus-fingerprint alias of an index key lives (see `indexKeyOf`). */
export const BM25_ALIAS_SUBFOLDER = CACHE_KINDS.bm25Alias.folder;

/**
 * The index key of `store` (`bm25CacheKey`), read from its alias when the store is file-backed:
 * the `bm25-alias` entry keyed by (the key's parameters, the corpus fingerprint) holds the key of
 * the texts that fingerprint stands for (data/corpus-fingerprint.ts), so a warm rerun finds its
 * index and cached runs without reading or hashing a document text. The alias is written whenever
 * the key is computed from the texts; a damaged one is reported by the store and recomputed.
 */
async function indexKeyOf(ctx: StageContext, cache: CacheStore, store: DocStore, params: Readonly<Bm25Params>): Promise<string> {
  const fingerprint = await corpusFingerprint(store, cache);
  if (fingerprint === null) return bm25CacheKey(store, params);
  const alias = cacheKey(BM25_ALIAS_KIND.name, [BM25_ALIAS_KIND.format, keyHeader(store.size, params), fingerprint]);
  const stored = cache.readText(BM25_ALIAS_KIND, alias, (text) => {
    if (!/^[0-9a-f]{64}\n$/.test(text)) throw new Error('not an index key');
    return text.trim();
  });
  if (stored !== undefined) return stored;
  const key = bm25CacheKey(store, params);
  cache.write(BM25_ALIAS_KIND, alias, `${key}\n`);
  return key;
}

export async function runBm25Stage(ctx: StageContext, input: Bm25StageInput): Promise<{ run: Run; stats: Bm25StageStats }> {
  const { queries } = input;
  const store = storeOf(input);
  const docIds = store.ids;
  const params = resolveParams({ k1: input.k1, b: input.b });
  let index: Bm25Index | undefined;
  let cache: Bm25StageStats['cache'] = 'off';
  let cacheFile: string | undefined;
  let cacheMs = 0;
  let tokenizeMs = 0;
  let indexMs = 0;
  let totalTokens = 0;

  const threads = input.threads ?? defaultBm25Threads(store.size);
  const entries = CacheStore.of(ctx);
  let keys: { index: string; run: string } | undefined;
  if (ctx.useCache) {
    const t0 = performance.now();
    const key = await indexKeyOf(ctx, entries, store, params);
    keys = { index: key, run: bm25RunKey(queries, input.k) };
    cacheFile = entries.path(BM25_INDEX_KIND, key);
    const hit = readBm25RunCache(entries, key, keys.run, docIds, queries);
    if (hit !== undefined) {
      cacheMs += performance.now() - t0;
      const stats = { ...hit.facts, numQueries: queries.length, queryMs: 0, tokenizeMs: 0, indexMs: 0, cache: 'hit' as const, cacheFile, cacheMs, runCache: true };
      return { run: hit.run, stats };
    }
    // Straight onto SharedArrayBuffers when worker threads will search it (no copy then).
    index = entries.readSelfVerified(BM25_INDEX_KIND, key, (path, offset) => {
      const read = readBm25IndexFile(path, { shared: threads > 0, offset });
      if (read.numDocs !== store.size) throw new Error(`holds ${read.numDocs} documents, expected ${store.size}`);
      return read;
    });
    if (index !== undefined) {
      cache = 'hit';
      totalTokens = index.docLen.reduce((s, x) => s + x, 0);
    }
    cacheMs += performance.now() - t0;
  }

  const pool = threads > 0 ? new Bm25Pool(threads) : undefined;
  try {
    if (index === undefined) {
      const bar = ctx.progress('BM25 index', store.size, 'docs');
      try {
        const built = pool
          ? await buildBm25IndexParallel(pool, store, params, bar)
          : buildBm25IndexFromTexts(store.texts(), params, { progress: bar });
        index = built.index;
        tokenizeMs = built.tokenizeMs;
        indexMs = built.indexMs;
        totalTokens = built.totalTokens;
      } finally {
        bar.stop();
      }
      faultPoint('indexing');
      if (keys !== undefined) {
        const t0 = performance.now();
        const built = index;
        entries.writeStreamed(BM25_INDEX_KIND, keys.index, (put) => writeBm25Index(put, built), { selfVerified: true });
        cacheMs += performance.now() - t0;
        cache = 'miss';
      }
    }
    const { run, stats } = pool ? await queryOnPool(ctx, pool, index, docIds, queries, input.k) : queryBm25Index(index, docIds, queries, input.k, ctx.progress);
    if (keys !== undefined) {
      const t0 = performance.now();
      const facts = { numDocs: index.numDocs, vocabSize: index.vocab.size, avgdl: index.avgdl, totalTokens, noneQueries: stats.noneQueries, emptyQueries: stats.emptyQueries };
      writeBm25RunCache(entries, keys.index, keys.run, docIds, queries, run, facts);
      cacheMs += performance.now() - t0;
    }
    return {
      run,
      stats: {
        ...stats,
        numDocs: index.numDocs,
        vocabSize: index.vocab.size,
        avgdl: index.avgdl,
        totalTokens,
        tokenizeMs,
        indexMs,
        cache,
        ...(cacheFile !== undefined ? { cacheFile } : {}),
        cacheMs,
      },
    };
  } finally {
    await pool?.close();
  }
}

function storeOf(input: Bm25StageInput): DocStore {
  if (input.docs !== undefined) return input.docs;
  const ids = input.docIds ?? [];
  const texts = input.docTexts ?? [];
  if (ids.length !== texts.length) throw new RangeError(`${ids.length} document ids but ${texts.length} document texts`);
  return new MemoryDocStore(ids.map((id, i) => ({ id, text: texts[i]! })));
}

async function queryOnPool(
  ctx: StageContext,
  pool: Bm25Pool,
  index: Bm25Index,
  docIds: readonly string[],
  queries: readonly Query[],
  k: number,
): Promise<{ run: Run; stats: Bm25QueryStats }> {
  const bar = ctx.progress('BM25 queries', queries.length, 'queries');
  try {
    return await queryBm25IndexParallel(pool, index, docIds, queries, k, bar);
  } finally {
    bar.stop();
  }
}

/** A document of the first stage (text per docs/protocol.md §2). */
export interface Bm25Doc {
  id: string;
  text: string;
}

/**
 * The stage as `pipeline/first-stage.ts` calls it. `info` holds the measured facts for the
 * manifest (snake_case); `cache` and `timings_ms` vary between runs, everything else is
 * a function of the inputs.
 */
export async function bm25Stage(
  ctx: StageContext,
  params: { k1?: number; b?: number; topK: number },
  docs: readonly Bm25Doc[] | DocStore,
  queries: readonly Query[],
): Promise<{ run: Run; info: StageInfo }> {
  const { run, stats } = await runBm25Stage(ctx, {
    docs: Array.isArray(docs) ? new MemoryDocStore(docs as readonly Bm25Doc[]) : (docs as DocStore),
    queries,
    k: params.topK,
    ...(params.k1 !== undefined ? { k1: params.k1 } : {}),
    ...(params.b !== undefined ? { b: params.b } : {}),
  });
  return {
    run,
    info: {
      implementation: 'bm25s 0.3.3 (lucene, float32), official SkillRet query handling',
      num_docs: stats.numDocs,
      vocab_size: stats.vocabSize,
      avgdl: stats.avgdl,
      total_tokens: stats.totalTokens,
      none_queries: stats.noneQueries,
      queries_without_hits: stats.emptyQueries,
      cache: stats.cache,
      ...(stats.runCache ? { runCache: true } : {}),
      timings_ms: {
        tokenize: Math.round(stats.tokenizeMs),
        index: Math.round(stats.indexMs),
        query: Math.round(stats.queryMs),
        cache: Math.round(stats.cacheMs),
      },
    },
  };
}

/**
 * The index of `texts` with `params`, from the BM25 cache when it holds it (what `run` wrote), else
 * built (not stored): what `explain` scores with.
 */
export function loadBm25IndexCached(ctx: Pick<StageContext, 'cacheDir' | 'useCache' | 'log'>, texts: readonly string[], o: { k1: number; b: number }): Bm25Index {
  const params = resolveParams(o);
  const stored = CacheStore.of(ctx).readSelfVerified(BM25_INDEX_KIND, bm25CacheKey(texts, params), (path, offset) => {
    const index = readBm25IndexFile(path, { offset });
    if (index.numDocs !== texts.length) throw new Error(`holds ${index.numDocs} documents, expected ${texts.length}`);
    return index;
  });
  return stored ?? buildBm25IndexFromTexts(texts, params).index;
}
