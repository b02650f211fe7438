/**
 * score_precision: scores rounded to fp16 / bf16 / fp32 before ranking, ties broken the trec_eval
 * way. Values below were computed by hand with Python's struct 'e' (IEEE half) format, e.g.
 *   p = 0.99975: ln p = -0.00025003…, as fp16 -0.0002501010894775; exp(that) = 0.99974996…, as fp16 0.99951171875
 *   p = 0.9999:  ln p as fp16 -0.0001000165939331; exp = 0.99989999… → fp16 1.0 (above 1 − 2^-12 everything is 1.0)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { roundScore, toBfloat16, toFloat16 } from '../src/rerank/score-precision.js';
import { halfToFloat } from '../src/rerank/logits.js';
import { rerankRun } from '../src/rerank/rerank.js';
import { createReranker } from './helpers/rerankers.js';
import { trecOrder, compareUtf8 } from '../src/metrics/rank.js';
import { buildTinyDecoder, TINY_WORDS } from './helpers/tiny-models.js';
import { silentProgress } from '../src/util/progress.js';
import type { StageContext } from '../src/core/context.js';
import type { Run } from '../src/core/types.js';

describe('rounding to a score precision', () => {
  it.each([
    [0.9999, 1.0],
    [0.99976, 1.0],
    [0.99975, 0.99951171875],
    [0.9997, 0.99951171875],
    [0.73105857863, 0.73095703125],
    [0.5, 0.5],
    [0.50012, 0.5],
    [0.5003, 0.50048828125],
    [0.3, 0.300048828125],
    [0, 0],
  ])('yes/no P(yes) %s in fp16 -> %s', (p, want) => {
    expect(roundScore(p, 'fp16', 'p-yes')).toBe(want);
  });

  it('logits: fp16 and bf16 round to nearest, ties to even', () => {
    expect(toFloat16(0.1)).toBe(0.0999755859375);
    expect(toFloat16(1 + 2 ** -11)).toBe(1); // halfway between 1 and 1 + 2^-10: even mantissa
    expect(toFloat16(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
    expect(toFloat16(65520)).toBe(Infinity);
    expect(toFloat16(-2.5e-8)).toBe(-0); // below half the smallest subnormal
    expect(toFloat16(6e-8)).toBe(2 ** -24);
    expect(toBfloat16(1.2345678)).toBe(1.234375);
    expect(toBfloat16(-3.14159)).toBe(-3.140625);
    expect(toBfloat16(100.3)).toBe(100.5);
    expect(roundScore(-3.14159, 'bf16', 'logit')).toBe(-3.140625);
    expect(roundScore(0.1, 'fp32', 'logit')).toBe(Math.fround(0.1));
  });

  // Every positive finite half, from its bit pattern (an implementation independent of toFloat16).
  const halves = Array.from({ length: 0x7c00 }, (_, h) => halfToFloat(h));
  /** Nearest half by search over all of them; ties to the even bit pattern. */
  function nearestHalf(x: number): number {
    if (x < 0) return -nearestHalf(-x);
    let lo = 0;
    let hi = halves.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (halves[mid]! <= x) lo = mid;
      else hi = mid;
    }
    const dl = x - halves[lo]!;
    const dh = halves[hi]! - x;
    if (dl < dh) return halves[lo]!;
    if (dh < dl) return halves[hi]!;
    return halves[lo % 2 === 0 ? lo : hi]!;
  }

  it('toFloat16 agrees with the nearest half found by search, over many values', () => {
    for (let i = 1; i < 4000; i++) {
      const x = (i * 0.61803398875) % 1 + (i % 7) * 0.25 + i * 1e-9;
      expect(toFloat16(x)).toBe(nearestHalf(x));
    }
    for (let k = 1; k < 200; k++) expect(toFloat16(halves[k]! + (halves[k + 1]! - halves[k]!) / 2)).toBe(nearestHalf(halves[k]! + (halves[k + 1]! - halves[k]!) / 2));
  });

  describe('a tiny yes/no reranker: fp16 creates ties that the trec_eval rule breaks by id', () => {
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'skr-prec-'));
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('reorders exactly as the hand computation of each fp16 score says', async () => {
      const dir = buildTinyDecoder(join(root, 'dec'), { seed: 11 }).dir;
      const ctx: StageContext = { cacheDir: join(root, 'cache'), useCache: true, offline: true, progress: silentProgress, log: () => {} };
      const words = TINY_WORDS.slice(24, 90);
      const docs = new Map<string, string>();
      const n = words.length;
      for (let i = 0; i < 150; i++) docs.set(`s-${String(i).padStart(3, '0')}`, `${words[i % n]} ${words[(Math.floor(i / n) * 11 + 2) % n]} ${words[(i * 13 + 5) % n]}`);
      expect(new Set(docs.values()).size).toBe(150);
      const queries = new Map([['q1', 'deploy the agent code with tests']]);
      const first: Run = new Map([['q1', [...docs.keys()].map((id, i) => ({ docId: id, score: 1000 - i }))]]);
      const spec = (scorePrecision: 'fp32' | 'fp16') => ({ id: `p-${scorePrecision}`, type: 'qwen3' as const, model: dir, depth: 150, threads: 1, scorePrecision });
      const r32 = await createReranker(ctx, spec('fp32'));
      const r16 = await createReranker(ctx, spec('fp16'));
      expect(r16.describe()).toMatchObject({ scorePrecision: 'fp16' });
      const raw = (await rerankRun(ctx, r32, first, queries, docs, 150)).run.get('q1')!;
      const half = (await rerankRun(ctx, r16, first, queries, docs, 150)).run.get('q1')!;
      // Hand computation: log-probability to the nearest half, its exponential to the nearest half.
      const want = new Map(raw.map((d) => [d.docId, nearestHalf(Math.exp(nearestHalf(Math.log(d.score))))]));
      for (const d of half) expect(d.score).toBe(want.get(d.docId));
      const expectedOrder = [...want.entries()].sort((a, b) => b[1] - a[1] || compareUtf8(b[0], a[0])).map(([id]) => id);
      expect(trecOrder(half).map((d) => d.docId)).toEqual(expectedOrder);
      // fp16 made ties where fp32 had none, and the id tie-break changed the order.
      const distinct = (xs: { score: number }[]) => new Set(xs.map((d) => d.score)).size;
      expect(distinct(raw)).toBe(150);
      expect(distinct(half)).toBeLessThan(150);
      expect(trecOrder(half).map((d) => d.docId)).not.toEqual(trecOrder(raw).map((d) => d.docId));
    });
  });
});
