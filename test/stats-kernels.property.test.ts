/**
 * The statistics fast paths against their plain definitions, bit for bit, at every capacity they have.
 *
 * Bootstrap (src/stats/bootstrap.ts, the WebAssembly SIMD kernel of src/stats/bootstrap-simd.ts and
 * the JavaScript fallback loops) against test/helpers/bootstrap-reference.ts (one draw at a time from
 * pure-rand's generator, Lemire's rule on 16-bit halves below 2^15 queries, pure-rand's uniformInt
 * from there on, dense four-way sums). Every iteration's mean of every column is compared by its
 * float64 bits, and so are the percentile CIs. Capacities crossed:
 * - query counts n = 1 … 10 and every 2^k ± 2 up to 2^14 (the counts are padded to a multiple of 8
 *   and summed two groups of four queries at a time; the kernel's 16-bit draws run in blocks of four
 *   outputs while at least eight draws are missing, i.e. never below n = 8, then one output, then
 *   one half; an output's low half is carried over into the next iteration), and 2^15 ± 2 (all
 *   five in every run: at n = 2^15 the draws switch to one 32-bit output each, and ⌊2^32 / n⌋·n =
 *   2^32 rejects nothing there) and 2^16 ± 2;
 * - iteration counts 1, 2, 3, 5, 7, 8, 9 and 1024 ± 1, 2048 ± 1 (the kernel copies out the means of
 *   1024 iterations at a time), the JavaScript stream's blocks of 8192 outputs crossed inside an
 *   iteration for n ≳ 2^13 and between iterations below;
 * - 1 … 9 columns (the kernel sums chunks of up to four: 5 = 3 + 2, 9 = 3 + 3 + 3);
 * - values: ±0 (the sparse JavaScript loop skips them, the dense kernel adds them), exact ties
 *   (values repeated from a small palette), metric-like differences, every binary exponent
 *   (subnormals to 2^1023, products and sums that overflow to ±Infinity and NaN).
 *
 * Randomization test (src/stats/randomization.ts's countExtreme and the kernel of
 * src/stats/randomization-simd.ts) against test/helpers/randomization-reference.ts (one generator
 * call per sign word, each difference flipped by its own bit, no tables). Every permuted mean is
 * pinned: over the first t iterations of a chunk, the count of means ≥ m_t minus the count over the
 * first t − 1 must be 1, at the next float above m_t 0, at −∞ 1 (0 when m_t is NaN), m_t = |the
 * reference's mean of iteration t|; with t odd the kernel replays its last iteration in both f64x2
 * lanes, with t even it pairs the iterations differently, so each mean is checked under both
 * pairings. The p-values of the three (kernel, JavaScript loop, definition) must be the same float.
 * Capacities crossed: n = 1 … 9 and every 2^k ± 2 up to 2^13, and 96 ± 2 (sign words of 32
 * differences, nibbles of 4, partial sums of 8 groups per word); chunks of 1 … 17 iterations,
 * odd and even, several per generator (the kernel's state carried from one chunk to the next), and
 * end to end the iteration counts 1, 2, 3 and c − 1, c, c + 1, 2c + 1 with c = ⌊2^15 / ⌈n/32⌉⌋ the
 * iterations of one chunk; columns of zeros (p = 1) among live ones.
 *
 * NaN is compared as NaN (WebAssembly leaves the sign of a NaN it produces unspecified); every other
 * float by its 64 bits.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { bootstrapMeanCIs, resampledMeans } from '../src/stats/bootstrap.js';
import { simdAvailable } from '../src/stats/bootstrap-simd.js';
import { quantileSorted } from '../src/stats/quantile.js';
import { countExtreme, randomizationPValues, signTable } from '../src/stats/randomization.js';
import { SimdSignTables, signKernelAvailable } from '../src/stats/randomization-simd.js';
import { seededState } from '../src/stats/rng.js';
import { referenceMeansRows } from './helpers/bootstrap-reference.js';
import { referencePermutedMeansRows, referencePValues, referenceSignWords } from './helpers/randomization-reference.js';

const around = (p: number) => [p - 2, p - 1, p, p + 1, p + 2];
/** Every 2^k ± 2 for lo ≤ k ≤ hi. */
const pow2 = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => around(2 ** (lo + i))).flat();
const SMALL_N = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

// ---------------------------------------------------------------------------------------------
// Values

/** A column: values repeated from a small palette (exact ties), ±0 at rate `zeros`, placed by `mix`. */
interface Column {
  palette: number[];
  zeros: number;
  mix: number;
}

const valueArb = fc.oneof(
  { arbitrary: fc.constantFrom(0, -0, 1, -1, 0.5, -0.25, 0.1, -0.1), weight: 6 },
  { arbitrary: fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 })).map(([a, b]) => a / 20 - b / 20), weight: 6 }, // metric differences
  {
    arbitrary: fc.tuple(fc.double({ min: 0.5, max: 1, noNaN: true }), fc.integer({ min: -1074, max: 1023 }), fc.boolean()).map(
      ([m, e, neg]) => (neg ? -1 : 1) * m * 2 ** e, // every binary exponent, subnormals to 2^1023
    ),
    weight: 6,
  },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 3 },
  { arbitrary: fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, 1.5e308, -1.7e308), weight: 1 }, // sums overflow: ±Infinity, NaN
);

