/**
 * Approximate top-k with an HNSW graph (hnswlib-node), persisted and reused.
 *
 * Space 'ip' (distance 1 - <q, x>): its ranking is the inner product's for any vectors, so it is
 * right for unnormalised models too; 'cosine' would re-normalise and change the ranking of
 * unnormalised vectors (and round unit vectors once more). Returned neighbours are re-scored
 * with the exact float32 inner product (same values as the exact index) and ordered by the
 * trec tie rule, so an HNSW run differs from the exact run only in which documents it found.
 *
 * Build: single-threaded `addPoint` in document order with a fixed seed, so the same vectors
 * and parameters give a byte-identical index file. Store kind `hnsw` (cache/store.ts), key over
 * (format, space, dim, count, M, efConstruction, seed, vector bytes): hnswlib writes and reads the
 * graph file itself, so it lies beside its entry as `<cacheDir>/hnsw/<key>.bin` and the entry
 * `<key>.json` holds its size and SHA-256 (`writeExternal`), checked before the library loads it
 * (`readExternal`); a damaged entry or graph is reported in the store's one line and rebuilt.
 */
import { tieRanks } from '../../../metrics/rank.js';
import hnswlib from 'hnswlib-node';
import type { HierarchicalNSW as HnswIndex } from 'hnswlib-node';
import { cacheKey } from '../../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../../cache/kinds.js';
import { CacheStore } from '../../../cache/store.js';
import { dotRows, rankCandidates, type TopK, type VectorMatrix } from './exact.js';

const { HierarchicalNSW } = hnswlib;

export interface HnswParams {
  M: number;
  efConstruction: number;
  efSearch: number;
  seed: number;
}

/**
 * Defaults measured to keep overlap@10 >= 0.99 against exact search on 6,006 documents
 * (see scripts/bench-dense.mjs): M = 32, efConstruction = 200, efSearch = 200.
 */
export const DEFAULT_HNSW: HnswParams = Object.freeze({ M: 32, efConstruction: 200, efSearch: 200, seed: 100 });

export const HNSW_KIND = entryKind(CACHE_KINDS.hnsw, 'hnsw-v2');
const SPACE = 'ip';

export interface HnswBuildInfo {
  key: string;
  /** Index file, or null when the cache is off (index kept in memory only). */
  path: string | null;
  reused: boolean;
  buildSeconds: number;
  loadSeconds: number;
  /** Why a stored index was not reused (corrupt / unreadable), if it was not. */
  rebuiltBecause?: string;
}

export interface HnswHandle {
  index: HnswIndex;
  info: HnswBuildInfo;
}

/** The cache key of an index over `docs` with these build parameters (efSearch is not part of it). */
export function hnswKey(docs: VectorMatrix, p: Pick<HnswParams, 'M' | 'efConstruction' | 'seed'>): string {
  return cacheKey(HNSW_KIND.name, [HNSW_KIND.format, SPACE, docs.dim, docs.rows, p.M, p.efConstruction, p.seed, docs.data.subarray(0, docs.rows * docs.dim)]);
}

/** Builds the graph in memory: single thread, documents in row order, fixed seed. */
export function buildHnsw(docs: VectorMatrix, p: Pick<HnswParams, 'M' | 'efConstruction' | 'seed'>): HnswIndex {
  const index = new HierarchicalNSW(SPACE, docs.dim);
  index.initIndex({ maxElements: Math.max(1, docs.rows), m: p.M, efConstruction: p.efConstruction, randomSeed: p.seed });
  const d = docs.dim;
  for (let i = 0; i < docs.rows; i++) index.addPoint(Array.from(docs.data.subarray(i * d, (i + 1) * d)), i);
  return index;
}

function validateParams(p: HnswParams): void {
  for (const k of ['M', 'efConstruction', 'efSearch'] as const) {
    if (!Number.isInteger(p[k]) || p[k] < 1) throw new Error(`hnsw: ${k} must be a positive integer, got ${p[k]}`);
  }
  if (!Number.isInteger(p.seed) || p.seed < 0) throw new Error(`hnsw: seed must be a non-negative integer, got ${p.seed}`);
}

/**
 * Loads the stored index for (docs, params) when present and intact, else builds it (and stores
 * it when `useCache`). A damaged stored index is reported with one log line and rebuilt.
 */
export async function buildOrLoadHnsw(
  docs: VectorMatrix,
  params: HnswParams,
  o: { cacheDir: string; useCache: boolean; log: (line: string) => void },
): Promise<HnswHandle> {
  validateParams(params);
  const key = hnswKey(docs, params);
  if (!o.useCache) {
    const t = performance.now();
    const index = buildHnsw(docs, params);
    return { index, info: { key, path: null, reused: false, buildSeconds: (performance.now() - t) / 1000, loadSeconds: 0 } };
  }
  const store = CacheStore.of(o);
  let rebuiltBecause: string | undefined;
  const t0 = performance.now();
  const stored = store.readExternal(
    HNSW_KIND,
    key,
    (path) => {
      const index = new HierarchicalNSW(SPACE, docs.dim);
      index.readIndexSync(path);
      if (index.getCurrentCount() !== docs.rows || index.getNumDimensions() !== docs.dim) {
        throw new Error(`holds ${index.getCurrentCount()}x${index.getNumDimensions()}, expected ${docs.rows}x${docs.dim}`);
      }
      return index;
    },
    { onDamage: (reason) => (rebuiltBecause = reason) },
  );
  if (stored !== undefined) {
    return { index: stored, info: { key, path: store.companionPath(HNSW_KIND, key), reused: true, buildSeconds: 0, loadSeconds: (performance.now() - t0) / 1000 } };
  }
  const t = performance.now();
  const index = buildHnsw(docs, params);
  const buildSeconds = (performance.now() - t) / 1000;
  const path = store.writeExternal(HNSW_KIND, key, (tmp) => index.writeIndexSync(tmp), { space: SPACE, dim: docs.dim, count: docs.rows, M: params.M, efConstruction: params.efConstruction, seed: params.seed });
  const info: HnswBuildInfo = { key, path, reused: false, buildSeconds, loadSeconds: 0 };
  if (rebuiltBecause !== undefined) info.rebuiltBecause = rebuiltBecause;
  return { index, info };
}

/**
 * Top-min(k, N) per query from the graph, re-scored exactly and ranked by the tie rule.
 * ef = max(efSearch, k) (hnswlib needs ef >= k to return k results).
 */
export function hnswTopK(
  index: HnswIndex,
  docs: VectorMatrix,
  docIds: readonly string[],
  queries: VectorMatrix,
  k: number,
  efSearch: number,
): TopK[] {
  const rank = tieRanks(docIds);
  const kk = Math.max(0, Math.min(k, docs.rows));
  index.setEf(Math.max(efSearch, kk));
  const out: TopK[] = [];
  const d = queries.dim;
  for (let q = 0; q < queries.rows; q++) {
    if (kk === 0) {
      out.push({ indices: new Int32Array(0), scores: new Float32Array(0) });
      continue;
    }
    const res = index.searchKnn(Array.from(queries.data.subarray(q * d, (q + 1) * d)), kk);
    const rows = res.neighbors;
    const scores = rows.map((r) => dotRows(queries, q, docs, r));
    out.push(rankCandidates(rows, scores, rank, kk));
  }
  return out;
}
