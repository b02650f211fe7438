/**
 * The BM25 pipeline stage: builds (or loads from the cache) the index over the documents and
 * runs the queries. Cache file: `<cacheDir>/bm25/<sha256>.bin`, where the key covers the
 * index format version, k1, b, the tokenizer (bm25s 0.3.3 English stop words, and the
 * runtime's Unicode version, which defines the word characters) and every document text in
 * order. Written atomically; a corrupt or unreadable cache file is reported with one log line
 * and rebuilt. Next to it, the runs of query sets against that index (run-cache.ts): a warm rerun
 * reads its hits and neither loads the index nor scores a query.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Query, Run } from '../../core/types.js';
import type { DocStore } from '../../core/stages.js';
import { MemoryDocStore } from '../../data/doc-store.js';
import type { StageContext } from '../../core/context.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { sha256Hex, stableStringify } from '../../util/hash.js';
import { corpusFingerprint } from '../../data/corpus-fingerprint.js';
import { resolveParams } from './build.js';
import { buildBm25IndexFromTexts } from './corpus.js';
import { Bm25Pool, buildBm25IndexParallel, defaultBm25Threads, queryBm25IndexParallel } from './parallel.js';
import { queryBm25Index, type Bm25QueryStats, type Bm25Stats } from './query.js';
import { bm25RunKey, readBm25RunCache, writeBm25RunCache } from './run-cache.js';
import { BM25_INDEX_FORMAT_VERSION, readBm25IndexFile, writeBm25IndexFile } from './serialize.js';
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

/** Everything the index depends on besides the document texts. */
function keyHeader(numDocs: number, params: Readonly<Bm25Params>): string {
  return (
    stableStringify({
      kind: 'skillret-eval bm25 index',
      format: BM25_INDEX_FORMAT_VERSION,
      k1: params.k1,
      b: params.b,
      tokenizer: 'bm25s-0.3.3 lower (?u)\\b\\w\\w+\\b',
      stopwords: BM25S_STOPWORDS_EN,
      unicode: process.versions.unicode ?? 'unknown',
      numDocs,
    }) + '\n'
  );
}

/** Hex SHA-256 cache key of an index over `docTexts` (a store's texts, streamed) with `params`. */
export function bm25CacheKey(docTexts: readonly string[] | DocStore, params: Readonly<Bm25Params>): string {
  const numDocs = Array.isArray(docTexts) ? docTexts.length : (docTexts as DocStore).size;
  const texts: Iterable<string> = Array.isArray(docTexts) ? docTexts : (docTexts as DocStore).texts();
  const h = createHash('sha256');
  h.update(keyHeader(numDocs, params));
  for (const text of texts) {
    h.update(`${Buffer.byteLength(text, 'utf8')}:`);
    h.update(text, 'utf8');
  }
  return h.digest('hex');
}

/** Where the corpus-fingerprint alias of an index key lives (see `indexKeyOf`). */
export const BM25_ALIAS_SUBFOLDER = join('bm25', 'by-corpus');

/**
 * The index key of `store` (`bm25CacheKey`), read from its alias when the store is file-backed:
 * `<cacheDir>/bm25/by-corpus/<sha256 of (the key's header, the corpus fingerprint)>.key` holds the
 * key of the texts that fingerprint stands for (data/corpus-fingerprint.ts), so a warm rerun finds
 * its index and cached runs without reading or hashing a document text. The alias is written
 * (atomically) whenever the key is computed from the texts; one that does not hold a key is ignored.
 */
async function indexKeyOf(ctx: StageContext, store: DocStore, params: Readonly<Bm25Params>): Promise<string> {
  const fingerprint = await corpusFingerprint(store, ctx.cacheDir);
  if (fingerprint === null) return bm25CacheKey(store, params);
  const alias = join(ctx.cacheDir, BM25_ALIAS_SUBFOLDER, `${sha256Hex(`${keyHeader(store.size, params)}${fingerprint}\n`)}.key`);
  try {
    const stored = readFileSync(alias, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(stored)) return stored;
  } catch {
    /* no alias yet */
  }
  const key = bm25CacheKey(store, params);
  writeFileAtomic(alias, `${key}\n`);
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
  let runFile: string | undefined;
  if (ctx.useCache) {
    const t0 = performance.now();
    const key = await indexKeyOf(ctx, store, params);
    cacheFile = join(ctx.cacheDir, 'bm25', `${key}.bin`);
    runFile = join(ctx.cacheDir, 'bm25', `${key}.runs`, `${bm25RunKey(queries, input.k)}.json`);
    if (existsSync(runFile)) {
      try {
        const { run, facts } = readBm25RunCache(runFile, docIds, queries);
        cacheMs += performance.now() - t0;
        const stats = { ...facts, numQueries: queries.length, queryMs: 0, tokenizeMs: 0, indexMs: 0, cache: 'hit' as const, cacheFile, cacheMs, runCache: true };
        return { run, stats };
      } catch (e) {
        ctx.log(`bm25: cached run ${runFile} is unusable (${e instanceof Error ? e.message : String(e)}); recomputing it`);
      }
    }
    if (existsSync(cacheFile)) {
      try {
        // Straight onto SharedArrayBuffers when worker threads will search it (no copy then).
        index = readBm25IndexFile(cacheFile, { shared: threads > 0 });
        if (index.numDocs !== store.size) throw new Error(`holds ${index.numDocs} documents, expected ${store.size}`);
        cache = 'hit';
        totalTokens = index.docLen.reduce((s, x) => s + x, 0);
      } catch (e) {
        ctx.log(`bm25: cache file ${cacheFile} is unusable (${e instanceof Error ? e.message : String(e)}); rebuilding it`);
        index = undefined;
      }
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
      if (ctx.useCache && cacheFile !== undefined) {
        const t0 = performance.now();
        writeBm25IndexFile(cacheFile, index);
        cacheMs += performance.now() - t0;
        cache = 'miss';
      }
    }
    const { run, stats } = pool ? await queryOnPool(ctx, pool, index, docIds, queries, input.k) : queryBm25Index(index, docIds, queries, input.k, ctx.progress);
    if (runFile !== undefined) {
      const t0 = performance.now();
      const facts = { numDocs: index.numDocs, vocabSize: index.vocab.size, avgdl: index.avgdl, totalTokens, noneQueries: stats.noneQueries, emptyQueries: stats.emptyQueries };
      writeBm25RunCache(runFile, docIds, queries, run, facts);
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
): Promise<{ run: Run; info: Record<string, unknown> }> {
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
export function loadBm25IndexCached(ctx: Pick<StageContext, 'cacheDir' | 'useCache'>, texts: readonly string[], o: { k1: number; b: number }): Bm25Index {
  const params = resolveParams(o);
  if (ctx.useCache) {
    const file = join(ctx.cacheDir, 'bm25', `${bm25CacheKey(texts, params)}.bin`);
    if (existsSync(file)) {
      try {
        return readBm25IndexFile(file);
      } catch {
        /* rebuilt below */
      }
    }
  }
  return buildBm25IndexFromTexts(texts, params).index;
}
