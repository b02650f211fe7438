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
 *
 * Speed: outputs come in blocks (stream.ts) and each difference is stored as the pair (x, −x), so a
 * sign bit picks an element instead of taking a branch that the CPU cannot predict; the sums are
 * the same additions in the same order as the plain loop.
 */
import { checkIterations } from './rng.js';
import { Int32Stream } from './stream.js';
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
  const d = pairedDifferences(a, b);
  const n = d.length;
  const meanDiff = mean(d);
  if (d.every((x) => x === 0)) return { meanDiff, pValue: 1, iterations, seed: o.seed };

  const signed = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    signed[2 * i] = d[i]!;
    signed[2 * i + 1] = -d[i]!;
  }
  const stream = new Int32Stream(o.seed);
  let block = stream.fill();
  let pos = 0;
  const threshold = Math.abs(meanDiff) - TIE_EPSILON;
  let extreme = 0;
  for (let it = 0; it < iterations; it++) {
    let s = 0;
    for (let w = 0; w < n; w += 32) {
      if (pos === block.length) {
        block = stream.fill();
        pos = 0;
      }
      const bits = block[pos++]!;
      const end = w + 32 < n ? w + 32 : n;
      for (let i = w, k = 0; i < end; i++, k++) s += signed[2 * i + ((bits >>> k) & 1)]!;
    }
    if (Math.abs(s / n) >= threshold) extreme++;
  }
  return { meanDiff, pValue: (extreme + 1) / (iterations + 1), iterations, seed: o.seed };
}
