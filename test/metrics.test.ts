/**
 * The per-query measures, on hand-computed examples (arithmetic in the comments).
 * Rankings are given already in trec_eval order, as the measure functions expect.
 */
import { describe, expect, it } from 'vitest';
import type { ScoredDoc } from '../src/core/types.js';
import { completeness as completenessOf } from '../src/metrics/completeness.js';
import { averagePrecision as averagePrecisionOf } from '../src/metrics/map.js';
import { reciprocalRank as reciprocalRankOf } from '../src/metrics/mrr.js';
import { ndcg as ndcgOf } from '../src/metrics/ndcg.js';
import { precision as precisionOf } from '../src/metrics/precision.js';
import { recall as recallOf } from '../src/metrics/recall.js';
import { type MeasureFn, rankedGrades } from '../src/metrics/relevance.js';

/** A measure on a ranking (in trec_eval order) and its judgements, through `rankedGrades`. */
const on = (f: MeasureFn) => (ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number) => f(rankedGrades(ranked, judged), k);
const completeness = on(completenessOf);
const averagePrecision = on(averagePrecisionOf);
const reciprocalRank = on(reciprocalRankOf);
const ndcg = on(ndcgOf);
const precision = on(precisionOf);
const recall = on(recallOf);

/** A ranking from ids, scores descending so the given order is the trec_eval order. */
const ranking = (...docIds: string[]): ScoredDoc[] => docIds.map((docId, i) => ({ docId, score: docIds.length - i }));
const judged = (o: Record<string, number>) => new Map(Object.entries(o));

const L3 = Math.log2(3); // 1.584962500721156
const L5 = Math.log2(5); // 2.321928094887362

// Example A: grades a=2, b=1, c=0 (judged non-relevant), d=-1 (negative: no gain, not relevant).
// Ranking: x (unjudged), b, c, a, d. Relevant R = 2 (a, b).
const A = judged({ a: 2, b: 1, c: 0, d: -1 });
const rA = ranking('x', 'b', 'c', 'a', 'd');

describe('NDCG (trec_eval ndcg_cut)', () => {
  it('graded gains, unjudged / zero / negative grades add nothing', () => {
    // DCG@5 = 1/log2(3) [b at rank 2] + 2/log2(5) [a at rank 4] = 0.63093 + 0.86135 = 1.49228
    // IDCG@5 = 2/log2(2) + 1/log2(3) = 2 + 0.63093 = 2.63093 (grades > 0 sorted descending)
    expect(ndcg(rA, A, 5)).toBeCloseTo((1 / L3 + 2 / L5) / (2 + 1 / L3), 15); // 1.49228 / 2.63093 = 0.567207
    expect(ndcg(rA, A, 5)).toBeCloseTo(0.5672074, 6);
    // @1: x is unjudged -> DCG 0
    expect(ndcg(rA, A, 1)).toBe(0);
    // @2: DCG = 1/log2(3); IDCG@2 = 2 + 1/log2(3)
    expect(ndcg(rA, A, 2)).toBeCloseTo(1 / L3 / (2 + 1 / L3), 15); // 0.239812
  });

  it('a negative grade at the top changes nothing', () => {
    expect(ndcg(ranking('d', 'x', 'b', 'c', 'a'), A, 2)).toBe(0);
    // d, x, b: DCG@3 = 1/log2(4) = 0.5; IDCG@3 = 2 + 1/log2(3)
    expect(ndcg(ranking('d', 'x', 'b'), A, 3)).toBeCloseTo(0.5 / (2 + 1 / L3), 15);
  });

  it('ideal DCG orders grades descending: a weaker doc first is not ideal', () => {
    const g = judged({ a: 1, b: 2 });
    // DCG@2 = 1/1 + 2/log2(3) = 2.26186; IDCG@2 = 2/1 + 1/log2(3) = 2.63093 -> 0.859719
    expect(ndcg(ranking('a', 'b'), g, 2)).toBeCloseTo((1 + 2 / L3) / (2 + 1 / L3), 15);
    // @1: 1 / 2
    expect(ndcg(ranking('a', 'b'), g, 1)).toBe(0.5);
    expect(ndcg(ranking('b', 'a'), g, 2)).toBe(1);
  });

  it('ideal DCG is cut at k when there is more gold than k', () => {
    const g = judged({ a: 1, b: 1, c: 1 });
    // DCG@2 = 1 + 1/log2(3) = IDCG@2 (only 2 of the 3 gold fit)
    expect(ndcg(ranking('a', 'b'), g, 2)).toBe(1);
    // @3 with only 2 returned: (1 + 1/log2 3) / (1 + 1/log2 3 + 1/log2 4) = 1.63093 / 2.13093
    expect(ndcg(ranking('a', 'b'), g, 3)).toBeCloseTo((1 + 1 / L3) / (1 + 1 / L3 + 0.5), 15);
  });

  it('is 0 for an empty ranking and for a query without relevant documents', () => {
    expect(ndcg([], A, 5)).toBe(0);
    expect(ndcg(ranking('c'), judged({ c: 0 }), 5)).toBe(0);
  });
});

