import { describe, expect, it } from 'vitest';
import type { Qrels, Run } from '../src/core/types.js';
import { operatingPoints } from '../src/operating-points/points.js';
import { countTokens } from '../src/operating-points/token-count.js';

/*
 * Hand-computed tiny run. Gold: q1 {a, c}, q2 {b}, q3 {z} (never retrieved).
 * Lists: q1 a .9, b .8, c .5 | q2 a .7, b .6 | q3 c .4. Tokens: a 100, b 200, c 50.
 *   K=1: q1 [a] R .5; q2 [a] R 0; q3 [c] R 0  → R 1/6, C 0, none 2/3, skills 1, tokens 250/3
 *   K=2: q1 [a b] .5; q2 [a b] 1 (complete); q3 [c] → R 1/2, C 1/3, none 1/3, skills 5/3, tokens 650/3
 *   K=3: q1 complete; q2 complete; q3 → R 2/3, C 2/3, none 1/3, skills 2, tokens 700/3
 *   K* (rank of the last gold): q1 3, q2 2, q3 ∞; B*: q1 350, q2 300.
 */
const run: Run = new Map([
  ['q1', [{ docId: 'c', score: 0.5 }, { docId: 'a', score: 0.9 }, { docId: 'b', score: 0.8 }]],
  ['q2', [{ docId: 'a', score: 0.7 }, { docId: 'b', score: 0.6 }]],
  ['q3', [{ docId: 'c', score: 0.4 }]],
]);
const qrels: Qrels = new Map([
  ['q1', new Map([['a', 1], ['c', 1], ['x', 0]])],
  ['q2', new Map([['b', 1]])],
  ['q3', new Map([['z', 2]])],
  ['q4', new Map([['a', 0]])], // no relevant skill: not a query of the benchmark
]);
const tokens = (id: string) => ({ a: 100, b: 200, c: 50 })[id] ?? 10;

describe('operating points', () => {
  const op = operatingPoints(run, qrels, tokens, 0.6);
  it('top-K curve', () => {
    expect(op.queries).toBe(3);
    expect(op.top_k.map((p) => p.k)).toEqual([1, 2, 3]);
    const [k1, k2, k3] = op.top_k;
    expect(k1).toEqual({ k: 1, recall: 0.5 / 3, completeness: 0, no_gold: 2 / 3, injected: 1, tokens: 250 / 3 });
    expect(k2).toEqual({ k: 2, recall: 1.5 / 3, completeness: 1 / 3, no_gold: 1 / 3, injected: 5 / 3, tokens: 650 / 3 });
    expect(k3).toEqual({ k: 3, recall: 2 / 3, completeness: 2 / 3, no_gold: 1 / 3, injected: 2, tokens: 700 / 3 });
  });
  it('threshold curve at the pooled score quantiles (type 7)', () => {
    expect(op.threshold).toHaveLength(21);
    const q0 = op.threshold[0]!;
    expect(q0.threshold).toBe(0.4);
    expect(q0.completeness).toBe(2 / 3);
    const mid = op.threshold[10]!; // q = 0.5: h = 2.5 → 0.6 + 0.5·0.1
    expect(mid.quantile).toBe(0.5);
    expect(mid.threshold).toBeCloseTo(0.65, 12);
    expect(mid).toMatchObject({ recall: 0.5 / 3, completeness: 0, no_gold: 2 / 3, injected: 1, tokens: 400 / 3 });
    const q1 = op.threshold[20]!;
    expect(q1).toMatchObject({ threshold: 0.9, recall: 0.5 / 3, no_gold: 2 / 3, injected: 1 / 3, tokens: 100 / 3 });
  });
  it('budget curve: a prefix while it fits, doubling grid up to the longest list', () => {
    expect(op.budget.map((p) => p.budget)).toEqual([256, 512]);
    // 256: every query injects its first skill only (q1 100+200 > 256) = K=1; 512 holds every list = K=3.
    const { k: _k1, ...first } = op.top_k[0]!;
    const { k: _k3, ...all } = op.top_k[2]!;
    expect(op.budget[0]).toEqual({ budget: 256, ...first });
    expect(op.budget[1]).toEqual({ budget: 512, ...all });
  });
  it('named points are exact order statistics', () => {
    expect(op.min_k).toBe(3);
    expect(op.min_budget).toBe(350);
    const easy = operatingPoints(run, qrels, tokens, 0.3);
    expect([easy.min_k, easy.min_budget]).toEqual([2, 300]);
    const hard = operatingPoints(run, qrels, tokens, 0.9);
    expect([hard.min_k, hard.min_budget]).toEqual([null, null]);
  });
  it('a target outside (0, 1] is refused', () => {
    expect(() => operatingPoints(run, qrels, tokens, 0)).toThrow(/target/);
  });
});

describe('cl100k_base token counts (js-tiktoken, offline rank file)', () => {
  it('counts known strings', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('')).toBe(0);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1); // special tokens count as text
  });
});
