/**
 * The exact-search cache: each query's exact top-k over a set of vectors, stored so that a warm
 * rerun neither opens the GEMM session nor scores a query. Everything the exact top-k depends on
 * is in the key: sha256 of (format, k, the document and query matrices' shapes and float32 bytes
 * as searched, i.e. after any vector-precision rounding, the document ids (ties rank by id) and the
 * query ids). search.ts serves every exact top-k through it (an HNSW stage's exactness audit
 * too); HNSW results themselves are not cached here (their graph has its own cache, index-hnsw.ts).
 *
 * File `<cacheDir>/dense-search/<key>.bin` (little-endian):
 *   0  "SKRETTOP" magic   8  u32 version (1)   12 u32 queries   16 u32 k   20 u32 documents
 *   24 key[32]            56 queries x u32 hits of the query
 *      total x i32 document rows, total x f32 scores (query by query, best first)
 *      sha256[32] of every byte before it
 * On read the length, magic, version, key, counts, rows and checksum are checked; a file that fails
 * is reported with one log line and recomputed (rewritten atomically). With `useCache: false`
 * nothing is read or written.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StageContext } from '../../core/context.js';
import { writeFileAtomic } from '../../util/atomic.js';
import type { TopK, VectorMatrix } from './index-exact.js';

export const SEARCH_SUBFOLDER = 'dense-search';
const MAGIC = 'SKRETTOP';
const VERSION = 1;
const HEADER = 56;
const TRAILER = 32;

function updateMatrix(h: ReturnType<typeof createHash>, m: VectorMatrix): void {
  h.update(`${m.rows}x${m.dim}\n`);
  h.update(new Uint8Array(m.data.buffer, m.data.byteOffset, m.rows * m.dim * 4));
}

function updateIds(h: ReturnType<typeof createHash>, ids: readonly string[]): void {
  h.update(`${ids.length}\n`);
  for (const id of ids) h.update(`${Buffer.byteLength(id, 'utf8')}:${id}`);
}

/** The cache key of the exact top-`k` of queries `Q` over documents `D`. */
export function exactSearchKey(D: VectorMatrix, docIds: readonly string[], Q: VectorMatrix, queryIds: readonly string[], k: number): string {
  const h = createHash('sha256');
  h.update(`skillret-exact-topk-v${VERSION}\nk ${k}\n`);
  updateMatrix(h, D);
  updateIds(h, docIds);
  updateMatrix(h, Q);
  updateIds(h, queryIds);
  return h.digest('hex');
}

export function searchCachePath(cacheDir: string, key: string): string {
  return join(cacheDir, SEARCH_SUBFOLDER, `${key}.bin`);
}

/** Encodes hits for the cache file. */
export function encodeHits(key: string, hits: readonly TopK[], k: number, docs: number): Uint8Array {
  const total = hits.reduce((s, h) => s + h.indices.length, 0);
  const body = HEADER + 4 * hits.length + 8 * total;
  const buf = Buffer.alloc(body + TRAILER);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(VERSION, 8);
  buf.writeUInt32LE(hits.length, 12);
  buf.writeUInt32LE(k, 16);
  buf.writeUInt32LE(docs, 20);
  Buffer.from(key, 'hex').copy(buf, 24);
  let at = HEADER;
  for (const h of hits) (buf.writeUInt32LE(h.indices.length, at), (at += 4));
  for (const h of hits) for (const r of h.indices) (buf.writeInt32LE(r, at), (at += 4));
  for (const h of hits) for (const s of h.scores) (buf.writeFloatLE(s, at), (at += 4));
  createHash('sha256').update(buf.subarray(0, body)).digest().copy(buf, body);
  return buf;
}

/** Decodes a cache file; throws (the caller recomputes) when it does not fit the key, k or corpus. */
export function decodeHits(buf: Buffer, key: string, queries: number, k: number, docs: number): TopK[] {
  if (buf.length < HEADER + TRAILER) throw new Error('too short');
  if (buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a search cache file');
  if (buf.readUInt32LE(8) !== VERSION) throw new Error(`version ${buf.readUInt32LE(8)}`);
  if (buf.readUInt32LE(12) !== queries || buf.readUInt32LE(16) !== k || buf.readUInt32LE(20) !== docs) throw new Error('does not match the queries, k or documents');
  if (buf.toString('hex', 24, 56) !== key) throw new Error('holds another key');
  const counts: number[] = [];
  let total = 0;
  for (let q = 0; q < queries; q++) {
    const n = buf.readUInt32LE(HEADER + 4 * q);
    if (n > k) throw new Error(`query ${q}: ${n} hits, more than k`);
    counts.push(n);
    total += n;
  }
  const body = HEADER + 4 * queries + 8 * total;
  if (buf.length !== body + TRAILER) throw new Error(`length ${buf.length}, expected ${body + TRAILER}`);
  if (!createHash('sha256').update(buf.subarray(0, body)).digest().equals(buf.subarray(body))) throw new Error('checksum mismatch');
  const out: TopK[] = [];
  let rows = HEADER + 4 * queries;
  let scores = rows + 4 * total;
  for (const n of counts) {
    const indices = new Int32Array(n);
    const s = new Float32Array(n);
    for (let j = 0; j < n; j++) {
      const r = buf.readInt32LE(rows + 4 * j);
      if (r < 0 || r >= docs) throw new Error(`document row ${r} out of range`);
      indices[j] = r;
      s[j] = buf.readFloatLE(scores + 4 * j);
    }
    rows += 4 * n;
    scores += 4 * n;
    out.push({ indices, scores: s });
  }
  return out;
}

/** Exact top-k through the cache: 'hit' read from it, 'miss' computed and stored, 'off' without a cache. */
export async function cachedExactTopK(
  ctx: Pick<StageContext, 'cacheDir' | 'useCache' | 'log'>,
  D: VectorMatrix,
  docIds: readonly string[],
  Q: VectorMatrix,
  queryIds: readonly string[],
  k: number,
  threads: { threads?: number },
): Promise<{ hits: TopK[]; cache: 'hit' | 'miss' | 'off' }> {
  // onnxruntime-node is imported only when a search runs (a cached one needs none).
  const search = async () => (await import('./index-exact-fast.js')).exactTopKFast(D, docIds, Q, k, threads);
  if (!ctx.useCache) return { hits: await search(), cache: 'off' };
  const key = exactSearchKey(D, docIds, Q, queryIds, k);
  const path = searchCachePath(ctx.cacheDir, key);
  if (existsSync(path)) {
    try {
      return { hits: decodeHits(readFileSync(path), key, Q.rows, k, D.rows), cache: 'hit' };
    } catch (e) {
      ctx.log(`dense: cached search ${path} is unusable (${e instanceof Error ? e.message : String(e)}); searching again`);
    }
  }
  const hits = await search();
  writeFileAtomic(path, encodeHits(key, hits, k, D.rows));
  return { hits, cache: 'miss' };
}
