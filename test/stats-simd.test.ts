/**
 * The WebAssembly SIMD kernels of src/stats give, bit for bit, what the JavaScript loops they replace
 * give (the fallback where WebAssembly SIMD is unavailable), and both are the plain definition of
 * the module comments: for the bootstrap, the dense sum over every query (zero terms included), which
 * is the sparse loop's sum over the non-zero terms only; for the randomization test, every permuted
 * mean (pinned through the kernel's count of means at least as extreme as a threshold set to each
 * reference mean and to the next float above it). Checked on many seeded inputs with zeros, −0,
 * negative values, values of every magnitude, and every column chunking of the kernels.
 */
import { describe, expect, it } from 'vitest';
import { resampledMeans } from '../src/stats/bootstrap.js';
import { simdAvailable } from '../src/stats/bootstrap-simd.js';
import { randomizationPValues, signTable } from '../src/stats/randomization.js';
import { SimdSignTables, signKernelAvailable } from '../src/stats/randomization-simd.js';
import { seededRng, seededState } from '../src/stats/rng.js';
import { referenceMeansRows } from './helpers/bootstrap-reference.js';

/** A rows × n matrix of seeded values: zeros and −0 among them, row r of its own kind. */
function matrix(rows: number, n: number, seed: number): Float64Array {
  const rng = seededRng(seed);
  const u = () => (rng.next() >>> 0) / 2 ** 32;
  const v = new Float64Array(rows * n);
  for (let r = 0; r < rows; r++) {
    const zeros = [0, 0.3, 0.6, 0.95][r % 4]!;
    for (let q = 0; q < n; q++) {
      const x = u();
      let y: number;
      if (x < zeros) y = u() < 0.5 ? 0 : -0;
      else if (r % 3 === 0) y = Math.round(u() * 20) / 20 - Math.round(u() * 20) / 20; // metric-like differences
      else if (r % 3 === 1) y = (u() - 0.5) * 2 ** Math.floor(u() * 200 - 100); // every magnitude, both signs
      else y = u() < 0.5 ? -1 : 1;
      v[r * n + q] = y;
    }
  }
  return v;
}

const same = (x: Float64Array[], y: Float64Array[]) =>
  x.length === y.length && x.every((m, r) => m.length === y[r]!.length && m.every((v, i) => Object.is(v, y[r]![i])));

describe('bootstrap: SIMD kernel = JavaScript loops = the definition', () => {
  it('WebAssembly SIMD is available on this runtime (Node >= 20)', () => {
    expect(simdAvailable()).toBe(true);
  });

  it.each([
    [1, 1, 300],
    [2, 3, 300],
    [3, 2, 300],
    [4, 5, 300],
    [5, 9, 200],
    [7, 4, 200],
    [8, 8, 200],
    [31, 13, 100],
    [257, 6, 1100], // past one run of the kernel's means buffer
    [1000, 7, 40],
    [4392, 9, 12],
    [32_767, 1, 3], // the last n with 16-bit draws
    [32_768, 2, 3], // one output per draw; ⌊2^32 / n⌋·n = 2^32 (no output rejected)
    [40_000, 3, 3],
  ])('n = %i, %i rows, %i iterations', (n, rows, iterations) => {
    for (const seed of [0, 77]) {
      const v = matrix(rows, n, 1000 * n + rows + seed);
      const want = referenceMeansRows(v, n, seed, iterations);
      const js = resampledMeans(v, n, { seed, iterations }, 'js');
      const simd = resampledMeans(v, n, { seed, iterations }, 'simd');
      expect(same(js, want)).toBe(true);
      expect(same(simd, want)).toBe(true);
    }
  });

  it('huge values: overflowing products give the same infinities and NaNs', () => {
    const n = 50;
    const v = Float64Array.from({ length: 2 * n }, (_, i) => (i % 3 === 0 ? 0 : i % 2 ? 1.5e308 : -1.7e308));
    const iterations = 200;
    const want = referenceMeansRows(v, n, 5, iterations);
    expect(same(resampledMeans(v, n, { seed: 5, iterations }, 'js'), want)).toBe(true);
    expect(same(resampledMeans(v, n, { seed: 5, iterations }, 'simd'), want)).toBe(true);
    expect(want.flatMap((m) => [...m]).some((x) => !Number.isFinite(x))).toBe(true);
  });

  it('the engine picked by default is the kernel, and both check their input alike', () => {
    const v = matrix(3, 100, 9);
    expect(same(resampledMeans(v, 100, { seed: 4, iterations: 50 }), resampledMeans(v, 100, { seed: 4, iterations: 50 }, 'simd'))).toBe(true);
    for (const engine of ['js', 'simd'] as const) {
      expect(() => resampledMeans(new Float64Array(0), 1, { seed: 1 }, engine)).toThrow(/empty/);
      expect(() => resampledMeans(v, 100, { seed: -1 }, engine)).toThrow(/seed/);
      expect(() => resampledMeans(v, 100, { seed: 1, iterations: 0 }, engine)).toThrow(/iterations/);
    }
  });
});

