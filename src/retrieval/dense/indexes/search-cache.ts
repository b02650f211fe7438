/**
 * The exact-search cache: each query's exact top-k over a set of vectors, stored so that a warm
 * rerun neither opens the GEMM session nor scores a query. Everything the exact top-k depends on
 * is in the key: the store's key (cache/key.ts) over (format, k, the document and query matrices'
 * shapes and float32 bytes as searched, i.e. after any vector-precision rounding, the document ids
 * (ties rank by id) and the query ids). search.ts serves every exact top-k through it (an HNSW
 * stage's exactness audit too); HNSW results themselves are not cached here (their graph has its
 * own cache, hnsw.ts).
 *
 * Store kind `dense-search` (`<cacheDir>/dense-search/<key>.bin`), body (little-endian):
 *   0  u32 queries   4  u32 k   8  u32 documents
 *   12 queries x u32 hits of the query
 *      total x i32 document rows, total x f32 scores (query by query, best first)
 * The store checks the framing (kind, format, key, length, SHA-256); the decoder the counts and
 * rows. A damaged entry is reported in the store's one line and searched again (rewritten). With
 * `useCache: false` nothing is read or written.
 */
import type { StageContext } from '../../../core/context.js';
import { cacheKey, strings } from '../../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../../cache/kinds.js';
import { CacheStore } from '../../../cache/store.js';
import type { TopK, VectorMatrix } from './exact.js';

export const SEARCH_KIND = entryKind(CACHE_KINDS.denseSearch, 'exact-topk-v2');
export const SEARCH_SUBFOLDER = CACHE_KINDS.denseSearch.folder;
const HEADER = 12;

const matrixPart = (m: VectorMatrix) => [m.rows, m.dim, m.data.subarray(0, m.rows * m.dim)] as const;

/** The cache key of the exact top-`k` of queries `Q` over documents `D`. */
export function exactSearchKey(D: VectorMatrix, docIds: readonly string[], Q: VectorMatrix, queryIds: readonly string[], k: number): string {
  return cacheKey(SEARCH_KIND.name, [SEARCH_KIND.format, k, ...matrixPart(D), strings(docIds), ...matrixPart(Q), strings(queryIds)]);
}

export function searchCachePath(cacheDir: string, key: string): string {
  return CacheStore.of({ cacheDir, useCache: true, log: () => {} }).path(SEARCH_KIND, key);
}

/** Encodes hits as an entry body. */
export function encodeHits(hits: readonly TopK[], k: number, docs: number): Buffer {
  const total = hits.reduce((s, h) => s + h.indices.length, 0);
  const buf = Buffer.alloc(HEADER + 4 * hits.length + 8 * total);
  buf.writeUInt32LE(hits.length, 0);
  buf.writeUInt32LE(k, 4);
  buf.writeUInt32LE(docs, 8);
  let at = HEADER;
  for (const h of hits) (buf.writeUInt32LE(h.indices.length, at), (at += 4));
  for (const h of hits) for (const r of h.indices) (buf.writeInt32LE(r, at), (at += 4));
  for (const h of hits) for (const s of h.scores) (buf.writeFloatLE(s, at), (at += 4));
  return buf;
}

/** Decodes an entry body; throws (the caller recomputes) when it does not fit the queries, k or corpus. */
export function decodeHits(buf: Buffer, queries: number, k: number, docs: number): TopK[] {
  if (buf.length < HEADER) throw new Error('too short');
  if (buf.readUInt32LE(0) !== queries || buf.readUInt32LE(4) !== k || buf.readUInt32LE(8) !== docs) throw new Error('does not match the queries, k or documents');
  if (buf.length < HEADER + 4 * queries) throw new Error('too short');
  const counts: number[] = [];
  let total = 0;
  for (let q = 0; q < queries; q++) {
    const n = buf.readUInt32LE(HEADER + 4 * q);
    if (n > k) throw new Error(`query ${q}: ${n} hits, more than k`);
    counts.push(n);
    total += n;
  }
  const want = HEADER + 4 * queries + 8 * total;
  if (buf.length !== want) throw new Error(`length ${buf.length}, expected ${want}`);
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
  const search = async () => (await import('./exact-fast.js')).exactTopKFast(D, docIds, Q, k, threads);
  if (!ctx.useCache) return { hits: await search(), cache: 'off' };
  const store = CacheStore.of(ctx);
  const key = exactSearchKey(D, docIds, Q, queryIds, k);
  const cached = store.read(SEARCH_KIND, key, (body) => decodeHits(body, Q.rows, k, D.rows));
  if (cached !== undefined) return { hits: cached, cache: 'hit' };
  const hits = await search();
  store.write(SEARCH_KIND, key, encodeHits(hits, k, D.rows));
  return { hits, cache: 'miss' };
}
