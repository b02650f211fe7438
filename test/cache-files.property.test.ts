/**
 * Every cache file format, at the library level: what is written reads back bit for bit, and a
 * damaged file (cut short at any length, one bit flipped anywhere, a byte appended) is refused
 * (the caller recomputes), never read as other values, and reported in the store's one line. The
 * plain definition is the value written. Every format is a body inside the store's framing
 * (cache/store.ts); the store's own property test (cache-store.property.test.ts) covers the framing
 * for any body, these the bodies each kind writes and its decoder.
 *
 * - Embedding chunks (dense/cache.ts encodeChunk/decodeChunk): vector counts around the default
 *   chunk size (256 ± 2) and small ones, dimensions around 4, 8, 16 ± 1, every float32 bit pattern
 *   (NaN payloads, -0, subnormals).
 * - Exact-search results (dense/search-cache.ts): query counts around 2^k ± 2, hit counts at k,
 *   below it and 0, k above the document count; and `cachedExactTopK` cold = warm = off, a damaged
 *   file recomputed and rewritten.
 * - Dense stage outputs (dense/stage-cache.ts), BM25 runs (bm25/run-cache.ts): query counts around
 *   2^k ± 2, hit lists of 0 … k, float32 scores (no -0: the compact run writes JSON numbers, see
 *   the report), Unicode ids.
 * - Skills-file index (data/skills-index.ts): skill counts around 2^k ± 2, optional fields.
 * - Embedder facts (dense/embedder-facts.ts): framed like every entry, so every damage is drawn.
 * - The corpus fingerprint (data/corpus-fingerprint.ts), the key of the stage caches: the same for
 *   record offsets and lengths held in views into larger buffers (at any byte offset) as for
 *   copies, different for any shifted id boundary, offset, length or field, none for a file that
 *   changed; document counts around 2^k ± 2.
 */
import { fc, test } from '@fast-check/vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { decodeChunk, decodeChunkFile, EMBEDDINGS_KIND, encodeChunk, type CachedEmbedding } from '../src/retrieval/dense/embedding/embedding-cache.js';
import { cachedExactTopK, decodeHits, encodeHits, exactSearchKey, SEARCH_KIND, searchCachePath } from '../src/retrieval/dense/indexes/search-cache.js';
import { exactTopK, type TopK, type VectorMatrix } from '../src/retrieval/dense/indexes/exact.js';
import { decodeStage, encodeStage, STAGE_KIND, type DenseStageOutput } from '../src/retrieval/dense/stage-cache.js';
import type { DenseInfo } from '../src/retrieval/dense/retriever.js';
import { readBm25RunCache, writeBm25RunCache, type CachedRunFacts } from '../src/retrieval/bm25/run-cache.js';
import { readSkillsIndex, skillsIndexKey, writeSkillsIndex, type SkillsIndex } from '../src/data/skills-index.js';
import { readEmbedderFacts, writeEmbedderFacts, factsPath, type EmbedderFacts } from '../src/retrieval/dense/embedding/embedder-facts.js';
import { CacheStore, entryHeader, unframeEntry } from '../src/cache/store.js';
import { CACHE_KINDS as store_kinds, type EntryKind } from '../src/cache/kinds.js';
import type { Query, Run } from '../src/core/types.js';
import type { DocSource, DocStore } from '../src/core/stages.js';
import { corpusFingerprint } from '../src/data/corpus-fingerprint.js';
import { damageFile, f32Bits, pick, rng, type Damage } from './helpers/cache-damage.js';