describe('MAP@k (trec_eval map_cut): divided by all relevant R', () => {
  it('example A', () => {
    // relevant at rank 2 (1 of 2 seen: 1/2) and rank 4 (2/4): (0.5 + 0.5) / R=2 = 0.5
    expect(averagePrecision(rA, A, 5)).toBe(0.5);
    // @2: only b: (1/2) / 2 = 0.25 (divided by R = 2, not min(k, R))
    expect(averagePrecision(rA, A, 2)).toBe(0.25);
    expect(averagePrecision(rA, A, 1)).toBe(0);
  });

  it('more gold than k: still divided by R', () => {
    const g = judged({ a: 1, b: 1, c: 1 });
    // (1/1 + 2/2) / 3 = 2/3, although the best possible @2 has only 2 relevant
    expect(averagePrecision(ranking('a', 'b'), g, 2)).toBeCloseTo(2 / 3, 15);
  });

  it('grade 2 and grade 1 count the same (binary, relevant = grade >= 1)', () => {
    expect(averagePrecision(ranking('a', 'b'), judged({ a: 2, b: 1 }), 2)).toBe(1);
  });
});

describe('Recall@k, Precision@k, Completeness@k, MRR@k', () => {
  it('Recall: relevant in top k / R', () => {
    expect(recall(rA, A, 5)).toBe(1); // 2/2
    expect(recall(rA, A, 3)).toBe(0.5); // only b
    expect(recall(rA, A, 1)).toBe(0);
    expect(recall([], A, 5)).toBe(0);
  });

  it('Precision: relevant in top k / k, even with fewer than k returned', () => {
    expect(precision(rA, A, 5)).toBe(0.4); // 2/5
    expect(precision(rA, A, 2)).toBe(0.5); // 1/2
    expect(precision(rA, A, 10)).toBe(0.2); // 5 returned, 2 relevant: 2/10, not 2/5
    expect(precision(ranking('a'), A, 5)).toBe(0.2); // 1/5
  });

  it('Completeness: 1 only when every relevant doc is in the top k', () => {
    expect(completeness(rA, A, 5)).toBe(1);
    expect(completeness(rA, A, 3)).toBe(0); // recall 1/2
    const g = judged({ a: 1, b: 1, c: 1 });
    expect(completeness(ranking('a', 'b'), g, 2)).toBe(0); // more gold than k: never 1
    expect(completeness(ranking('a', 'b', 'c'), g, 3)).toBe(1);
    expect(completeness([], A, 5)).toBe(0);
    expect(completeness(ranking('c'), judged({ c: 0 }), 5)).toBe(0);
  });

  it('MRR: 1 / rank of the first relevant doc within k', () => {
    expect(reciprocalRank(rA, A, 5)).toBe(0.5); // b at rank 2
    expect(reciprocalRank(rA, A, 1)).toBe(0); // cut before b
    expect(reciprocalRank(ranking('x', 'c', 'd', 'y', 'z', 'a'), A, 5)).toBe(0); // a at rank 6
    expect(reciprocalRank(ranking('x', 'c', 'd', 'y', 'z', 'a'), A, 6)).toBeCloseTo(1 / 6, 15);
    expect(reciprocalRank([], A, 5)).toBe(0);
  });
});
