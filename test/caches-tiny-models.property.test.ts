/**
 * The embedding cache and the reranker score cache over real models (tiny random-weight BERT
 * encoder and cross-encoder, test/helpers/tiny-models.ts, run through transformers.js and
 * onnxruntime): for random texts (pairs) and a random cache state (an earlier call on a random
 * subset, chunks deleted, cut short or bit-flipped), the cached call gives the float32 vectors
 * (scores) of the uncached call bit for bit, and encodes (scores) exactly what no intact entry holds.
 * This is what the stand-in properties (caches.property.test.ts) assume of the models: a row's
 * output depends on its batch's shape alone, which the planner fixes by the row's own length.
 * Crossed: the batch size (3 and 8; counts around 1 and 2 batches ± 2), the chunk size (small and
 * the default 256 ± 2 texts), the window (around it ± 2), the token limit (texts cut at 32 tokens,
 * lengths across the 8-token buckets). Few runs: each one runs the models.
 */
import { fc, test } from '@fast-check/vitest';
import { env } from '@huggingface/transformers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { configureTransformersEnv, resolveModel } from '../src/models/resolve.js';
import { loadCrossEncoder, type CrossEncoderReranker } from '../src/rerank/cross-encoder.js';
import { pairKey } from '../src/rerank/score-cache.js';
import { WindowedReranker } from '../src/rerank/windowed-reranker.js';
import type { RerankPair } from '../src/rerank/types.js';
import { decodeChunkFile, textKey } from '../src/retrieval/dense/embedding/embedding-cache.js';
import { encodeWithCache, localEmbeddingConfigKey } from '../src/retrieval/dense/embedding/encode-cached.js';
import { Embedder, type EmbedderOptions, type Role } from '../src/retrieval/dense/embedding/embedder.js';
import { modelsDir } from '../src/util/paths.js';
import { damageSome, entryBody, f32Bits, f64Bits, filesUnder, openScores, pick, rng } from './helpers/cache-damage.js';
import { buildTinyCrossEncoder, buildTinyEncoder, TINY_WORDS } from './helpers/tiny-models.js';