const root = mkdtempSync(join(tmpdir(), 'skillret-cache-files-prop-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const freshFile = (ext: string) => join(root, `f${files++}.${ext}`);

/** Every 2^k ± 2 for k = 0 … 8 (≥ 0). */
const POW2_EDGES = [...new Set(Array.from({ length: 9 }, (_, k) => [-2, -1, 0, 1, 2].map((d) => 2 ** k + d)).flat().filter((n) => n >= 0))];
const damage = fc.constantFrom<Damage>('truncate', 'flip', 'append');

/** A float32 from random bits: any pattern, or a finite one. */
function f32(rnd: () => number, finite: boolean): number {
  const u = new Uint32Array([Math.floor(rnd() * 2 ** 32)]);
  const f = new Float32Array(u.buffer)[0]!;
  if (!finite) return f;
  return Number.isFinite(f) && !Object.is(f, -0) ? f : Math.fround(rnd() - 0.5);
}

/** Ids with separators, Unicode and shared prefixes. */
const idOf = (tag: string, i: number) => [`${tag}${i}`, `${tag}-é-${i}`, `${tag}/${i}/x`, `${tag} ${i}😀`][i % 4]!;

/** Applies `how` to `file` and returns what reading it then gives (or the error). */
function readDamaged<T>(file: string, how: Damage, seed: number, read: () => T): { ok: true; value: T } | { ok: false } {
  damageFile(file, how, rng(seed));
  try {
    return { ok: true, value: read() };
  } catch {
    return { ok: false };
  }
}

/** A whole entry file of `kind` (the store's header, then `body`). */
const framed = (kind: EntryKind, key: string, body: Uint8Array): Buffer => Buffer.concat([entryHeader(kind, key, body), body]);

/** A store under `dir` whose damage reports land in `logs`. */
const storeIn = (dir: string, logs: string[]) => CacheStore.of({ cacheDir: dir, useCache: true, log: (l) => logs.push(l) });

/** The one report line of a damaged `kind` entry at `path`. */
const reportOf = (kind: string, path: string) => new RegExp(`^cache: ${kind} entry ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(.+\\); computing it again$`);

describe('embedding chunks', () => {
  test.prop([fc.constantFrom(1, 2, 3, 254, 255, 256, 257, 258), fc.constantFrom(1, 3, 4, 5, 7, 8, 9, 15, 16, 17), damage, fc.integer()], { numRuns: 60 })(
    'read back bit for bit (any float32 pattern); any damage refused',
    (count, dim, how, seed) => {
      const rnd = rng(seed);
      const keys = Array.from({ length: count }, (_, i) => (Math.floor(rnd() * 2 ** 32) >>> 0).toString(16).padStart(8, '0').repeat(8).slice(0, 56) + i.toString(16).padStart(8, '0'));
      const entries: CachedEmbedding[] = keys.map(() => ({
        vector: Float32Array.from({ length: dim }, () => f32(rnd, false)),
        truncated: rnd() < 0.5,
        usedTokens: pick(rnd, 2 ** 31),
      }));
      // A vector that views a larger buffer at an offset, as a batch's output does.
      const big = new Float32Array(dim + 3);
      big.set(entries[0]!.vector, 2);
      entries[0] = { ...entries[0]!, vector: big.subarray(2, 2 + dim) };
      const group = 'c'.repeat(64);
      const { key, body } = encodeChunk(group, keys, entries);
      const back = decodeChunkFile(group, key, framed(EMBEDDINGS_KIND, key, body));
      expect(back.keys).toEqual(keys);
      expect(f32Bits(back.entries.map((e) => e.vector))).toEqual(f32Bits(entries.map((e) => e.vector)));
      expect(back.entries.map((e) => [e.truncated, e.usedTokens])).toEqual(entries.map((e) => [e.truncated, e.usedTokens]));
      const file = freshFile('bin');
      writeFileSync(file, framed(EMBEDDINGS_KIND, key, body));
      const got = readDamaged(file, how, seed, () => decodeChunkFile(group, key, readFileSync(file)));
      expect(got.ok).toBe(false);
      // Under another chunk's key or group: refused too (the framing says which key it holds; the body, which texts).
      expect(() => decodeChunkFile(group, '0'.repeat(64), framed(EMBEDDINGS_KIND, key, body))).toThrow();
      expect(() => decodeChunk(group, '0'.repeat(64), body)).toThrow();
      expect(() => decodeChunk('d'.repeat(64), key, body)).toThrow();
    },
  );
});

/** Random top-k lists: per query 0 … min(k, docs) hits, distinct rows, finite float32 scores. */
function randomHits(queries: number, k: number, docs: number, rnd: () => number): TopK[] {
  return Array.from({ length: queries }, () => {
    const cap = Math.min(k, docs);
    const n = [cap, Math.max(0, cap - 1), 0, pick(rnd, cap + 1)][pick(rnd, 4)]!;
    const rows = new Set<number>();
    while (rows.size < n) rows.add(pick(rnd, docs));
    return { indices: Int32Array.from(rows), scores: Float32Array.from({ length: n }, () => f32(rnd, true)) };
  });
}

describe('exact-search results', () => {
  test.prop([fc.constantFrom(...POW2_EDGES), fc.constantFrom(1, 2, 3, 10, 100), fc.constantFrom(1, 2, 3, 9, 10, 11, 300), damage, fc.integer()], { numRuns: 120 })(
    'query counts around 2^k ± 2, hit counts at k and below: read back bit for bit; any damage refused',
    (queries, k, docs, how, seed) => {
      const rnd = rng(seed);
      const hits = randomHits(queries, k, docs, rnd);
      const key = (Math.floor(rnd() * 2 ** 32) >>> 0).toString(16).padStart(8, '0').repeat(8);
      const buf = framed(SEARCH_KIND, key, encodeHits(hits, k, docs));
      const read = (b: Buffer, kk: string = key, q: number = queries, kq: number = k, d: number = docs) => decodeHits(unframeEntry(SEARCH_KIND, kk, b), q, kq, d);
      const back = read(buf);
      expect(back.map((h) => [...h.indices])).toEqual(hits.map((h) => [...h.indices]));
      expect(f32Bits(back.map((h) => h.scores))).toEqual(f32Bits(hits.map((h) => h.scores)));
      const file = freshFile('bin');
      writeFileSync(file, buf);
      expect(readDamaged(file, how, seed, () => read(readFileSync(file))).ok).toBe(false);
      // Another key, query count, k or document count: refused.
      expect(() => read(buf, 'f'.repeat(64))).toThrow();
      expect(() => read(buf, key, queries + 1)).toThrow();
      expect(() => read(buf, key, queries, k + 1)).toThrow();
      expect(() => read(buf, key, queries, k, docs + 1)).toThrow();
    },
  );

  test.prop([fc.constantFrom(1, 2, 3, 7, 8, 9, 63, 64, 65), fc.constantFrom(1, 2, 3, 4, 5, 6), fc.constantFrom(1, 3, 4, 8), fc.constantFrom(1, 2, 10, 70), damage, fc.integer()], { numRuns: 50 })(
    'cachedExactTopK: cold = warm = off = exactTopK bit for bit; a damaged file is searched again and rewritten',
    async (docs, queries, dim, k, how, seed) => {
      const rnd = rng(seed);
      const mat = (rows: number): VectorMatrix => ({ rows, dim, data: Float32Array.from({ length: rows * dim }, () => Math.fround(Math.round((rnd() - 0.5) * 8) / 4)) }); // ties on purpose
      const D = mat(docs);
      const Q = mat(queries);
      const docIds = Array.from({ length: docs }, (_, i) => idOf('d', i));
      const queryIds = Array.from({ length: queries }, (_, i) => idOf('q', i));
      const logs: string[] = [];
      const ctx = (useCache: boolean) => ({ cacheDir: join(root, `search-${seed}-${docs}-${queries}-${dim}-${k}`), useCache, log: (l: string) => logs.push(l) });
      const plain = exactTopK(D, docIds, Q, k);
      const view = (hs: TopK[]) => [hs.map((h) => [...h.indices]), f32Bits(hs.map((h) => h.scores))];
      const off = await cachedExactTopK(ctx(false), D, docIds, Q, queryIds, k, {});
      const cold = await cachedExactTopK(ctx(true), D, docIds, Q, queryIds, k, {});
      const warm = await cachedExactTopK(ctx(true), D, docIds, Q, queryIds, k, {});
      expect([off.cache, cold.cache, warm.cache]).toEqual(['off', 'miss', 'hit']);
      for (const r of [off, cold, warm]) expect(view(r.hits)).toEqual(view(plain));
      damageFile(searchCachePath(ctx(true).cacheDir, exactSearchKey(D, docIds, Q, queryIds, k)), how, rnd);
      const again = await cachedExactTopK(ctx(true), D, docIds, Q, queryIds, k, {});
      expect(again.cache).toBe('miss');
      expect(logs).toHaveLength(1);
      expect(view(again.hits)).toEqual(view(plain));
      expect((await cachedExactTopK(ctx(true), D, docIds, Q, queryIds, k, {})).cache).toBe('hit');
    },
  );
});

/** A random run over `docIds` for `queries`: each query 0 … k hits, finite float32 scores. */
function randomRun(queries: readonly Query[], docIds: readonly string[], k: number, rnd: () => number): Run {
  return new Map(
    queries.map((q) => {
      const hits = randomHits(1, k, docIds.length, rnd)[0]!;
      return [q.id, [...hits.indices].map((r, j) => ({ docId: docIds[r]!, score: hits.scores[j]! }))] as const;
    }),
  );
}

const runView = (r: Run) => [...r].map(([q, hits]) => [q, hits.map((h) => h.docId), f32Bits([Float32Array.from(hits.map((h) => h.score))])]);

const runCase = fc.record({
  queries: fc.constantFrom(...POW2_EDGES.filter((n) => n > 0)),
  docs: fc.constantFrom(1, 2, 3, 30, 257),
  k: fc.constantFrom(1, 2, 10),
  how: damage,
  seed: fc.integer(),
});

function runInputs(c: { queries: number; docs: number; k: number; seed: number }) {
  const rnd = rng(c.seed);
  const docIds = Array.from({ length: c.docs }, (_, i) => idOf('s', i));
  const queries: Query[] = Array.from({ length: c.queries }, (_, i) => ({ id: idOf('q', i), text: `text ${i}` }));
  return { rnd, docIds, queries, run: randomRun(queries, docIds, c.k, rnd) };
}

describe('dense stage outputs and BM25 runs', () => {
  test.prop([runCase], { numRuns: 80 })('stage cache: read back bit for bit; any damage refused', (c) => {
    const { docIds, queries, run } = runInputs(c);
    const key = 'a'.repeat(64);
    const info = { id: 'dense', model: { warning: null }, options: { pooling: 'mean' }, timings: { x: 1 }, cache: {}, throughput: {}, index: {} } as unknown as DenseInfo;
    const logs: string[] = [];
    const store = storeIn(join(root, `stage-${files++}`), logs);
    store.write(STAGE_KIND, key, encodeStage({ run, info } as DenseStageOutput, docIds, queries));
    const read = () => store.readText(STAGE_KIND, key, (body) => decodeStage(body, docIds, queries));
    const back = read()!;
    expect(runView(back.run)).toEqual(runView(run));
    expect(back.info).toEqual({ id: 'dense', model: { warning: null }, options: { pooling: 'mean' } });
    const file = store.path(STAGE_KIND, key);
    damageFile(file, c.how, rng(c.seed));
    expect(read()).toBeUndefined();
    expect(logs).toEqual([expect.stringMatching(reportOf('dense-stage', file))]);
    // Another key: refused (the framing holds its key).
    expect(() => unframeEntry(STAGE_KIND, 'b'.repeat(64), framed(STAGE_KIND, key, Buffer.from('{}')))).toThrow(/another key/);
  });

  test.prop([runCase], { numRuns: 80 })('BM25 run cache: read back bit for bit with its facts; any damage refused', (c) => {
    const { rnd, docIds, queries, run } = runInputs(c);
    const facts: CachedRunFacts = { numDocs: docIds.length, vocabSize: pick(rnd, 1e6), avgdl: rnd() * 100, totalTokens: pick(rnd, 1e9), noneQueries: pick(rnd, 3), emptyQueries: pick(rnd, 3) };
    const logs: string[] = [];
    const store = storeIn(join(root, `runs-${files++}`), logs);
    const [index, key] = ['a'.repeat(64), 'b'.repeat(64)];
    writeBm25RunCache(store, index, key, docIds, queries, run, facts);
    const back = readBm25RunCache(store, index, key, docIds, queries)!;
    expect(runView(back.run)).toEqual(runView(run));
    expect(back.facts).toEqual(facts);
    const file = store.path({ ...store_kinds.bm25Run }, key, index);
    damageFile(file, c.how, rng(c.seed));
    expect(readBm25RunCache(store, index, key, docIds, queries)).toBeUndefined();
    expect(logs).toEqual([expect.stringMatching(reportOf('bm25-run', file))]);
  });
});

describe('skills-file index', () => {
  test.prop([fc.constantFrom(...POW2_EDGES), damage, fc.integer()], { numRuns: 80 })('skill counts around 2^k ± 2: read back as written; any damage refused', (count, how, seed) => {
    const rnd = rng(seed);
    const skills = Array.from({ length: count }, (_, i) => ({
      id: idOf('sk', i),
      name: `name ${i} ü`,
      ...(rnd() < 0.5 ? { major: 'Dev' } : {}),
      ...(rnd() < 0.5 ? { sub: 'CI/CD' } : {}),
      ...(rnd() < 0.5 ? { sourceUrl: `https://x/${i}` } : {}),
    }));
    const sha256 = 'e'.repeat(64);
    const index: SkillsIndex = {
      skillMdField: 'skill_md',
      sha256,
      bytes: pick(rnd, 2 ** 40),
      records: count,
      fallbacks: pick(rnd, count + 1),
      skills,
      offsets: skills.map(() => pick(rnd, 2 ** 40)),
      lengths: skills.map(() => pick(rnd, 2 ** 31)),
    };
    const logs: string[] = [];
    const store = storeIn(join(root, `idx-${files++}`), logs);
    const key = skillsIndexKey(sha256, 'skill_md');
    writeSkillsIndex(store, key, index);
    const want = { sha256, bytes: index.bytes, skillMdField: 'skill_md' };
    expect(readSkillsIndex(store, key, want)).toEqual(index);
    // The index of another file version (same key, other facts): refused.
    expect(readSkillsIndex(store, key, { ...want, bytes: want.bytes + 1 })).toBeNull();
    writeSkillsIndex(store, key, index);
    logs.length = 0;
    const path = store.path({ ...store_kinds.skillsIndex }, key);
    damageFile(path, how, rng(seed));
    expect(readSkillsIndex(store, key, want)).toBeNull();
    expect(logs).toEqual([expect.stringMatching(reportOf('skills-index', path))]);
  });
});

describe('embedder facts', () => {
  test.prop([fc.integer({ min: 1, max: 2 ** 31 }), fc.constantFrom<'left' | 'right'>('left', 'right'), fc.array(fc.nat(300_000), { maxLength: 3 }), fc.array(fc.nat(300_000), { maxLength: 3 }), fc.option(fc.integer({ min: 1, max: 8192 })), fc.integer()], {
    numRuns: 60,
  })('read back as written; a damaged file (cut short, a bit flipped, a byte appended) is refused and reported', (modelMaxLength, paddingSide, prefix, suffix, dim, seed) => {
    const cacheDir = join(root, `facts-${files++}`);
    const key = 'f'.repeat(64);
    const facts: EmbedderFacts = { modelMaxLength, paddingSide, frame: { prefix, suffix }, dim };
    writeEmbedderFacts(cacheDir, key, facts, () => {});
    expect(readEmbedderFacts(cacheDir, key, () => {})).toEqual(facts);
    expect(readEmbedderFacts(cacheDir, 'e'.repeat(64), () => {})).toBeNull();
    const how = (['truncate', 'flip', 'append'] as const)[pick(rng(seed), 3)]!;
    damageFile(factsPath(cacheDir, key), how, rng(seed));
    const logs: string[] = [];
    expect(readEmbedderFacts(cacheDir, key, (l) => logs.push(l))).toBeNull();
    expect(logs).toEqual([expect.stringMatching(reportOf('embedder-facts', factsPath(cacheDir, key)))]);
  });
});

describe('corpus fingerprint', () => {
  test.prop([fc.constantFrom(...POW2_EDGES.filter((n) => n > 0)), fc.integer({ min: 1, max: 7 }), fc.integer()], { numRuns: 60 })(
    'views = copies; any shifted id boundary, offset, length or field changes it; a changed file has none',
    async (count, at, seed) => {
      const rnd = rng(seed);
      const file = freshFile('jsonl');
      writeFileSync(file, `${'x'.repeat(count)}\n`);
      const st = statSync(file);
      const ids = Array.from({ length: count }, (_, i) => idOf('id', i));
      const offsets = Float64Array.from({ length: count }, () => pick(rnd, 2 ** 40));
      const lengths = Uint32Array.from({ length: count }, () => pick(rnd, 2 ** 32));
      const source: DocSource = { kind: 'jsonl', path: file, bytes: st.size, mtimeMs: st.mtimeMs, skillMdField: 'skill_md', fields: ['name', 'skill_md'], separator: '\n', ids, offsets, lengths };
      const fp = (s: DocSource) => corpusFingerprint({ source: s } as unknown as DocStore, undefined);
      const base = await fp(source);
      expect(base).toMatch(/^[0-9a-f]{64}$/);
      // The same arrays as views at an offset into larger buffers.
      const bigO = new Float64Array(count + at + 2).fill(7);
      bigO.set(offsets, at);
      const bigL = new Uint32Array(count + at + 2).fill(7);
      bigL.set(lengths, at);
      expect(await fp({ ...source, offsets: bigO.subarray(at, at + count), lengths: bigL.subarray(at, at + count) })).toBe(base);
      // Any change of what the documents' texts are made from: another fingerprint.
      const i = pick(rnd, count);
      const changed: DocSource[] = [
        { ...source, offsets: offsets.map((o, j) => (j === i ? o + 1 : o)) },
        { ...source, lengths: lengths.map((l, j) => (j === i ? (l + 1) >>> 0 : l)) },
        { ...source, ids: ids.map((id, j) => (j === i ? `${id}x` : id)) },
        { ...source, fields: ['skill_md', 'name'] },
        { ...source, skillMdField: 'body' },
        { ...source, separator: ' ' },
      ];
      if (count > 1) {
        // One id boundary shifted: the same characters in all, split differently.
        const j = Math.min(i, count - 2);
        changed.push({ ...source, ids: ids.map((id, k) => (k === j ? id + ids[j + 1]!.slice(0, 1) : k === j + 1 ? id.slice(1) : id)) });
      }
      for (const c of changed) expect(await fp(c)).not.toBe(base);
      // A file that changed since it was read: no fingerprint.
      expect(await fp({ ...source, bytes: source.bytes + 1 })).toBeNull();
      expect(await fp({ ...source, mtimeMs: source.mtimeMs - 1 })).toBeNull();
    },
  );
});
