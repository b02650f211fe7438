/**
 * A text's (or a pair's) output does not depend on the other inputs of its batch: scores and
 * vectors of every input, computed inside one big call, equal bit for bit those computed in other
 * company (a shuffled subset, alone, another batch size) — which is what makes a cached, a
 * partially cached, a resumed and an uncached run give the same results files. Run on a corpus
 * large enough that length-sorted batching with padding to the longest row gave different low bits
 * (the bundled GloVe MaxSim scorer through the cross-encoder path; tiny random-weight BERT and
 * Qwen3-shaped models through the real transformers.js path).
 */
import { env } from '@huggingface/transformers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureTransformersEnv, resolveModel } from '../src/models/resolve.js';
import { loadCrossEncoder } from '../src/rerank/cross-encoder.js';
import { loadQwen3 } from '../src/rerank/qwen3.js';
import { Embedder } from '../src/retrieval/dense/embedding/embedder.js';
import { bucketWidth } from '../src/util/length-buckets.js';
import { modelsDir } from '../src/util/paths.js';
import { GLOVE_RERANKER_NAME } from '../src/models/glove/names.js';
import { buildTinyCrossEncoder, buildTinyDecoder, buildTinyEncoder, seededUniform, TINY_WORDS } from './helpers/tiny-models.js';
import type { RerankPair } from '../src/rerank/types.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-batch-inv-'));
  configureTransformersEnv({ offline: true, cacheDir: join(root, 'cache'), modelsDir: modelsDir() }, env);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GLOVE_WORDS = 'search code deploy server database query index python script test build cloud storage email calendar image video audio text file folder git branch commit review security token network api web page browser chart table report invoice payment user account login password backup monitor alert log metric model train data clean parse convert translate summarize schedule meeting slack message'.split(' ');

/** Uniform floats in [0, 1). */
function uniform01(seed: number): () => number {
  const u = seededUniform(seed);
  return () => (u() + 1) / 2;
}

function texts(n: number, vocab: readonly string[], minWords: number, maxWords: number, seed: number): string[] {
  const rnd = uniform01(seed);
  return Array.from({ length: n }, () => {
    const len = minWords + Math.floor(rnd() * (maxWords - minWords + 1));
    return Array.from({ length: len }, () => vocab[Math.floor(rnd() * vocab.length)]!).join(' ');
  });
}

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rnd = uniform01(seed);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** Scores of `pairs`, scored as `subset` (indices) only, in that order. */
async function scoreSubset(score: (p: RerankPair[]) => Promise<number[]>, pairs: readonly RerankPair[], subset: readonly number[]): Promise<Map<number, number>> {
  const s = await score(subset.map((i) => pairs[i]!));
  return new Map(subset.map((i, j) => [i, s[j]!]));
}

function pairsOf(queries: readonly string[], docs: readonly string[], perQuery: number): RerankPair[] {
  return queries.flatMap((query, qi) => Array.from({ length: perQuery }, (_, j) => ({ query, doc: docs[(qi * 7 + j * 13) % docs.length]! })));
}

describe('bucketWidth', () => {
  it('is a function of the length alone, at least the length, at most 12.5% (or 7 tokens) more, capped by the limit', () => {
    for (let len = 1; len <= 5000; len++) {
      const w = bucketWidth(len);
      expect(w).toBeGreaterThanOrEqual(len);
      expect(w - len).toBeLessThanOrEqual(Math.max(7, Math.ceil(len / 8)));
      expect(bucketWidth(len, 300)).toBe(len > 300 ? len : Math.min(w, 300));
    }
    expect([1, 8, 9, 64, 65, 100, 129, 500, 513].map((l) => bucketWidth(l))).toEqual([8, 8, 16, 64, 72, 104, 144, 512, 576]);
    expect(bucketWidth(0)).toBe(0);
  });
});

describe('GloVe MaxSim through the cross-encoder path: 600 pairs over a 400-document corpus', () => {
  it('every pair scores the same whatever its batch companions', async () => {
    const docs = texts(400, GLOVE_WORDS, 3, 300, 11);
    const queries = texts(40, GLOVE_WORDS, 5, 60, 12);
    const pairs = pairsOf(queries, docs, 15);
    const ce = await loadCrossEncoder({ id: 'maxsim', location: join(modelsDir(), GLOVE_RERANKER_NAME), dtype: 'fp32', threads: 1, batchSize: 16, concurrency: 1 });
    const score = (p: RerankPair[]) => ce.score(p);
    const all = await score(pairs);
    // Another company: a shuffled half (as when the other half is cached), then the rest in 7s.
    const order = shuffled(pairs.map((_, i) => i), 3);
    const half = await scoreSubset(score, pairs, order.slice(0, 300));
    const rest = new Map<number, number>();
    for (let i = 300; i < order.length; i += 7) for (const [k, v] of await scoreSubset(score, pairs, order.slice(i, i + 7))) rest.set(k, v);
    const differing = pairs.map((_, i) => i).filter((i) => !Object.is(all[i], half.get(i) ?? rest.get(i)));
    expect(differing).toEqual([]);
    await ce.dispose();
  });
});

