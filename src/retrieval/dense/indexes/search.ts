/**
 * The search half of dense retrieval, shared by local and remote embedders: each query's top-k
 * by inner product over the document vectors, exactly or through an HNSW graph (then the exact
 * top-k is computed too, for the overlap audit). Lists are in trec order with float32 scores.
 * Every exact top-k goes through the exact-search cache (search-cache.ts): a warm rerun reads it.
 */
import type { Run, ScoredDoc } from '../../../core/types.js';
import type { StageContext } from '../../../core/context.js';
import { cachedExactTopK } from './search-cache.js';
import type { TopK, VectorMatrix } from './exact.js';
import { buildOrLoadHnsw, hnswTopK, type HnswBuildInfo } from './hnsw.js';

export type IndexSpec = { type: 'exact' } | { type: 'hnsw'; M: number; efConstruction: number; efSearch: number; seed: number };

export type IndexInfo =
  | { type: 'exact'; seconds: number; /** The exact-search cache (search-cache.ts): read, computed and stored, or not used. */ cache: 'hit' | 'miss' | 'off' }
  | ({ type: 'hnsw'; M: number; efConstruction: number; efSearch: number; seed: number; searchSeconds: number } & HnswBuildInfo);

export interface SearchOutput {
  run: Run;
  /** Exact top-k, when the run came from the HNSW index (the pipeline audits the approximation against it). */
  exactRun?: Run;
  index: IndexInfo;
  /** search, and for HNSW indexBuild, indexLoad, exactSearch (seconds). */
  timings: Record<string, number>;
}

export function toRun(ids: readonly string[], queryIds: readonly string[], hits: readonly TopK[]): Run {
  const run: Run = new Map();
  queryIds.forEach((qid, q) => {
    const h = hits[q]!;
    const list: ScoredDoc[] = [];
    for (let r = 0; r < h.indices.length; r++) list.push({ docId: ids[h.indices[r]!]!, score: h.scores[r]! });
    run.set(qid, list);
  });
  return run;
}

export async function searchVectors(
  ctx: StageContext,
  spec: { topK: number; index: IndexSpec; threads?: number },
  D: VectorMatrix,
  docIds: readonly string[],
  Q: VectorMatrix,
  queryIds: readonly string[],
): Promise<SearchOutput> {
  const timings: Record<string, number> = {};
  const clock = (name: string, t0: number) => (timings[name] = (performance.now() - t0) / 1000);
  const threads = spec.threads !== undefined ? { threads: spec.threads } : {};
  let t = performance.now();
  if (spec.index.type === 'exact') {
    const { hits, cache } = await cachedExactTopK(ctx, D, docIds, Q, queryIds, spec.topK, threads);
    const run = toRun(docIds, queryIds, hits);
    return { run, index: { type: 'exact', seconds: clock('search', t), cache }, timings };
  }
  const p = spec.index;
  const handle = await buildOrLoadHnsw(D, p, { cacheDir: ctx.cacheDir, useCache: ctx.useCache, log: ctx.log });
  timings['indexBuild'] = handle.info.buildSeconds;
  timings['indexLoad'] = handle.info.loadSeconds;
  t = performance.now();
  const run = toRun(docIds, queryIds, hnswTopK(handle.index, D, docIds, Q, spec.topK, p.efSearch));
  const searchSeconds = clock('search', t);
  t = performance.now();
  const exactRun = toRun(docIds, queryIds, (await cachedExactTopK(ctx, D, docIds, Q, queryIds, spec.topK, threads)).hits);
  clock('exactSearch', t);
  return {
    run,
    exactRun,
    index: { type: 'hnsw', M: p.M, efConstruction: p.efConstruction, efSearch: p.efSearch, seed: p.seed, searchSeconds, ...handle.info },
    timings,
  };
}