const columnArb: fc.Arbitrary<Column> = fc.record({
  palette: fc.array(valueArb, { minLength: 1, maxLength: 10 }),
  zeros: fc.constantFrom(0, 0, 0.3, 0.9, 1),
  mix: fc.integer(),
});

/** The n values of a column (deterministic in the recipe, so that big n cost fast-check nothing). */
function expand(c: Column, n: number, out: Float64Array, at: number): void {
  for (let q = 0; q < n; q++) {
    let h = Math.imul(q + 1, 0x9e3779b1) ^ c.mix;
    h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    const u = (h >>> 0) / 2 ** 32;
    out[at + q] = u < c.zeros ? (h & 1 ? -0 : 0) : c.palette[(h >>> 8) % c.palette.length]!;
  }
}

function matrix(cols: readonly Column[], n: number): Float64Array {
  const v = new Float64Array(cols.length * n);
  cols.forEach((c, r) => expand(c, n, v, r * n));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Float comparison by bits

const f64 = new DataView(new ArrayBuffer(8));
function bits(x: number): bigint {
  f64.setFloat64(0, x);
  return f64.getBigUint64(0);
}
/** Same float64: both NaN, or the same 64 bits (so +0 ≠ −0). */
const sameFloat = (x: number, y: number) => (Number.isNaN(x) && Number.isNaN(y)) || bits(x) === bits(y);

/** The first difference of two lists of rows, or null. */
function firstMismatch(got: readonly ArrayLike<number>[], want: readonly ArrayLike<number>[]): string | null {
  if (got.length !== want.length) return `${got.length} rows, want ${want.length}`;
  for (let r = 0; r < want.length; r++) {
    if (got[r]!.length !== want[r]!.length) return `row ${r}: length ${got[r]!.length}, want ${want[r]!.length}`;
    for (let i = 0; i < want[r]!.length; i++) {
      if (!sameFloat(got[r]![i]!, want[r]![i]!)) return `row ${r}, entry ${i}: ${got[r]![i]}, want ${want[r]![i]}`;
    }
  }
  return null;
}

/** The next float64 above x (x ≥ 0, finite). */
function nextUp(x: number): number {
  return x === 0 ? Number.MIN_VALUE : (f64.setBigUint64(0, bits(x) + 1n), f64.getFloat64(0));
}

// ---------------------------------------------------------------------------------------------
// Bootstrap

const LEVELS = [0.95, 0.9, 0.5, 0.99, 0.8];

/** Kernel and JavaScript loops = the definition, means and CIs, for the rows of `cols` over n queries. */
function checkBootstrap(cols: readonly Column[], n: number, seed: number, iterations: number, level: number): void {
  const v = matrix(cols, n);
  const want = referenceMeansRows(v, n, seed, iterations);
  expect(firstMismatch(resampledMeans(v, n, { seed, iterations }, 'simd'), want), `kernel, n = ${n}`).toBeNull();
  expect(firstMismatch(resampledMeans(v, n, { seed, iterations }, 'js'), want), `JavaScript loops, n = ${n}`).toBeNull();
  // The percentile CIs (the default engine, sorted means) = those of the definition's means.
  const alpha = 1 - level;
  const wantCI = want.map((m) => {
    const s = Float64Array.from(m).sort();
    return [quantileSorted(s, alpha / 2), quantileSorted(s, 1 - alpha / 2)];
  });
  const gotCI = bootstrapMeanCIs(v, n, { seed, iterations, level }).map((ci) => [ci.low, ci.high]);
  expect(firstMismatch(gotCI, wantCI), `CIs, n = ${n}`).toBeNull();
}

const seedArb = fc.maxSafeNat();

describe('bootstrap: SIMD kernel = JavaScript loops = plain definition, bit for bit', () => {
  it('WebAssembly SIMD is available here (else the kernel half of these properties would be vacuous)', () => {
    expect(simdAvailable()).toBe(true);
  });

  test.prop(
    [
      fc.constantFrom(...SMALL_N, ...pow2(4, 6)),
      fc.constantFrom(1, 2, 3, 5, 7, 8, 9, 1023, 1024, 1025, 2047, 2049),
      fc.array(columnArb, { minLength: 1, maxLength: 9 }),
      seedArb,
      fc.constantFrom(...LEVELS),
    ],
    { numRuns: 100 },
  )('n = 1 … 10 and 2^k ± 2 up to 66, iterations across the 1024 means of a kernel run, 1 … 9 columns', (n, iterations, cols, seed, level) => {
    checkBootstrap(cols, n, seed, iterations, level);
  });

  test.prop(
    [fc.constantFrom(...pow2(7, 14)), fc.constantFrom(1, 2, 3, 5, 7, 9), fc.array(columnArb, { minLength: 1, maxLength: 5 }), seedArb, fc.constantFrom(...LEVELS)],
    { numRuns: 60 },
  )('n = 2^k ± 2 from 126 to 16,386 (draw blocks, padding to 8, stream blocks inside an iteration)', (n, iterations, cols, seed, level) => {
    checkBootstrap(cols, n, seed, iterations, level);
  });

  test.prop(
    [fc.constantFrom(...around(2 ** 16)), fc.constantFrom(1, 2, 3), fc.array(columnArb, { minLength: 1, maxLength: 2 }), seedArb],
    { numRuns: 5 },
  )('n = 2^15 ± 2 (every one of them in every run) and 2^16 ± 2: the switch from 16-bit halves to whole outputs', (n16, iterations, cols, seed) => {
    for (const n of around(2 ** 15)) checkBootstrap(cols, n, seed, iterations, 0.95);
    checkBootstrap(cols, n16, seed, iterations, 0.95);
  });
});

// ---------------------------------------------------------------------------------------------
// Randomization test

const RAND_N = [...SMALL_N, ...pow2(4, 13), ...around(96)];

describe('randomization: SIMD kernel = JavaScript loop = plain definition, bit for bit', () => {
  it('WebAssembly SIMD is available here (else the kernel half of these properties would be vacuous)', () => {
    expect(signKernelAvailable()).toBe(true);
  });

  test.prop(
    [
      fc.constantFrom(...RAND_N),
      fc.array(fc.constantFrom(1, 2, 3, 4, 5, 7, 8, 9, 16, 17), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 2 }),
      fc.array(columnArb, { minLength: 1, maxLength: 3 }),
      seedArb,
    ],
    { numRuns: 120 },
  )('every permuted mean, chunk after chunk, under both lane pairings', (n, chunks, spare, cols, seed) => {
    const v = matrix(cols, n);
    const W = Math.ceil(n / 32);
    const total = chunks.reduce((a, b) => a + b, 0);
    const want = referencePermutedMeansRows(v, n, seed, total);
    const words = referenceSignWords(seed, n, total);
    const kernel = new SimdSignTables(W, Math.max(...chunks) + spare, cols.length, seededState(seed));
    const tables = cols.map((_, c) => signTable(v.subarray(c * n, c * n + n), n, kernel.table(c)));
    let done = 0;
    for (const its of chunks) {
      kernel.draw(its);
      const chunkWords = words.subarray(done * W, (done + its) * W);
      const engines = {
        simd: (c: number, t: number, thr: number) => (t === 0 ? 0 : kernel.extreme(c, t, thr, n)),
        js: (c: number, t: number, thr: number) => countExtreme(tables[c]!, chunkWords, W, t, n, thr),
      };
      for (const [name, count] of Object.entries(engines)) {
        for (let c = 0; c < cols.length; c++) {
          for (let t = 1; t <= its; t++) {
            const m = Math.abs(want[c]![done + t - 1]!);
            const at = (thr: number) => count(c, t, thr) - count(c, t - 1, thr);
            const where = `${name}, column ${c}, iteration ${done + t - 1} (t = ${t} of a chunk of ${its}), reference |mean| ${m}`;
            expect(at(-Infinity), where).toBe(Number.isNaN(m) ? 0 : 1);
            if (Number.isNaN(m)) continue;
            expect(at(m), where).toBe(1);
            if (m !== Infinity) expect(at(nextUp(m)), where).toBe(0);
          }
        }
      }
      done += its;
    }
  });

  test.prop(
    [
      fc.constantFrom(...RAND_N),
      fc.constantFrom('1', '2', '3', 'c-1', 'c', 'c+1', '2c+1'),
      fc.array(columnArb, { minLength: 1, maxLength: 3 }),
      seedArb,
    ],
    { numRuns: 60 },
  )('p-values across the chunks of iterations (c = ⌊2^15 / ⌈n/32⌉⌋ a chunk)', (n, kind, cols, seed) => {
    const c = Math.floor(2 ** 15 / Math.ceil(n / 32));
    const iterations = { '1': 1, '2': 2, '3': 3, 'c-1': c - 1, c, 'c+1': c + 1, '2c+1': 2 * c + 1 }[kind]!;
    const v = matrix(cols, n);
    const want = [referencePValues(v, n, seed, iterations)];
    expect(firstMismatch([randomizationPValues(v, n, { seed, iterations }, 'simd')], want), `kernel, ${iterations} iterations`).toBeNull();
    expect(firstMismatch([randomizationPValues(v, n, { seed, iterations }, 'js')], want), `JavaScript loop, ${iterations} iterations`).toBeNull();
    expect(firstMismatch([randomizationPValues(v, n, { seed, iterations })], want), `default engine, ${iterations} iterations`).toBeNull();
  });
});
