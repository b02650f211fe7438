/**
 * The optimized randomization test and bootstrap (block stream, nibble tables, counts, one pass over
 * many columns) give bit for bit what plain loops over pure-rand's generator give for the definitions
 * in the module comments of src/stats/randomization.ts and src/stats/bootstrap.ts (the reference
 * implementations below are those loops, written for clarity, not speed), and a column's result does
 * not depend on the other columns of the same call.
 */
import { referenceMeansRows } from './helpers/bootstrap-reference.js';
import { describe, expect, it } from 'vitest';
import { bootstrapMeans, bootstrapMeansRows } from '../src/stats/bootstrap.js';
import { pairedRandomizationTest, randomizationPValues, TIE_EPSILON } from '../src/stats/randomization.js';
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
  const W = Math.ceil(n / 32);
  let extreme = 0;
  for (let it = 0; it < iterations; it++) {
    const words = Array.from({ length: W }, () => rng.next());
    const flipped = (i: number) => {
      const x = i < n ? d[i]! : 0;
      return (words[i >>> 5]! >>> (i & 31)) & 1 ? -x : x;
    };
    const acc = [0, 0, 0, 0];
    for (let g = 0; g < 8 * W; g++) {
      let p = 0;
      for (let k = 0; k < 4; k++) p += flipped(4 * g + k);
      acc[g % 4] = acc[g % 4]! + p;
    }
    const s = acc[0]! + acc[1]! + (acc[2]! + acc[3]!);
    if (Math.abs(s / n) >= threshold) extreme++;
  }
  return (extreme + 1) / (iterations + 1);
}

function referenceMeans(x: number[], seed: number, iterations: number): Float64Array {
  return referenceMeansRows(Float64Array.from(x), x.length, seed, iterations)[0]!.sort();
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

const same = (x: ArrayLike<number>, y: ArrayLike<number>) => x.length === y.length && Array.from(x).every((v, i) => Object.is(v, y[i]));

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

describe('optimized = the plain definition, bit for bit', () => {
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
    expect(same(bootstrapMeans(d, { seed: 17, iterations: 1200 }), referenceMeans(d, 17, 1200))).toBe(true);
  });

  it('bootstrap means with n >= 2^15 (one index per output, pure-rand uniformInt)', () => {
    const { a, b } = sample(40_000, 5);
    const d = b.map((y, i) => y - a[i]!);
    expect(same(bootstrapMeans(d, { seed: 4, iterations: 12 }), referenceMeans(d, 4, 12))).toBe(true);
  });
});

describe('many columns under one stream', () => {
  const n = 261;
  const cols = [1, 2, 3, 4, 5, 6].map((s) => sample(n, 50 + s));
  const diffs = cols.map(({ a, b }) => b.map((y, i) => y - a[i]!));
  diffs[3] = new Array<number>(n).fill(0); // a column of zeros among them
  const matrix = (rows: number[][]) => Float64Array.from(rows.flat());

  it('randomization: each column gets the p it gets alone, whatever the others', () => {
    const all = randomizationPValues(matrix(diffs), n, { seed: 8, iterations: 1500 });
    diffs.forEach((d, r) => {
      expect(all[r]).toBe(pairedRandomizationTest(new Array<number>(n).fill(0), d, { seed: 8, iterations: 1500 }).pValue);
    });
    expect(all[3]).toBe(1);
    const some = randomizationPValues(matrix([diffs[5]!, diffs[1]!]), n, { seed: 8, iterations: 1500 });
    expect([...some]).toEqual([all[5], all[1]]);
  });

  it('bootstrap: each column gets the means it gets alone, whatever the others', () => {
    const all = bootstrapMeansRows(matrix(diffs), n, { seed: 9, iterations: 700 });
    diffs.forEach((d, r) => expect(same(all[r]!, bootstrapMeans(d, { seed: 9, iterations: 700 }))).toBe(true));
    expect(all[3]!.every((m) => m === 0)).toBe(true);
    const some = bootstrapMeansRows(matrix([diffs[4]!]), n, { seed: 9, iterations: 700 });
    expect(same(some[0]!, all[4]!)).toBe(true);
  });

  it('the columns share the resamples: a column and its double have doubled means', () => {
    const d = diffs[0]!;
    const [m1, m2] = bootstrapMeansRows(matrix([d, d.map((x) => 2 * x)]), n, { seed: 10, iterations: 300 });
    expect(same(m2!, m1!.map((x) => 2 * x))).toBe(true);
  });

  it('rejects a matrix that is not whole rows, and non-finite values', () => {
    expect(() => randomizationPValues(new Float64Array(5), 2, { seed: 1 })).toThrow(/whole rows/);
    expect(() => bootstrapMeansRows(new Float64Array(4), 0, { seed: 1 })).toThrow(/positive integer/);
    expect(() => randomizationPValues(Float64Array.from([1, Infinity]), 1, { seed: 1 })).toThrow(/finite/);
  });
});
