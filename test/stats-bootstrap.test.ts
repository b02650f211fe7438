/**
 * Percentile bootstrap of the mean, its quantile rule and the seeded generator.
 * References (python3, numpy 2.4.6):
 * - quantiles: numpy.quantile(x, q) (default method "linear" = type 7), printed with repr().
 * - exact bootstrap distribution of x = [0, 0.1, 0.3, 1]: all 4^4 = 256 equally likely ordered
 *   resamples enumerated (itertools.product); CDF of the mean: just below 0.05 it is 0.01953125, at 0.05
 *   0.04296875; below 0.775 0.96484375, at 0.775 0.98046875; P(mean <= 0.2) = 0.28125,
 *   P(mean <= 0.4) = 0.67578125. So the 2.5% and 97.5% quantiles are the atoms 0.05 and 0.775, each
 *   with a margin of >= 0.0055 in probability (> 3 SE at 20,000 resamples).
 * - n = 40 differences (b3 − a3 of the t-test data, numpy default_rng(7)): percentile CI from 2,000,000
 *   numpy resamples (default_rng(12345), np.quantile): 95% [0.1032797, 0.1531278525], 90%
 *   [0.10715022125, 0.1490156825]; mean 0.12787235, SE of the mean 0.0127271. Our 10,000-resample CI
 *   must be within 0.002 (~0.15 SE of the mean, ~5 Monte Carlo SE of a 2.5% quantile) of it.
 */
import { describe, expect, it } from 'vitest';
import { bootstrapMeanCI, bootstrapMeans } from '../src/stats/bootstrap.js';
import { quantileSorted } from '../src/stats/quantile.js';
import { deriveSeed, seededRng } from '../src/stats/rng.js';

const a3 = [0.625095, 0.897214, 0.775686, 0.225207, 0.300166, 0.873553, 0.005265, 0.821228, 0.797069, 0.467935, 0.303032, 0.278426, 0.25487, 0.445076, 0.504548, 0.553497, 0.9955, 0.792662, 0.622179, 0.98896, 0.215309, 0.160212, 0.61254, 0.043942, 0.03568, 0.514889, 0.466206, 0.917168, 0.629226, 0.514118, 0.496873, 0.247515, 0.011794, 0.192402, 0.692032, 0.200607, 0.369536, 0.003734, 0.830048, 0.154461];
const b3 = [0.763925, 1.0, 0.932064, 0.252701, 0.45778, 1.0, 0.000551, 1.0, 0.959004, 0.553788, 0.653074, 0.504652, 0.284941, 0.602528, 0.712217, 0.684619, 1.0, 0.93601, 0.838904, 1.0, 0.297743, 0.330526, 0.716209, 0.206669, 0.066961, 0.606959, 0.596586, 1.0, 0.893748, 0.531765, 0.567409, 0.462205, 0.0, 0.296085, 0.832303, 0.476308, 0.588476, 0.121013, 0.94319, 0.279441];
const d3 = b3.map((y, i) => y - a3[i]!);

describe('quantileSorted = numpy.quantile (linear, type 7)', () => {
  const x = Float64Array.from([3.0, -1.0, 2.5, 10.0, 0.0, 7.25, 4.0]).sort();
  it.each([
    [0, -1.0],
    [0.025, -0.85],
    [0.1, -0.3999999999999999],
    [0.5, 3.0],
    [0.9, 8.350000000000001],
    [0.975, 9.587499999999999],
    [1, 10.0],
  ])('q = %s', (q, want) => {
    expect(quantileSorted(x, q)).toBeCloseTo(want, 13);
  });
  it('one value; bad input', () => {
    expect(quantileSorted([4], 0.3)).toBe(4);
    expect(() => quantileSorted([], 0.5)).toThrow(/empty/);
    expect(() => quantileSorted([1, 2], 1.5)).toThrow(/level/);
  });
});