describe('tiny BERT cross-encoder (attention over padded positions)', () => {
  it('scores do not depend on the batch', async () => {
    const info = buildTinyCrossEncoder(join(root, 'ce'), { seed: 9, maxPositions: 128 });
    const vocab = TINY_WORDS.filter((w) => /^[a-z]+$/.test(w));
    const docs = texts(120, vocab, 1, 110, 21);
    const queries = texts(20, vocab, 1, 12, 22);
    const pairs = pairsOf(queries, docs, 15);
    const ce = await loadCrossEncoder({ id: 'ce', location: info.dir, dtype: 'fp32', threads: 1, batchSize: 8, concurrency: 1 });
    const all = await ce.score(pairs);
    const order = shuffled(pairs.map((_, i) => i), 5);
    const again = new Map<number, number>();
    for (let i = 0; i < order.length; i += 5) for (const [k, v] of await scoreSubset((p) => ce.score(p), pairs, order.slice(i, i + 5))) again.set(k, v);
    expect(pairs.map((_, i) => i).filter((i) => !Object.is(all[i], again.get(i)))).toEqual([]);
    await ce.dispose();
  });
});

describe('tiny Qwen3-shaped yes/no reranker (left padding)', () => {
  it('scores do not depend on the batch', async () => {
    const info = buildTinyDecoder(join(root, 'dec'), { seed: 4, maxPositions: 512 });
    const vocab = TINY_WORDS.filter((w) => /^[a-z]+$/.test(w));
    const docs = texts(60, vocab, 1, 80, 31);
    const queries = texts(10, vocab, 1, 10, 32);
    const pairs = pairsOf(queries, docs, 12);
    const q = await loadQwen3({ id: 'q', location: info.dir, dtype: 'fp32', threads: 1, batchSize: 8, concurrency: 1, maxTokens: 400, skipPaddingCheck: true } as Parameters<typeof loadQwen3>[0]);
    const all = await q.score(pairs);
    const order = shuffled(pairs.map((_, i) => i), 6);
    const again = new Map<number, number>();
    for (let i = 0; i < order.length; i += 3) for (const [k, v] of await scoreSubset((p) => q.score(p), pairs, order.slice(i, i + 3))) again.set(k, v);
    expect(pairs.map((_, i) => i).filter((i) => !Object.is(all[i], again.get(i)))).toEqual([]);
    await q.dispose();
  });
});

describe('tiny BERT embedder (mean pooling)', () => {
  it('vectors do not depend on the batch (the cache holds some texts, a resumed run restarts elsewhere)', async () => {
    const info = buildTinyEncoder(join(root, 'enc'), { seed: 7, maxPositions: 128 });
    const vocab = TINY_WORDS.filter((w) => /^[a-z]+$/.test(w));
    const docs = texts(300, vocab, 1, 120, 41);
    const loc = { offline: true, cacheDir: join(root, 'cache'), modelsDir: join(root, 'models') };
    const e = await Embedder.load(resolveModel(info.dir, loc), { queryPrefix: '', docPrefix: '', pooling: 'mean', normalize: true, maxTokens: null, dtype: 'fp32', batchSize: 16, threads: 1 }, loc);
    const all = await e.embed(docs, 'document');
    const order = shuffled(docs.map((_, i) => i), 8);
    const differing: number[] = [];
    for (let i = 0; i < order.length; i += 11) {
      const part = order.slice(i, i + 11);
      const v = await e.embed(part.map((j) => docs[j]!), 'document');
      part.forEach((j, r) => {
        if (Buffer.compare(Buffer.from(all[j]!.buffer, all[j]!.byteOffset, all[j]!.byteLength), Buffer.from(v[r]!.buffer, v[r]!.byteOffset, v[r]!.byteLength)) !== 0) differing.push(j);
      });
    }
    expect(differing).toEqual([]);
    await e.dispose();
  });
});
