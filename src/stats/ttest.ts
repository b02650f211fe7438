/**
 * Two-sided paired t-test on d[i] = b[i] − a[i] (the same as scipy.stats.ttest_rel(b, a)).
 *
 *     t = mean(d) / (s / √n),  s = sample standard deviation (divisor n − 1),  df = n − 1,
 *     p = 2 · F_t(−|t|; df)    (F_t = Student-t CDF from @stdlib/stats-base-dists-t-cdf)
 *
 * Degenerate cases (defined here, where scipy returns nan/inf with a warning):
 * - every difference is exactly zero: t = NaN, p = 1 (no evidence of any difference);
 * - every difference equals the same non-zero c (zero variance): t = ±Infinity (sign of c), p = 0;
 * - a single pair (df = 0): t = NaN, p = 1 (the variance cannot be estimated).
 * Empty or unequal-length inputs throw a RangeError.
 */
import { createRequire } from 'node:module';
import { mean, pairedDifferences } from './paired.js';

type TCdf = (x: number, v: number) => number;
let cdf: TCdf | undefined;
/** The Student-t CDF, loaded on first use (about 150 modules: a run that computes no t-test does not load them). */
function tCdf(x: number, v: number): number {
  cdf ??= createRequire(import.meta.url)('@stdlib/stats-base-dists-t-cdf') as TCdf;
  return cdf(x, v);
}

export interface TTestResult {
  /** mean(b − a). */
  meanDiff: number;
  t: number;
  df: number;
  pValue: number;
}

export function pairedTTest(a: readonly number[], b: readonly number[]): TTestResult {
  const d = pairedDifferences(a, b);
  const n = d.length;
  const df = n - 1;
  const first = d[0]!;
  if (d.every((x) => x === first)) {
    // Zero variance: the mean is exactly `first` (summing n copies could round differently).
    if (first === 0 || n === 1) return { meanDiff: first, t: Number.NaN, df, pValue: 1 };
    return { meanDiff: first, t: first > 0 ? Infinity : -Infinity, df, pValue: 0 };
  }
  const m = mean(d);
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const e = d[i]! - m;
    ss += e * e;
  }
  const sd = Math.sqrt(ss / df);
  const t = m / (sd / Math.sqrt(n));
  const pValue = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return { meanDiff: m, t, df, pValue };
}