let root: string;
const embedders = new Map<number, Embedder>();
const rerankers = new Map<number, CrossEncoderReranker>();
const BATCH_SIZES = [3, 8] as const;
const VOCAB = TINY_WORDS.filter((w) => /^[a-z]+$/.test(w));
let dirs = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skillret-caches-tiny-'));
  const loc = { offline: true, cacheDir: join(root, 'hub'), modelsDir: modelsDir() };
  configureTransformersEnv(loc, env);
  const enc = buildTinyEncoder(join(root, 'enc'), { seed: 5, maxPositions: 64 });
  const ce = buildTinyCrossEncoder(join(root, 'ce'), { seed: 6, maxPositions: 64 });
  for (const batchSize of BATCH_SIZES) {
    const opts: EmbedderOptions = { queryPrefix: 'query ', docPrefix: '', pooling: 'mean', normalize: true, maxTokens: 32, dtype: 'fp32', batchSize, threads: 1 };
    embedders.set(batchSize, await Embedder.load(resolveModel(enc.dir, loc), opts, loc));
    rerankers.set(batchSize, await loadCrossEncoder({ id: 'ce', location: ce.dir, dtype: 'fp32', threads: 1, batchSize, concurrency: 1 }));
  }
});
afterAll(async () => {
  for (const e of embedders.values()) await e.dispose();
  for (const r of rerankers.values()) await r.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** `count` distinct texts of 0 … 40 words (cut at 32 tokens, spread over the 8-token buckets). */
function wordTexts(count: number, maxWords: number, rnd: () => number): string[] {
  return Array.from({ length: count }, (_, d) => {
    const n = [0, 1, 5, 6, 7, 13, 14, 15, 29, 30, 31, 40][pick(rnd, 12)]!;
    return [VOCAB[d % VOCAB.length]!, VOCAB[Math.floor(d / VOCAB.length) % VOCAB.length]!, ...Array.from({ length: Math.min(n, maxWords) }, () => VOCAB[pick(rnd, VOCAB.length)]!)].join(' ');
  });
}

describe('embedding cache over the tiny BERT encoder', () => {
  test.prop(
    [
      fc.constantFrom(...BATCH_SIZES),
      fc.constantFrom<number | undefined>(2, 3, 5, undefined),
      fc.constantFrom('batch', 'chunk'),
      fc.constantFrom(1, 2),
      fc.integer({ min: -2, max: 2 }),
      fc.constantFrom(0.3, 0.7, 1),
      fc.constantFrom(0, 0.5),
      fc.constantFrom<Role>('query', 'document'),
      fc.integer(),
    ],
    { numRuns: 20 },
  )('cached vectors = uncached vectors bit for bit, whatever the cache held', async (batchSize, chunkSize, around, times, delta, priorShare, damageShare, role, seed) => {
    const rnd = rng(seed);
    const embedder = embedders.get(batchSize)!;
    const base = around === 'batch' ? batchSize : (chunkSize ?? 256);
    // (The default chunk only at its first crossing: each text costs a model row.)
    const n = Math.max(1, base * (chunkSize === undefined && around === 'chunk' ? 1 : times) + delta);
    const texts = wordTexts(n, 40, rnd);
    texts.push(...texts.slice(0, n >> 2)); // repeats
    const cacheDir = join(root, `emb-${dirs++}`);
    const opts = (useCache: boolean) => ({
      cache: { cacheDir, useCache, log: () => {}, ...(chunkSize !== undefined ? { chunkSize } : {}) },
      modelSha256: 'm'.repeat(64),
      tokenizerSha256: 't'.repeat(64),
    });
    const plain = await encodeWithCache(embedder, texts, role, opts(false));
    await encodeWithCache(
      embedder,
      texts.filter(() => rnd() < priorShare),
      role,
      opts(true),
    );
    const configKey = localEmbeddingConfigKey(embedder, role, 'm'.repeat(64), 't'.repeat(64));
    const chunkDir = join(cacheDir, 'embeddings', configKey);
    const held = new Map(filesUnder(chunkDir, (p) => p.endsWith('.bin')).map((f) => [f, decodeChunkFile(configKey, basename(f, '.bin'), readFileSync(f)).keys] as const));
    const damaged = damageSome([...held.keys()], damageShare, rnd);
    const intact = new Set([...held].filter(([f]) => !damaged.has(f)).flatMap(([, k]) => k));
    const missing = new Set(texts.filter((t) => !intact.has(textKey(configKey, t))));
    const warm = await encodeWithCache(embedder, texts, role, opts(true));
    expect(f32Bits(warm.vectors)).toEqual(f32Bits(plain.vectors));
    expect(warm.stats.encoded).toBe(missing.size);
    expect(warm.stats.truncatedTexts).toBe(plain.stats.truncatedTexts);
    const hot = await encodeWithCache(embedder, texts, role, opts(true));
    expect(hot.stats).toMatchObject({ misses: 0, encoded: 0 });
    expect(f32Bits(hot.vectors)).toEqual(f32Bits(plain.vectors));
  });
});

describe('score cache over the tiny BERT cross-encoder', () => {
  test.prop(
    [fc.constantFrom(...BATCH_SIZES), fc.constantFrom(2, 5, 1024), fc.constantFrom(1, 2), fc.integer({ min: -2, max: 2 }), fc.constantFrom(0.3, 0.7, 1), fc.constantFrom(0, 0.5), fc.integer()],
    { numRuns: 20 },
  )('cached scores = uncached scores bit for bit, whatever the cache held', async (batchSize, window, times, delta, priorShare, damageShare, seed) => {
    const rnd = rng(seed);
    const ce = rerankers.get(batchSize)!;
    // Unique pairs around the window (or the batch size, under the default window) ± 2.
    const n = Math.max(1, (window === 1024 ? batchSize : window) * times + delta);
    const queries = wordTexts(Math.max(1, n >> 2), 6, rnd);
    const docs = wordTexts(n, 40, rnd);
    const pool: RerankPair[] = docs.map((doc, i) => ({ query: queries[i % queries.length]!, doc }));
    const pairs = [...pool, ...pool.slice(0, n >> 2)];
    const dir = join(root, `rr-${dirs++}`);
    const plain = await new WindowedReranker(ce, { window }).score(pairs);
    await new WindowedReranker(ce, { cache: openScores(dir), window }).score(pool.filter(() => rnd() < priorShare));
    const held = new Map(filesUnder(dir, (p) => p.endsWith('.jsonl')).map((f) => [f, entryBody(f).toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as [string])[0])] as const));
    const damaged = damageSome([...held.keys()], damageShare, rnd);
    const intact = new Set([...held].filter(([f]) => !damaged.has(f)).flatMap(([, k]) => k));
    const warm = new WindowedReranker(ce, { cache: openScores(dir), window });
    const before = ce.stats().pairs;
    expect(f64Bits(await warm.score(pairs))).toEqual(f64Bits(plain));
    expect(ce.stats().pairs - before).toBe(new Set(pairs.map((p) => pairKey(p.query, p.doc)).filter((k) => !intact.has(k))).size);
    const hot = new WindowedReranker(ce, { cache: openScores(dir), window });
    expect(f64Bits(await hot.score(pairs))).toEqual(f64Bits(plain));
    expect(hot.stats().cachedPairs).toBe(pairs.length);
  });
});
