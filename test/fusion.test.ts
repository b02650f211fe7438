/**
 * The fusion algorithms (src/fusion/) on tiny hand-written runs: RRF, CombSUM, CombMNZ and the
 * per-query normalisations, with the arithmetic written out.
 */
import { describe, expect, it } from 'vitest';
import type { Run, ScoredDoc } from '../src/core/types.js';
import { rrf } from '../src/fusion/rrf.js';
import { combmnz, combsum } from '../src/fusion/combsum.js';
import { normalizeScores } from '../src/fusion/normalize.js';
import { fuse } from '../src/fusion/fuse.js';

const run = (q: Record<string, Record<string, number>>): Run =>
  new Map(Object.entries(q).map(([qid, docs]) => [qid, Object.entries(docs).map(([docId, score]) => ({ docId, score }))]));
const ids = (l: readonly ScoredDoc[] | undefined) => (l ?? []).map((d) => d.docId);

// A: q1 a 3.0 (rank 1), b 2.0 (rank 2), c 1.0 (rank 3); q2 x only.
// B: q1 c 0.9 (rank 1), then d and a tie at 0.8: trec order puts the larger id first, d rank 2, a rank 3; q3 y only.
// The lists are given out of order on purpose: ranks come from trec order, not from the array order.
const A = run({ q1: { c: 1.0, a: 3.0, b: 2.0 }, q2: { x: 1 } });
const B = run({ q1: { a: 0.8, c: 0.9, d: 0.8 }, q3: { y: 5 } });

describe('rrf', () => {
  it('sums 1/(k + rank) over the inputs that returned the document', () => {
    const out = rrf([A, B], { k: 60, topK: 10 });
    // a = 1/61 (A rank 1) + 1/63 (B rank 3) = 0.0163934 + 0.0158730 = 0.0322665
    // c = 1/63 (A rank 3) + 1/61 (B rank 1) = the same double (IEEE addition is commutative)
    // b = 1/62 (A only; B contributes nothing), d = 1/62 (B only)
    // Ties by doc id descending: c before a, d before b.
    expect(out.get('q1')).toEqual([
      { docId: 'c', score: 0 + 1 / 63 + 1 / 61 },
      { docId: 'a', score: 0 + 1 / 61 + 1 / 63 },
      { docId: 'd', score: 1 / 62 },
      { docId: 'b', score: 1 / 62 },
    ]);
    expect(out.get('q1')![0]!.score).toBeCloseTo(0.0322665, 7);
    // Queries of either input are present; a one-input query gets 1/(60 + 1).
    expect([...out.keys()]).toEqual(['q1', 'q2', 'q3']);
    expect(out.get('q2')).toEqual([{ docId: 'x', score: 1 / 61 }]);
    expect(out.get('q3')).toEqual([{ docId: 'y', score: 1 / 61 }]);
  });

  it('applies weights and k, and keeps the top_k by trec order', () => {
    // weights [3, 1], k 60:
    // a = 3/61 + 1/63 = 0.049180 + 0.015873 = 0.065053
    // c = 3/63 + 1/61 = 0.047619 + 0.016393 = 0.064012
    // b = 3/62 = 0.048387; d = 1/62 = 0.016129  → a, c, b, d; top 2 = a, c
    const out = rrf([A, B], { k: 60, weights: [3, 1], topK: 2 });
    expect(out.get('q1')).toEqual([
      { docId: 'a', score: 3 / 61 + 1 / 63 },
      { docId: 'c', score: 3 / 63 + 1 / 61 },
    ]);
    // k = 0: a = 1/1 + 1/3 = 1.3333, c = 1/3 + 1/1 (tie → c first), b = d = 1/2 (d first).
    expect(ids(rrf([A, B], { k: 0, topK: 10 }).get('q1'))).toEqual(['c', 'a', 'd', 'b']);
    expect(rrf([A, B], { k: 0, topK: 10 }).get('q1')![1]!.score).toBe(1 + 1 / 3);
  });

  it('is deterministic and leaves its inputs untouched', () => {
    const before = JSON.stringify([...A]);
    const x = rrf([A, B], { k: 60, topK: 3 });
    const y = rrf([A, B], { k: 60, topK: 3 });
    expect([...x]).toEqual([...y]);
    expect(JSON.stringify([...A])).toBe(before);
  });
});

// C: q1 a 10, b 9, c 0 → min-max (span 10): a 1, b 0.9, c 0
// D: q1 a 4, c 3, d 0 → min-max (span 4): a 1, c 0.75, d 0
const C = run({ q1: { a: 10, b: 9, c: 0 } });
const D = run({ q1: { a: 4, c: 3, d: 0 } });

