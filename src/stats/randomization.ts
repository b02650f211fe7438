/**
 * Two-sided paired randomization (sign-flip permutation) test, for one column of paired differences
 * or for many columns at once over the same sign flips.
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
 * up to rounding as "at least as extreme". If every difference of a column is exactly zero, its p = 1.
 * As N grows, p tends to the exact p of the full 2^n enumeration. mean_obs is the left-to-right sum of
 * the differences divided by n.
 *
 * Randomness: xoroshiro128+ (src/stats/rng.ts); each iteration takes the next ⌈n/32⌉ 32-bit outputs
 * and output w supplies the signs of differences 32·w … 32·w + 31 (bit k → difference 32·w + k;
 * 1 = flipped). The same inputs and seed give the same p, bit for bit; swapping a and b gives the
 * same p too (every sum below negates exactly).
 *
 * Order of the additions of a permuted sum (it fixes the bits): the differences are taken in groups
 * of four consecutive ones (g = 0, 1, …; the last group padded with zeros), a group's flipped values
 * summed left to right, P_g = ((±d[4g] ± d[4g+1]) ± d[4g+2]) ± d[4g+3]; the groups go, in order, to
 * four partial sums by g mod 4, and the permuted sum is (A0 + A1) + (A2 + A3), its mean that / n.
 * (The p-values of versions before the shared stream summed left to right; rounding aside the
 * sums are the same, and the 1e-12 slack is far above any rounding difference.)
 *
 * Many columns ({@link randomizationPValues}): every column of one call sees the same sign flips in
 * every iteration (the multi-metric paired design: one stream per comparison, not one per metric),
 * and a column's p depends only on that column, the seed and N, never on the other columns: it is
 * bit for bit the p that {@link pairedRandomizationTest} gives for that column alone with the same
 * seed.
 *
 * Speed: the signs are drawn once per iteration for all columns (in chunks of iterations, so each
 * column's table stays in cache while the chunk is replayed over it); per column, a table holds the
 * 16 possible P_g of each group, so a 4-bit nibble of the sign word picks a whole group sum: n/4
 * lookups and additions per iteration instead of n, with no branch, over four independent partial
 * sums. Where the runtime has WebAssembly SIMD, that replay runs in the kernel of
 * src/stats/randomization-simd.ts (two iterations at a time); elsewhere in {@link countExtreme}
 * below. Both give the same bits.
 */
import { checkIterations, seededState } from './rng.js';
import { Int32Stream } from './stream.js';
import { checkRows, mean, pairedDifferences } from './paired.js';
import { SimdSignTables, signKernelAvailable } from './randomization-simd.js';
import type { Engine } from './wasm-kernel.js';

export const DEFAULT_ITERATIONS = 10_000;
/** Slack when comparing a permuted mean with the observed one. */
export const TIE_EPSILON = 1e-12;
/** About how many sign words one chunk of iterations holds. */
const CHUNK_WORDS = 1 << 15;

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
  const d = pairedDifferences(a, b);
  const pValue = randomizationPValues(d, d.length, { iterations, seed: o.seed })[0]!;
  return { meanDiff: mean(d), pValue, iterations, seed: o.seed };
}

/**
 * The group table of one column: for words w = 0 … ⌈n/32⌉ − 1 and nibbles j = 0 … 7 (group
 * g = 8w + j), entry (8w + j)·16 + m = P_g with the flips given by the bits of m (bit k → difference
 * 4g + k). Differences past n count as zeros. Written into `table` when given (128·⌈n/32⌉ entries).
 */
export function signTable(d: Float64Array, n: number, table: Float64Array = new Float64Array(Math.ceil(n / 32) * 128)): Float64Array {
  const groups = Math.ceil(n / 32) * 8;
  for (let g = 0; g < groups; g++) {
    for (let m = 0; m < 16; m++) {
      let s = 0;
      for (let k = 0; k < 4; k++) {
        const i = 4 * g + k;
        const x = i < n ? d[i]! : 0;
        s += (m >>> k) & 1 ? -x : x;
      }
      table[g * 16 + m] = s;
    }
  }
  return table;
}

