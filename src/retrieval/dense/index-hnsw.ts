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
 * and parameters give a byte-identical index file. Stored at `<cacheDir>/hnsw/<key>.bin`,
 * key = sha256 of (format version, space, dim, count, M, efConstruction, seed, vector bytes),
 * with a sidecar `<key>.json` holding the file's size and sha256, checked before reuse.
 */
import { tieRanks } from '../../metrics/rank.js';
import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import hnswlib from 'hnswlib-node';
import type { HierarchicalNSW as HnswIndex } from 'hnswlib-node';
import { writeJsonAtomic, tempPathFor } from '../../util/atomic.js';
import { sha256File } from '../../util/hash.js';
import { dotRows, rankCandidates, type TopK, type VectorMatrix } from './index-exact.js';
import { makeDirs } from '../../util/dirs.js';

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

const FORMAT = 'skillret-hnsw-v1';
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
  const h = createHash('sha256');
  h.update(`${FORMAT}\n${SPACE}\n${docs.dim}\n${docs.rows}\n${p.M}\n${p.efConstruction}\n${p.seed}\n`);
  const bytes = new Uint8Array(docs.data.buffer, docs.data.byteOffset, docs.rows * docs.dim * 4);
  h.update(bytes);
  return h.digest('hex');
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
  const dir = join(o.cacheDir, 'hnsw');
  const path = join(dir, `${key}.bin`);
  const sidecar = join(dir, `${key}.json`);
  let rebuiltBecause: string | undefined;
  if (existsSync(path)) {
    const t = performance.now();
    const problem = await checkStored(path, sidecar);
    if (problem === null) {
      const index = new HierarchicalNSW(SPACE, docs.dim);
      try {
        index.readIndexSync(path);
        if (index.getCurrentCount() !== docs.rows || index.getNumDimensions() !== docs.dim) {
          rebuiltBecause = `holds ${index.getCurrentCount()}x${index.getNumDimensions()}, expected ${docs.rows}x${docs.dim}`;
        } else {
          return { index, info: { key, path, reused: true, buildSeconds: 0, loadSeconds: (performance.now() - t) / 1000 } };
        }
      } catch (e) {
        rebuiltBecause = `unreadable (${(e as Error).message})`;
      }
    } else {
      rebuiltBecause = problem;
    }
    o.log(`hnsw: stored index ${path} ${rebuiltBecause}; rebuilding`);
    rmSync(path, { force: true });
    rmSync(sidecar, { force: true });
  }
  const t = performance.now();
  const index = buildHnsw(docs, params);
  const buildSeconds = (performance.now() - t) / 1000;
  const tmp = tempPathFor(path);
  try {
    makeDirs(dir);
    index.writeIndexSync(tmp);
    const size = statSync(tmp).size;
    const sha256 = await sha256File(tmp);
    renameSync(tmp, path);
    writeJsonAtomic(sidecar, { format: FORMAT, space: SPACE, dim: docs.dim, count: docs.rows, M: params.M, efConstruction: params.efConstruction, seed: params.seed, size, sha256 });
  } finally {
    rmSync(tmp, { force: true });
  }
  const info: HnswBuildInfo = { key, path, reused: false, buildSeconds, loadSeconds: 0 };
  if (rebuiltBecause !== undefined) info.rebuiltBecause = rebuiltBecause;
  return { index, info };
}

/** null when the stored file matches its sidecar (size and sha256), else what is wrong. */
async function checkStored(path: string, sidecar: string): Promise<string | null> {
  if (!existsSync(sidecar)) return 'has no checksum sidecar';
  let meta: { size?: unknown; sha256?: unknown };
  try {
    meta = JSON.parse(readFileSync(sidecar, 'utf8')) as typeof meta;
  } catch {
    return 'has an unreadable checksum sidecar';
  }
  const size = statSync(path).size;
  if (meta.size !== size) return `is ${size} bytes, expected ${String(meta.size)}`;
  if (meta.sha256 !== (await sha256File(path))) return 'fails its sha256 check';
  return null;
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