describe('combsum / combmnz', () => {
  it('CombSUM adds the min-max normalised scores', () => {
    // a = 1 + 1 = 2; b = 0.9 (C only); c = 0 + 0.75 = 0.75; d = 0 (D only)
    expect(combsum([C, D], { norm: 'min-max', topK: 10 }).get('q1')).toEqual([
      { docId: 'a', score: 2 },
      { docId: 'b', score: 0.9 },
      { docId: 'c', score: 0.75 },
      { docId: 'd', score: 0 },
    ]);
  });

  it('CombMNZ multiplies the sum by the number of inputs that returned the document', () => {
    // a = 2 × 2 = 4; c = 2 × 0.75 = 1.5; b = 1 × 0.9 = 0.9; d = 1 × 0 = 0 → c now beats b
    expect(combmnz([C, D], { norm: 'min-max', topK: 10 }).get('q1')).toEqual([
      { docId: 'a', score: 4 },
      { docId: 'c', score: 1.5 },
      { docId: 'b', score: 0.9 },
      { docId: 'd', score: 0 },
    ]);
  });

  it('weights multiply each input; norm none adds raw scores; top_k cuts', () => {
    // weights [1, 2]: a = 1 + 2·1 = 3; c = 0 + 2·0.75 = 1.5; b = 0.9; d = 0
    expect(combsum([C, D], { norm: 'min-max', weights: [1, 2], topK: 10 }).get('q1')).toEqual([
      { docId: 'a', score: 3 },
      { docId: 'c', score: 1.5 },
      { docId: 'b', score: 0.9 },
      { docId: 'd', score: 0 },
    ]);
    // none: a = 10 + 4 = 14; b = 9; c = 0 + 3 = 3; d = 0; top 2
    expect(combsum([C, D], { norm: 'none', topK: 2 }).get('q1')).toEqual([
      { docId: 'a', score: 14 },
      { docId: 'b', score: 9 },
    ]);
  });

  it('z-normalised CombSUM: an absent document counts as the mean (0)', () => {
    // A q1: a 3, b 2, c 1 → mean 2, population std √(2/3): a +1/√(2/3) = 1.2247, b 0, c −1.2247
    // B q1: c 0.9, a 0.8, d 0.8 → mean 0.8333, std 0.04714: c +1.4142, a −0.7071, d −0.7071
    // a = 1.2247 − 0.7071 = 0.5176; c = −1.2247 + 1.4142 = 0.1895; b = 0; d = −0.7071
    const out = combsum([A, B], { norm: 'z', topK: 10 }).get('q1')!;
    expect(ids(out)).toEqual(['a', 'c', 'b', 'd']);
    expect(out[0]!.score).toBeCloseTo(1 / Math.sqrt(2 / 3) - 1 / Math.sqrt(2), 12);
    expect(out[1]!.score).toBeCloseTo(-1 / Math.sqrt(2 / 3) + Math.sqrt(2), 12);
    expect(out[3]!.score).toBeCloseTo(-1 / Math.sqrt(2), 12);
  });

  it('fuse dispatches on the method', () => {
    expect(fuse([C, D], { method: 'combmnz', norm: 'min-max', weights: [1, 1], topK: 1 }).get('q1')).toEqual([{ docId: 'a', score: 4 }]);
    expect(fuse([A, B], { method: 'rrf', rrfK: 60, weights: [1, 1], topK: 1 }).get('q1')).toEqual([{ docId: 'c', score: 1 / 63 + 1 / 61 }]);
  });
});

describe('normalizeScores', () => {
  const l = (...s: number[]) => s.map((score, i) => ({ docId: `d${i}`, score }));
  it('min-max maps to [0, 1] per list, negative scores included', () => {
    expect(normalizeScores(l(3, 2, 1), 'min-max').map((d) => d.score)).toEqual([1, 0.5, 0]);
    expect(normalizeScores(l(-1, -3), 'min-max').map((d) => d.score)).toEqual([1, 0]);
  });
  it('min-max of all-equal scores (and of a single document) is 1 for every document', () => {
    expect(normalizeScores(l(0.7, 0.7, 0.7), 'min-max').map((d) => d.score)).toEqual([1, 1, 1]);
    expect(normalizeScores(l(-4), 'min-max').map((d) => d.score)).toEqual([1]);
  });
  it('z uses the population standard deviation; all-equal scores give 0 (the mean)', () => {
    // 3, 2, 1: mean 2, variance (1 + 0 + 1)/3
    expect(normalizeScores(l(3, 2, 1), 'z').map((d) => d.score)).toEqual([1 / Math.sqrt(2 / 3), 0, -1 / Math.sqrt(2 / 3)]);
    expect(normalizeScores(l(5, 5), 'z').map((d) => d.score)).toEqual([0, 0]);
    expect(normalizeScores(l(5), 'z').map((d) => d.score)).toEqual([0]);
  });
  it('none copies; an empty list stays empty; the input is not modified', () => {
    const input = l(3, 1);
    expect(normalizeScores(input, 'none')).toEqual(input);
    expect(normalizeScores(input, 'none')).not.toBe(input);
    expect(normalizeScores([], 'min-max')).toEqual([]);
    expect(normalizeScores([], 'z')).toEqual([]);
    normalizeScores(input, 'min-max');
    expect(input.map((d) => d.score)).toEqual([3, 1]);
  });
  it('an input whose list is all-equal still counts in CombSUM (min-max 1 each)', () => {
    // E: q1 a 5, b 5 → 1, 1; F: q1 b 2, c 1 → 1, 0. a = 1, b = 1 + 1 = 2, c = 0.
    const E = run({ q1: { a: 5, b: 5 } });
    const F = run({ q1: { b: 2, c: 1 } });
    expect(combsum([E, F], { norm: 'min-max', topK: 5 }).get('q1')).toEqual([
      { docId: 'b', score: 2 },
      { docId: 'a', score: 1 },
      { docId: 'c', score: 0 },
    ]);
  });
});
