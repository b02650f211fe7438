/**
 * Percentile bootstrap confidence interval of a mean (Efron's percentile method), for one column of
 * values or for many columns at once over the same resamples.
 *
 * Each of B iterations draws n query indices uniformly with replacement; with c_q the number of
 * times query q was drawn, the resample's mean is S / n with S = Σ_q c_q·x_q. The interval is the
 * (1 − level)/2 and (1 + level)/2 quantiles of the B means, read with linear interpolation between
 * order statistics (src/stats/quantile.ts: type 7, as numpy.quantile's default). For level 0.95 and
 * B = 10,000 that is the 0.025 and 0.975 quantiles.
 *
 * Order of the additions (it fixes the bits): the terms c_q·x_q go, in query order, to four partial
 * sums by q mod 4, and S = (A0 + A1) + (A2 + A3). Terms with x_q = 0 or c_q = 0 change no partial
 * sum (they are ±0, and a partial sum, starting at +0, is never −0), so a loop may skip them or
 * add them: the same bits. (Versions before the shared stream drew one index per output with
 * pure-rand's rule at every n and summed x[index] in draw order: seeded CIs changed once.)
 *
 * Randomness: xoroshiro128+ (src/stats/rng.ts) outputs, in order, n accepted draws per iteration,
 * the iterations one after the other; every draw's index is unbiased:
 * - n < 2^15 (Lemire's multiply-and-reject): each 32-bit output gives two 16-bit numbers u, its
 *   high half first; with u·n = ⌊u·n / 2^16⌋·2^16 + l, u is rejected when l < 2^16 mod n, else the
 *   index is ⌊u·n / 2^16⌋;
 * - larger n: as pure-rand's `uniformInt(rng, 0, n - 1)` draws it from one output (rejection of
 *   outputs ≥ ⌊2^32 / n⌋·n, then modulo n).
 * Same inputs and seed → the same interval, bit for bit.
 *
 * Many columns ({@link bootstrapMeansRows}): the indices of an iteration are drawn once and every
 * column is resampled at those same queries (the paired multi-metric design: one stream per
 * comparison, not one per metric). A column's means depend only on that column, the seed and B,
 * never on the other columns: bit for bit what {@link bootstrapMeans} gives for it alone with the
 * same seed.
 *
 * Speed: where the runtime has WebAssembly SIMD, the draws and the sums run in the kernel of
 * src/stats/bootstrap-simd.ts (dense dot products, two queries per instruction, up to four columns
 * per pass over the counts); elsewhere the JavaScript loops below (the sums over each column's
 * non-zero terms only). Both give the same bits.
 */
import { checkIterations, seededState } from './rng.js';
import { simdAvailable, simdResampledMeans } from './bootstrap-simd.js';
import { Int32Stream } from './stream.js';
import { quantileSorted } from './quantile.js';
import { checkRows } from './paired.js';
import type { Engine } from './wasm-kernel.js';

export const DEFAULT_BOOTSTRAP_ITERATIONS = 10_000;
export const DEFAULT_LEVEL = 0.95;

export interface BootstrapCI {
  low: number;
  high: number;
  level: number;
  iterations: number;
}

/**
 * The `iterations` bootstrap means of `diffs`, sorted ascending (the distribution the CI is read
 * from). Throws a RangeError on an empty sample, a non-finite value or a bad option.
 */
export function bootstrapMeans(diffs: readonly number[], o: { iterations?: number; seed: number }): Float64Array {
  if (diffs.length === 0) throw new RangeError('bootstrap of an empty sample');
  return bootstrapMeansRows(Float64Array.from(diffs), diffs.length, o)[0]!;
}

/**
 * The bootstrap means of every row of the rows × n matrix `values` (row-major), each sorted
 * ascending, all rows resampled at the same indices (see the module comment).
 */
export function bootstrapMeansRows(values: Float64Array, n: number, o: { iterations?: number; seed: number }): Float64Array[] {
  const means = resampledMeans(values, n, o);
  for (const m of means) m.sort();
  return means;
}

/**
 * The bootstrap means of every row of the rows × n matrix `values`, in iteration order (unsorted):
 * what {@link bootstrapMeansRows} sorts. `engine` is for tests ('js': the fallback loops; 'simd'
 * throws where WebAssembly SIMD is unavailable); every engine gives the same bits.
 */
export function resampledMeans(
  values: Float64Array,
  n: number,
  o: { iterations?: number; seed: number },
  engine: Engine = 'auto',
): Float64Array[] {
  const iterations = o.iterations ?? DEFAULT_BOOTSTRAP_ITERATIONS;
  checkIterations(iterations);
  if (values.length === 0) throw new RangeError('bootstrap of an empty sample');
  const rows = checkRows(values, n, 'bootstrap');
  const state = seededState(o.seed); // checks the seed
  if (engine === 'simd' || (engine === 'auto' && simdAvailable())) return simdResampledMeans(values, n, state, iterations);
  const stream = new Int32Stream(o.seed);
  const means = Array.from({ length: rows }, () => new Float64Array(iterations));
  const terms = Array.from({ length: rows }, (_, r) => nonZeroTerms(values.subarray(r * n, r * n + n)));

  const counts = new Int32Array(n);
  const iteration = (it: number): void => {
    for (let r = 0; r < rows; r++) {
      const t = terms[r]!;
      means[r]![it] = weightedSum(counts, t.index, t.value) / n;
    }
    counts.fill(0);
  };
  if (n < SMALL) drawSmall(stream, n, iterations, counts, iteration);
  else drawLarge(stream, n, iterations, counts, iteration);
  return means;
}

