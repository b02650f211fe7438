/**
 * The bootstrap of src/stats/bootstrap.ts from its module comment, written plainly (one draw at a
 * time, dense sums over every query): the reference the fast paths and the SIMD kernel are
 * checked against, bit for bit.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { seededRng } from '../../src/stats/rng.js';

/** The query indices of the seeded stream, one per call: n < 2^15 two 16-bit numbers per output (Lemire's rule), else pure-rand's uniformInt. */
export function referenceDraws(seed: number, n: number): () => number {
  const rng = seededRng(seed);
  let pending: number[] = [];
  return (): number => {
    if (n >= 2 ** 15) return uniformInt(rng, 0, n - 1);
    for (;;) {
      if (pending.length === 0) {
        const out = rng.next() >>> 0;
        pending = [Math.floor(out / 65536), out % 65536];
      }
      const u = pending.shift()!;
      const m = u * n;
      if (m % 65536 >= 65536 % n) return Math.floor(m / 65536);
    }
  };
}

/**
 * The bootstrap means of every row of the rows × n matrix `values`, in iteration order (unsorted):
 * S = (A0 + A1) + (A2 + A3) with A_j the sum of count·value over the queries q ≡ j mod 4, zero
 * terms included (they change nothing).
 */
export function referenceMeansRows(values: Float64Array, n: number, seed: number, iterations: number): Float64Array[] {
  const rows = values.length / n;
  const draw = referenceDraws(seed, n);
  const means = Array.from({ length: rows }, () => new Float64Array(iterations));
  const c = new Array<number>(n);
  for (let it = 0; it < iterations; it++) {
    c.fill(0);
    for (let i = 0; i < n; i++) c[draw()]!++;
    for (let r = 0; r < rows; r++) {
      const acc = [0, 0, 0, 0];
      for (let q = 0; q < n; q++) acc[q % 4] = acc[q % 4]! + c[q]! * values[r * n + q]!;
      means[r]![it] = (acc[0]! + acc[1]! + (acc[2]! + acc[3]!)) / n;
    }
  }
  return means;
}