describe('bootstrapMeanCI', () => {
  const x4 = [0, 0.1, 0.3, 1.0];

  it('on a tiny sample it recovers the exact bootstrap distribution (full enumeration)', () => {
    const N = 20_000;
    const means = bootstrapMeans(x4, { seed: 2024, iterations: N });
    const ecdf = (t: number) => means.filter((m) => m <= t + 1e-12).length / N;
    for (const [t, p] of [
      [0.2, 0.28125],
      [0.4, 0.67578125],
      [0.05, 0.04296875],
      [0.775, 0.98046875],
    ] as const) {
      expect(Math.abs(ecdf(t) - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / N));
    }
    const ci = bootstrapMeanCI(x4, { seed: 2024, iterations: N });
    expect(ci.low).toBeCloseTo(0.05, 12);
    expect(ci.high).toBeCloseTo(0.775, 12);
    expect(ci).toMatchObject({ level: 0.95, iterations: N });
  });

  it('n = 40: matches a 2,000,000-resample numpy percentile CI', () => {
    const ci = bootstrapMeanCI(d3, { seed: 1 });
    expect(ci.iterations).toBe(10_000);
    expect(Math.abs(ci.low - 0.1032797)).toBeLessThan(0.002);
    expect(Math.abs(ci.high - 0.1531278525)).toBeLessThan(0.002);
    const ci90 = bootstrapMeanCI(d3, { seed: 1, level: 0.9 });
    expect(Math.abs(ci90.low - 0.10715022125)).toBeLessThan(0.002);
    expect(Math.abs(ci90.high - 0.1490156825)).toBeLessThan(0.002);
    // same seed → same resamples, so the 90% interval sits inside the 95% one
    expect(ci90.low).toBeGreaterThanOrEqual(ci.low);
    expect(ci90.high).toBeLessThanOrEqual(ci.high);
  });

  it('is deterministic for a seed and depends on it', () => {
    const r1 = bootstrapMeanCI(d3, { seed: 5, iterations: 2000 });
    expect(bootstrapMeanCI(d3, { seed: 5, iterations: 2000 })).toEqual(r1);
    expect(bootstrapMeanCI(d3, { seed: 6, iterations: 2000 })).not.toEqual(r1);
  });

  it('constant differences give a zero-width interval at their value', () => {
    const ci = bootstrapMeanCI([0.25, 0.25, 0.25], { seed: 3, iterations: 500 });
    expect(ci).toEqual({ low: 0.25, high: 0.25, level: 0.95, iterations: 500 });
  });

  it('bootstrap means are sorted and lie within [min, max] of the sample', () => {
    const m = bootstrapMeans(x4, { seed: 8, iterations: 1000 });
    expect(m.length).toBe(1000);
    for (let i = 1; i < m.length; i++) expect(m[i]!).toBeGreaterThanOrEqual(m[i - 1]!);
    expect(m[0]!).toBeGreaterThanOrEqual(0);
    expect(m[999]!).toBeLessThanOrEqual(1);
  });

  it('rejects bad input', () => {
    expect(() => bootstrapMeanCI([], { seed: 1 })).toThrow(/empty/);
    expect(() => bootstrapMeanCI([1, Number.NaN], { seed: 1 })).toThrow(/finite/);
    expect(() => bootstrapMeanCI([1], { seed: 1, level: 1 })).toThrow(/level/);
    expect(() => bootstrapMeanCI([1], { seed: 1, iterations: 2.5 })).toThrow(/iterations/);
    expect(() => bootstrapMeanCI([1], { seed: -3 })).toThrow(/seed/);
  });
});

describe('rng', () => {
  it('seededRng is reproducible and seeds give different streams', () => {
    const draw = (s: number) => {
      const r = seededRng(s);
      return [r.next(), r.next(), r.next()];
    };
    expect(draw(0)).toEqual(draw(0));
    expect(draw(0)).not.toEqual(draw(1));
    expect(draw(2 ** 32)).not.toEqual(draw(0)); // no 32-bit truncation of the seed
    expect(() => seededRng(Number.MAX_SAFE_INTEGER)).not.toThrow();
  });
  it('deriveSeed is deterministic, label-specific and a safe integer', () => {
    const s = deriveSeed(42, 'randomization:NDCG@10');
    expect(deriveSeed(42, 'randomization:NDCG@10')).toBe(s);
    expect(deriveSeed(42, 'bootstrap:NDCG@10')).not.toBe(s);
    expect(deriveSeed(43, 'randomization:NDCG@10')).not.toBe(s);
    expect(Number.isSafeInteger(s) && s >= 0 && s < 2 ** 48).toBe(true);
  });
});