/** The permuted means of the sign-flip test in iteration order, from the definition (randomization.ts). */
function referencePermutedMeans(d: Float64Array, seed: number, iterations: number): number[] {
  const rng = seededRng(seed);
  const n = d.length;
  const W = Math.ceil(n / 32);
  const out: number[] = [];
  for (let it = 0; it < iterations; it++) {
    const words = Array.from({ length: W }, () => rng.next());
    const acc = [0, 0, 0, 0];
    for (let g = 0; g < 8 * W; g++) {
      let p = 0;
      for (let k = 0; k < 4; k++) {
        const i = 4 * g + k;
        const x = i < n ? d[i]! : 0;
        p += (words[i >>> 5]! >>> (i & 31)) & 1 ? -x : x;
      }
      acc[g % 4] = acc[g % 4]! + p;
    }
    out.push((acc[0]! + acc[1]! + (acc[2]! + acc[3]!)) / n);
  }
  return out;
}

/** The next float64 above x ≥ 0. */
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  const b = new BigUint64Array(Float64Array.of(x).buffer);
  b[0]! += 1n;
  return new Float64Array(b.buffer)[0]!;
}

describe('randomization: SIMD kernel = JavaScript loop = the definition', () => {
  it('WebAssembly SIMD is available on this runtime (Node >= 20)', () => {
    expect(signKernelAvailable()).toBe(true);
  });

  it.each([
    [1, 7],
    [3, 8],
    [31, 5],
    [32, 6],
    [33, 9],
    [100, 7],
    [257, 4],
  ])('every permuted mean, bit for bit (n = %i, %i iterations in one chunk)', (n, iterations) => {
    const v = matrix(4, n, 31 * n + iterations);
    for (let r = 0; r < 4; r++) {
      const d = v.subarray(r * n, r * n + n);
      const want = referencePermutedMeans(d, 3 + r, iterations).map(Math.abs);
      const W = Math.ceil(n / 32);
      const kernel = new SimdSignTables(W, iterations, 1, seededState(3 + r));
      signTable(d, n, kernel.table(0));
      kernel.draw(iterations);
      for (const m of want) {
        expect(kernel.extreme(0, iterations, m, n)).toBe(want.filter((x) => x >= m).length);
        expect(kernel.extreme(0, iterations, nextUp(m), n)).toBe(want.filter((x) => x > m).length);
      }
    }
  });

  it.each([
    [1, 1, 3],
    [2, 3, 2],
    [31, 4, 1001],
    [32, 2, 999],
    [33, 5, 1000],
    [65, 9, 777],
    [1000, 3, 500],
    [4392, 9, 301], // two chunks of 237 iterations
  ])('the p-values (n = %i, %i rows, %i iterations)', (n, rows, iterations) => {
    for (const seed of [0, 12]) {
      const v = matrix(rows, n, 7 * n + rows + seed);
      if (rows > 2) v.fill(0, n, 2 * n); // a column of zeros: p = 1
      const js = randomizationPValues(v, n, { seed, iterations }, 'js');
      const simd = randomizationPValues(v, n, { seed, iterations }, 'simd');
      expect([...simd]).toEqual([...js]);
      expect([...randomizationPValues(v, n, { seed, iterations })]).toEqual([...js]);
    }
  });

  it('many chunks: n = 40, 40,000 iterations (16,384 a chunk)', () => {
    const v = matrix(3, 40, 5);
    const js = randomizationPValues(v, 40, { seed: 6, iterations: 40_000 }, 'js');
    expect([...randomizationPValues(v, 40, { seed: 6, iterations: 40_000 }, 'simd')]).toEqual([...js]);
  });
});
