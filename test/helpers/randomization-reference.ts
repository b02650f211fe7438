/**
 * The sign-flip randomization test of src/stats/randomization.ts from its module comment, written
 * plainly (one generator call per sign word, one difference at a time, no tables): the reference
 * the nibble-table loop and the SIMD kernel are checked against, bit for bit. (The same definition
 * as referencePermutedMeans in test/stats-simd.test.ts and referencePValue in
 * test/stats-fast-paths.test.ts, here for many columns under one stream.)
 */
import { seededRng } from '../../src/stats/rng.js';
import { mean } from '../../src/stats/paired.js';
import { TIE_EPSILON } from '../../src/stats/randomization.js';

/** The sign words of `iterations` iterations, in stream order: iteration t's ⌈n/32⌉ words from t·W on. */
export function referenceSignWords(seed: number, n: number, iterations: number): Int32Array {
  const rng = seededRng(seed);
  const W = Math.ceil(n / 32);
  const words = new Int32Array(iterations * W);
  for (let k = 0; k < words.length; k++) words[k] = rng.next();
  return words;
}

/**
 * The permuted means of every row of the rows × n matrix `diffs` in iteration order, signed: bit k
 * of word w flips difference 32·w + k; groups of four consecutive differences summed left to right
 * (zeros past n), group g to partial sum g mod 4, the sum (A0 + A1) + (A2 + A3), divided by n.
 */
export function referencePermutedMeansRows(diffs: Float64Array, n: number, seed: number, iterations: number): Float64Array[] {
  const rows = diffs.length / n;
  const W = Math.ceil(n / 32);
  const words = referenceSignWords(seed, n, iterations);
  const means = Array.from({ length: rows }, () => new Float64Array(iterations));
  for (let it = 0; it < iterations; it++) {
    for (let r = 0; r < rows; r++) {
      const acc = [0, 0, 0, 0];
      for (let g = 0; g < 8 * W; g++) {
        let p = 0;
        for (let k = 0; k < 4; k++) {
          const i = 4 * g + k;
          const x = i < n ? diffs[r * n + i]! : 0;
          p += (words[it * W + (i >>> 5)]! >>> (i & 31)) & 1 ? -x : x;
        }
        acc[g % 4] = acc[g % 4]! + p;
      }
      means[r]![it] = (acc[0]! + acc[1]! + (acc[2]! + acc[3]!)) / n;
    }
  }
  return means;
}

/** p = (#{ j : |mean_j| ≥ |mean_obs| − 1e-12 } + 1) / (N + 1) per row; 1 for a row of zeros. */
export function referencePValues(diffs: Float64Array, n: number, seed: number, iterations: number): Float64Array {
  const rows = diffs.length / n;
  const permuted = referencePermutedMeansRows(diffs, n, seed, iterations);
  return Float64Array.from({ length: rows }, (_, r) => {
    const d = diffs.subarray(r * n, r * n + n);
    if (d.every((x) => x === 0)) return 1;
    const threshold = Math.abs(mean(d)) - TIE_EPSILON;
    let extreme = 0;
    for (const m of permuted[r]!) if (Math.abs(m) >= threshold) extreme++;
    return (extreme + 1) / (iterations + 1);
  });
}