/**
 * Two-sided sign-flip p-values of several columns of paired differences under one stream.
 * `diffs` is a rows × n matrix, row-major (row r = the n differences of column r, e.g. one metric);
 * returns one p per row (see the module comment: same flips for every row, each row's p independent
 * of the others). `engine` is for tests ('js': the fallback loop; 'simd' throws where WebAssembly
 * SIMD is unavailable); every engine gives the same bits.
 */
export function randomizationPValues(
  diffs: Float64Array,
  n: number,
  o: { iterations?: number; seed: number },
  engine: Engine = 'auto',
): Float64Array {
  const iterations = o.iterations ?? DEFAULT_ITERATIONS;
  checkIterations(iterations);
  const rows = checkRows(diffs, n, 'randomization test');
  const state = seededState(o.seed); // checks the seed
  const pValues = new Float64Array(rows).fill(1);

  const liveRows: number[] = [];
  for (let r = 0; r < rows; r++) if (!diffs.subarray(r * n, r * n + n).every((x) => x === 0)) liveRows.push(r); // else p = 1
  if (liveRows.length === 0) return pValues;

  const W = Math.ceil(n / 32);
  const chunk = Math.max(1, Math.min(iterations, Math.floor(CHUNK_WORDS / W)));
  const simd = engine === 'simd' || (engine === 'auto' && signKernelAvailable()) ? new SimdSignTables(W, chunk, liveRows.length, state) : null;
  const live = liveRows.map((row, i) => {
    const d = diffs.subarray(row * n, row * n + n);
    return { row, table: signTable(d, n, simd?.table(i)), threshold: Math.abs(mean(d)) - TIE_EPSILON, extreme: 0 };
  });
  if (simd) {
    for (let done = 0; done < iterations; done += chunk) {
      const its = Math.min(chunk, iterations - done);
      simd.draw(its);
      live.forEach((c, i) => (c.extreme += simd.extreme(i, its, c.threshold, n)));
    }
  } else {
    const stream = new Int32Stream(o.seed);
    const words = new Int32Array(chunk * W);
    let block = stream.fill();
    let pos = 0;
    for (let done = 0; done < iterations; done += chunk) {
      const its = Math.min(chunk, iterations - done);
      // The chunk's sign words, in stream order: iteration done + t uses words t·W … t·W + W − 1.
      for (let k = 0; k < its * W; k++) {
        if (pos === block.length) {
          block = stream.fill();
          pos = 0;
        }
        words[k] = block[pos++]!;
      }
      for (const c of live) c.extreme += countExtreme(c.table, words, W, its, n, c.threshold);
    }
  }
  for (const c of live) pValues[c.row] = (c.extreme + 1) / (iterations + 1);
  return pValues;
}

/**
 * Over `its` iterations of sign words: how many permuted means are at least as extreme (exported
 * for the tests, which pin every permuted mean of this loop through its threshold).
 */
export function countExtreme(table: Float64Array, words: Int32Array, W: number, its: number, n: number, threshold: number): number {
  let extreme = 0;
  for (let t = 0; t < its; t++) {
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let w = 0, base = t * W; w < W; w++) {
      const bits = words[base + w]!;
      const o = w << 7;
      a0 += table[o + (bits & 15)]!;
      a1 += table[o + 16 + ((bits >>> 4) & 15)]!;
      a2 += table[o + 32 + ((bits >>> 8) & 15)]!;
      a3 += table[o + 48 + ((bits >>> 12) & 15)]!;
      a0 += table[o + 64 + ((bits >>> 16) & 15)]!;
      a1 += table[o + 80 + ((bits >>> 20) & 15)]!;
      a2 += table[o + 96 + ((bits >>> 24) & 15)]!;
      a3 += table[o + 112 + (bits >>> 28)]!;
    }
    if (Math.abs((a0 + a1 + (a2 + a3)) / n) >= threshold) extreme++;
  }
  return extreme;
}
