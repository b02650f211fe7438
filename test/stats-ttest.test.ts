/**
 * Paired t-test. Reference values from python3, scipy 1.17.1: `scipy.stats.ttest_rel(b, a)` (note the
 * order: our differences are b − a), printed with repr(); df from `.df`.
 */
import { describe, expect, it } from 'vitest';
import { pairedTTest } from '../src/stats/ttest.js';

const a1 = [0.5, 0.2, 0.9, 0.4, 0.7, 0.1, 0.3, 0.8, 0.6, 0.0];
const b1 = [0.6, 0.25, 0.7, 0.55, 0.9, 0.1, 0.45, 0.85, 0.5, 0.2];
// NDCG-like values with ties and log2 fractions
const a2 = [1, 0, 0.5, 0.63092975357145753, 1, 0.38685280723454163, 0, 1, 0.5, 0.43067655807339306, 0, 1];
const b2 = [1, 0.63092975357145753, 1, 0.5, 1, 1, 0, 0.43067655807339306, 1, 1, 0.38685280723454163, 1];
// numpy default_rng(7): a = round(random(40), 6), b = round(clip(a + 0.15 + 0.1 * N(0,1), 0, 1), 6)
const a3 = [0.625095, 0.897214, 0.775686, 0.225207, 0.300166, 0.873553, 0.005265, 0.821228, 0.797069, 0.467935, 0.303032, 0.278426, 0.25487, 0.445076, 0.504548, 0.553497, 0.9955, 0.792662, 0.622179, 0.98896, 0.215309, 0.160212, 0.61254, 0.043942, 0.03568, 0.514889, 0.466206, 0.917168, 0.629226, 0.514118, 0.496873, 0.247515, 0.011794, 0.192402, 0.692032, 0.200607, 0.369536, 0.003734, 0.830048, 0.154461];
const b3 = [0.763925, 1.0, 0.932064, 0.252701, 0.45778, 1.0, 0.000551, 1.0, 0.959004, 0.553788, 0.653074, 0.504652, 0.284941, 0.602528, 0.712217, 0.684619, 1.0, 0.93601, 0.838904, 1.0, 0.297743, 0.330526, 0.716209, 0.206669, 0.066961, 0.606959, 0.596586, 1.0, 0.893748, 0.531765, 0.567409, 0.462205, 0.0, 0.296085, 0.832303, 0.476308, 0.588476, 0.121013, 0.94319, 0.279441];

const rel = (x: number, y: number) => Math.abs(x - y) / Math.abs(y);

describe('pairedTTest vs scipy.stats.ttest_rel', () => {
  it.each([
    ['n=10', a1, b1, 1.4504813352456842, 0.18086547910352666, 9],
    ['n=12 NDCG-like', a2, b2, 1.9113438944143721, 0.08235287455647378, 11],
    ['n=40 strong effect', a3, b3, 9.920866683373784, 3.2030528258568325e-12, 39],
  ])('%s', (_n, a, b, t, p, df) => {
    const r = pairedTTest(a, b);
    expect(rel(r.t, t)).toBeLessThan(1e-12);
    expect(rel(r.pValue, p)).toBeLessThan(1e-9);
    expect(r.df).toBe(df);
  });

  it('direction: swapping a and b negates t and meanDiff, keeps p', () => {
    const ab = pairedTTest(a1, b1);
    const ba = pairedTTest(b1, a1);
    expect(ba.t).toBe(-ab.t);
    expect(ba.meanDiff).toBe(-ab.meanDiff);
    expect(ba.pValue).toBe(ab.pValue);
    expect(ab.meanDiff).toBeCloseTo(0.06, 12);
  });

  it('n = 2 by hand: d = [1, 3] → t = 2, df = 1, p = 1 − 2·atan(2)/π (Cauchy)', () => {
    const r = pairedTTest([0, 0], [1, 3]);
    expect(r.t).toBeCloseTo(2, 14);
    expect(r.df).toBe(1);
    expect(r.pValue).toBeCloseTo(1 - (2 * Math.atan(2)) / Math.PI, 12); // 0.29516723530086653
  });

  it('zero variance, non-zero mean → t = ±Infinity, p = 0', () => {
    expect(pairedTTest([0.125, 0.5, 0.75], [0.375, 0.75, 1])).toEqual({ meanDiff: 0.25, t: Infinity, df: 2, pValue: 0 });
    expect(pairedTTest([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])).toEqual({ meanDiff: -0.25, t: -Infinity, df: 2, pValue: 0 });
  });

  it('differences equal only up to rounding are not zero variance, but the result is the same in effect', () => {
    const a = [0.1, 0.2, 0.3];
    const r = pairedTTest(a, a.map((x) => x + 0.25)); // 0.35 − 0.1 etc. differ in the last bits
    expect(Number.isFinite(r.t)).toBe(true);
    expect(Math.abs(r.t)).toBeGreaterThan(1e10);
    expect(r.pValue).toBeLessThan(1e-10);
  });

  it('all differences zero → t = NaN, p = 1; a single pair → t = NaN, p = 1', () => {
    expect(pairedTTest([0.3, 0.7], [0.3, 0.7])).toEqual({ meanDiff: 0, t: Number.NaN, df: 1, pValue: 1 });
    expect(pairedTTest([0.3], [0.9])).toEqual({ meanDiff: 0.6000000000000001, t: Number.NaN, df: 0, pValue: 1 });
  });

  it('rejects bad input', () => {
    expect(() => pairedTTest([1, 2], [1])).toThrow(/length/);
    expect(() => pairedTTest([], [])).toThrow(/empty/);
    expect(() => pairedTTest([1, Infinity], [1, 2])).toThrow(/finite/);
  });
});
