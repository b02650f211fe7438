/**
 * The exact-search cache (src/retrieval/dense/indexes/search-cache.ts): a hit gives exactly the hits of
 * the search (rows, float32 scores, order); every input of the search is in the key; a corrupted
 * or partial file is ignored with one log line and rewritten atomically; no cache, no file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedExactTopK, decodeHits, encodeHits, exactSearchKey, SEARCH_KIND, SEARCH_SUBFOLDER, searchCachePath } from '../src/retrieval/dense/indexes/search-cache.js';
import { entryHeader, unframeEntry } from '../src/cache/store.js';
import { exactTopKFast } from '../src/retrieval/dense/indexes/exact-fast.js';
import { searchVectors } from '../src/retrieval/dense/indexes/search.js';
import type { VectorMatrix } from '../src/retrieval/dense/indexes/exact.js';
import { silentProgress } from '../src/util/progress.js';
import type { StageContext } from '../src/core/context.js';

let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), 'skr-search-cache-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function matrix(rows: number, dim: number, seed: number): VectorMatrix {
  let s = seed;
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < data.length; i++) data[i] = Math.fround(((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5);
  return { data, rows, dim };
}

const D = matrix(300, 24, 1);
// Two identical documents: an exact score tie, broken by id.
D.data.copyWithin(24 * 7, 24 * 3, 24 * 4);
const docIds = Array.from({ length: 300 }, (_, i) => `doc-${String(i).padStart(3, '0')}`);
const Q = matrix(40, 24, 2);
const queryIds = Array.from({ length: 40 }, (_, i) => `q${i}`);

function ctx(cacheDir: string, logs: string[], useCache = true): StageContext {
  return { cacheDir, useCache, offline: true, progress: silentProgress, log: (l) => logs.push(l) };
}

const files = (cacheDir: string) => (existsSync(join(cacheDir, SEARCH_SUBFOLDER)) ? readdirSync(join(cacheDir, SEARCH_SUBFOLDER)) : []);

describe('exact-search cache', () => {
  it('miss then hit: the hits of the search exactly; the run equals searchVectors', async () => {
    const cacheDir = join(root, 'c1');
    const logs: string[] = [];
    const ref = await exactTopKFast(D, docIds, Q, 10, { forceGemm: true });
    const a = await cachedExactTopK(ctx(cacheDir, logs), D, docIds, Q, queryIds, 10, {});
    expect(a.cache).toBe('miss');
    const b = await cachedExactTopK(ctx(cacheDir, logs), D, docIds, Q, queryIds, 10, {});
    expect(b.cache).toBe('hit');
    expect(b.hits).toEqual(ref);
    expect(a.hits).toEqual(ref);
    const plain = await searchVectors(ctx(join(root, 'c1-off'), logs, false), { topK: 10, index: { type: 'exact' } }, D, docIds, Q, queryIds);
    expect(plain.index).toMatchObject({ type: 'exact', cache: 'off' });
    const cached = await searchVectors(ctx(cacheDir, logs), { topK: 10, index: { type: 'exact' } }, D, docIds, Q, queryIds);
    expect(cached.index).toMatchObject({ type: 'exact', cache: 'hit' });
    expect(cached.run).toEqual(plain.run);
    // An HNSW stage's exact audit run is served by the same cache.
    const hnsw = await searchVectors(ctx(cacheDir, logs), { topK: 10, index: { type: 'hnsw', M: 8, efConstruction: 50, efSearch: 50, seed: 1 } }, D, docIds, Q, queryIds);
    expect(hnsw.exactRun).toEqual(plain.run);
    expect(files(cacheDir)).toHaveLength(1);
    expect(logs).toEqual([]);
  });

  it('every input is in the key: k, a vector bit, a document id, a query id, the shapes', () => {
    const k0 = exactSearchKey(D, docIds, Q, queryIds, 10);
    const flipped = { ...D, data: D.data.slice() };
    new Uint32Array(flipped.data.buffer)[100]! ^= 1;
    const keys = [
      exactSearchKey(D, docIds, Q, queryIds, 11),
      exactSearchKey(flipped, docIds, Q, queryIds, 10),
      exactSearchKey(D, docIds, { ...Q, data: flipped.data.subarray(0, Q.rows * Q.dim) }, queryIds, 10),
      exactSearchKey(D, docIds.map((d, i) => (i === 5 ? 'doc-x' : d)), Q, queryIds, 10),
      exactSearchKey(D, docIds, Q, queryIds.map((q, i) => (i === 0 ? 'qx' : q)), 10),
      exactSearchKey({ data: D.data, rows: 600, dim: 12 }, [...docIds, ...docIds], Q, queryIds, 10),
    ];
    expect(new Set([k0, ...keys]).size).toBe(keys.length + 1);
    expect(exactSearchKey(D, docIds, Q, queryIds, 10)).toBe(k0);
  });

  it('round-trips; a file of another key, k or corpus, or damaged anywhere, is refused', () => {
    const key = exactSearchKey(D, docIds, Q, queryIds, 5);
    const hits = [
      { indices: Int32Array.from([3, 1]), scores: Float32Array.from([0.5, -0.25]) },
      { indices: new Int32Array(0), scores: new Float32Array(0) },
    ];
    const body = encodeHits(hits, 5, 300);
    const buf = Buffer.concat([entryHeader(SEARCH_KIND, key, body), body]);
    const read = (b: Buffer, k = key, queries = 2, kk = 5, docs = 300) => decodeHits(unframeEntry(SEARCH_KIND, k, b), queries, kk, docs);
    expect(read(buf)).toEqual(hits);
    expect(() => read(buf, 'f'.repeat(64))).toThrow(/another key/);
    expect(() => read(buf, key, 2, 6)).toThrow(/does not match/);
    expect(() => read(buf, key, 2, 5, 2)).toThrow(/does not match/);
    expect(() => decodeHits(encodeHits(hits, 5, 2), 2, 5, 2)).toThrow(/row 3 out of range/);
    expect(() => read(buf.subarray(0, buf.length - 1))).toThrow();
    for (let at = 0; at < buf.length; at++) {
      const bad = Buffer.from(buf);
      bad[at]! ^= 0x10;
      expect(() => read(bad), `byte ${at}`).toThrow();
    }
  });

  it('a corrupted or partial cache file is reported once, searched again and rewritten', async () => {
    const cacheDir = join(root, 'c2');
    const logs: string[] = [];
    const ref = (await cachedExactTopK(ctx(cacheDir, logs), D, docIds, Q, queryIds, 7, {})).hits;
    const path = searchCachePath(cacheDir, exactSearchKey(D, docIds, Q, queryIds, 7));
    const good = readFileSync(path);
    for (const bad of [good.subarray(0, good.length >> 1), Buffer.concat([good, Buffer.from([0])]), Buffer.from('garbage')]) {
      writeFileSync(path, bad);
      logs.length = 0;
      const again = await cachedExactTopK(ctx(cacheDir, logs), D, docIds, Q, queryIds, 7, {});
      expect(again.cache).toBe('miss');
      expect(again.hits).toEqual(ref);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(new RegExp(`^cache: dense-search entry ${path} is damaged \\(.+\\); computing it again$`));
      expect(readFileSync(path).equals(good)).toBe(true);
    }
    expect(files(cacheDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('without the cache: nothing read or written', async () => {
    const cacheDir = join(root, 'c3');
    const r = await cachedExactTopK(ctx(cacheDir, [], false), D, docIds, Q, queryIds, 10, {});
    expect(r.cache).toBe('off');
    expect(existsSync(cacheDir)).toBe(false);
  });
});
