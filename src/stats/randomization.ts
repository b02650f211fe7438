/**
 * Two-sided paired randomization (sign-flip permutation) test.
 *
 * Under the null hypothesis "a and b are exchangeable within each pair", every difference
 * d[i] = b[i] − a[i] is equally likely to carry either sign. Each iteration flips the sign of each
 * difference independently with probability 1/2 and records the mean of the flipped differences.
 *
 * Estimator (Monte Carlo, with the +1 correction of Phipson & Smyth 2010, which keeps p > 0 and makes
 * the test valid at any number of iterations N):
 *
 *     p = (#{ j : |mean_j| >= |mean_obs| − 1e-12 } + 1) / (N + 1)
 *
 * The 1e-12 slack (absolute, on the scale of the mean) counts permuted means that equal the observed one
 * up to rounding as "at least as extreme". If every difference is exactly zero, p = 1.
 * As N grows, p tends to the exact p of the full 2^n enumeration.
 *
 * Randomness: xoroshiro128+ (src/stats/rng.ts); each 32-bit output supplies the signs of 32 consecutive
 * differences (bit k of the output → difference 32·w + k; 1 = flipped). The same inputs and seed give
 * the same p, bit for bit; swapping a and b gives the same p too.
 */
import { checkIterations, seededRng } from './rng.js';
import { mean, pairedDifferences } from './paired.js';

export const DEFAULT_ITERATIONS = 10_000;
/** Slack when comparing a permuted mean with the observed one. */
export const TIE_EPSILON = 1e-12;

export interface RandomizationResult {
  /** mean(b − a). */
  meanDiff: number;
  pValue: number;
  iterations: number;
  seed: number;
}

export function pairedRandomizationTest(
  a: readonly number[],
  b: readonly number[],
  o: { iterations?: number; seed: number },
): RandomizationResult {
  const iterations = o.iterations ?? DEFAULT_ITERATIONS;
  checkIterations(iterations);
  const rng = seededRng(o.seed);
  const d = pairedDifferences(a, b);
  const n = d.length;
  const meanDiff = mean(d);
  if (d.every((x) => x === 0)) return { meanDiff, pValue: 1, iterations, seed: o.seed };

  const threshold = Math.abs(meanDiff) - TIE_EPSILON;
  let extreme = 0;
  for (let it = 0; it < iterations; it++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 31) === 0) bits = rng.next();
      const x = d[i]!;
      s += (bits >>> (i & 31)) & 1 ? -x : x;
    }
    if (Math.abs(s / n) >= threshold) extreme++;
  }
  return { meanDiff, pValue: (extreme + 1) / (iterations + 1), iterations, seed: o.seed };
}