/** Below this many queries an index takes 16 bits of an output (u·n stays below 2^31). */
const SMALL = 1 << 15;

/**
 * Draws the indices of `iterations` iterations (n < 2^15: two 16-bit numbers per output, see the
 * module comment), counting them in `counts`; calls `done(it)` after each iteration's n draws.
 */
function drawSmall(stream: Int32Stream, n: number, iterations: number, counts: Int32Array, done: (it: number) => void): void {
  const reject = 65536 % n;
  let it = 0;
  let i = 0;
  for (;;) {
    const block = stream.fill();
    for (let p = 0; p < block.length; p++) {
      const out = block[p]!;
      let m = (out >>> 16) * n;
      if ((m & 0xffff) >= reject) {
        counts[m >>> 16]!++;
        if (++i === n) {
          done(it);
          i = 0;
          if (++it === iterations) return;
        }
      }
      m = (out & 0xffff) * n;
      if ((m & 0xffff) >= reject) {
        counts[m >>> 16]!++;
        if (++i === n) {
          done(it);
          i = 0;
          if (++it === iterations) return;
        }
      }
    }
  }
}

/** As drawSmall for n ≥ 2^15: one index per accepted output, pure-rand's uniformInt rule. */
function drawLarge(stream: Int32Stream, n: number, iterations: number, counts: Int32Array, done: (it: number) => void): void {
  // pure-rand's uniformIntInternal(rng, n): accept v = out + 2^31 below maxAllowed, index v mod n
  // (computed with the reciprocal, then corrected: the same integer as v − floor(v / n)·n).
  const maxAllowed = Math.floor(4294967296 / n) * n;
  const inv = 1 / n;
  let it = 0;
  let i = 0;
  for (;;) {
    const block = stream.fill();
    for (let p = 0; p < block.length; p++) {
      const v = block[p]! + 2147483648;
      if (v >= maxAllowed) continue;
      let q = v - Math.floor(v * inv) * n;
      if (q >= n) q -= n;
      else if (q < 0) q += n;
      counts[q]!++;
      if (++i === n) {
        done(it);
        i = 0;
        if (++it === iterations) return;
      }
    }
  }
}

/**
 * A column's non-zero values as four interleaved lists by query index mod 4 (entry 4k + j = the k-th
 * non-zero value of a query q ≡ j mod 4, in query order), padded to equal length with (query 0,
 * value 0), which adds nothing.
 */
function nonZeroTerms(x: Float64Array): { index: Int32Array; value: Float64Array } {
  const lists: number[][] = [[], [], [], []];
  for (let q = 0; q < x.length; q++) if (x[q] !== 0) lists[q & 3]!.push(q);
  const len = Math.max(...lists.map((l) => l.length));
  const index = new Int32Array(4 * len);
  const value = new Float64Array(4 * len);
  lists.forEach((l, j) =>
    l.forEach((q, k) => {
      index[4 * k + j] = q;
      value[4 * k + j] = x[q]!;
    }),
  );
  return { index, value };
}

/** S = (A0 + A1) + (A2 + A3), A_j = Σ counts[q]·x_q over the queries q ≡ j mod 4 (see nonZeroTerms). */
function weightedSum(counts: Int32Array, index: Int32Array, value: Float64Array): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  for (let k = 0; k < index.length; k += 4) {
    a0 += counts[index[k]!]! * value[k]!;
    a1 += counts[index[k + 1]!]! * value[k + 1]!;
    a2 += counts[index[k + 2]!]! * value[k + 2]!;
    a3 += counts[index[k + 3]!]! * value[k + 3]!;
  }
  return a0 + a1 + (a2 + a3);
}

/** The percentile interval at `level` of sorted bootstrap means. */
function percentileCI(means: Float64Array, level: number): BootstrapCI {
  const alpha = 1 - level;
  return { low: quantileSorted(means, alpha / 2), high: quantileSorted(means, 1 - alpha / 2), level, iterations: means.length };
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
}

export function bootstrapMeanCI(
  diffs: readonly number[],
  o: { iterations?: number; seed: number; level?: number },
): BootstrapCI {
  const level = o.level ?? DEFAULT_LEVEL;
  checkLevel(level);
  return percentileCI(bootstrapMeans(diffs, o), level);
}

/** The percentile CI of the mean of every row of the rows × n matrix `values`, same resamples for all. */
export function bootstrapMeanCIs(
  values: Float64Array,
  n: number,
  o: { iterations?: number; seed: number; level?: number },
): BootstrapCI[] {
  const level = o.level ?? DEFAULT_LEVEL;
  checkLevel(level);
  return bootstrapMeansRows(values, n, o).map((m) => percentileCI(m, level));
}
