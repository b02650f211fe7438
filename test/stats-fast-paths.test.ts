/**
 * The block-stream versions of the randomization test and the bootstrap (stream.ts) give bit for bit
 * what the plain loops over pure-rand's generator gave (the reference implementations below are those
 * loops), so seeded results did not change when they were sped up.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { describe, expect, it } from 'vitest';
import { bootstrapMeans } from '../src/stats/bootstrap.js';
import { pairedRandomizationTest, TIE_EPSILON } from '../src/stats/randomization.js';
import { seededRng } from '../src/stats/rng.js';
import { Int32Stream } from '../src/stats/stream.js';

function referencePValue(a: number[], b: number[], seed: number, iterations: number): number {
  const rng = seededRng(seed);
  const d = b.map((y, i) => y - a[i]!);
  const n = d.length;
  let m = 0;
  for (const x of d) m += x;
  m /= n;
  if (d.every((x) => x === 0)) return 1;
  const threshold = Math.abs(m) - TIE_EPSILON;
  let extreme = 0;
  for (let it = 0; it < iterations; it++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 31) === 0) bits = rng.next();
      s += (bits >>> (i & 31)) & 1 ? -d[i]! : d[i]!;
    }
    if (Math.abs(s / n) >= threshold) extreme++;
  }
  return (extreme + 1) / (iterations + 1);
}

function referenceMeans(x: number[], seed: number, iterations: number): Float64Array {
  const rng = seededRng(seed);
  const n = x.length;
  const means = new Float64Array(iterations);
  for (let it = 0; it < iterations; it++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[uniformInt(rng, 0, n - 1)]!;
    means[it] = s / n;
  }
  return means.sort();
}

function sample(n: number, seed: number): { a: number[]; b: number[] } {
  const rng = seededRng(seed + 1000);
  const u = () => (rng.next() >>> 0) / 2 ** 32;
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = Math.round(u() * 20) / 20; // coarse, like metric values: many exact ties
    a.push(x);
    b.push(u() < 0.3 ? x : Math.round(u() * 20) / 20);
  }
  return { a, b };
}

describe('block stream', () => {
  it('is the seeded generator output sequence, across block boundaries', () => {
    for (const seed of [0, 1, 42, 2 ** 40 + 7]) {
      const rng = seededRng(seed);
      const stream = new Int32Stream(seed, 7);
      for (let blk = 0; blk < 5; blk++) {
        const got = [...stream.fill()];
        expect(got).toEqual(Array.from({ length: 7 }, () => rng.next()));
      }
    }
  });
});

describe('seeded results unchanged', () => {
  it.each([1, 2, 3, 31, 32, 33, 65, 257, 1000])('randomization test, n = %i', (n) => {
    for (const seed of [3, 99]) {
      const { a, b } = sample(n, seed * n);
      const p = pairedRandomizationTest(a, b, { seed, iterations: 3000 }).pValue;
      expect(p).toBe(referencePValue(a, b, seed, 3000));
    }
  });

  it.each([1, 2, 3, 7, 100, 1000, 4392])('bootstrap means, n = %i', (n) => {
    const { a, b } = sample(n, n);
    const d = b.map((y, i) => y - a[i]!);
    const got = bootstrapMeans(d, { seed: 17, iterations: 1200 });
    const want = referenceMeans(d, 17, 1200);
    expect(got.every((v, i) => Object.is(v, want[i]))).toBe(true);
  });
});
