/**
 * Paired differences: the common first step of the paired tests. Convention used throughout
 * src/stats: d[i] = b[i] − a[i], so a positive mean difference means `b` scores higher than `a`
 * ("b vs a", treated minus base).
 */

/** d[i] = b[i] − a[i]; throws if the lengths differ, the input is empty or a value is not finite. */
export function pairedDifferences(a: readonly number[], b: readonly number[]): Float64Array {
  if (a.length !== b.length) {
    throw new RangeError(`paired samples differ in length: ${a.length} vs ${b.length}`);
  }
  if (a.length === 0) throw new RangeError('paired samples are empty');
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new RangeError(`paired samples must be finite numbers (index ${i}: ${x}, ${y})`);
    }
    d[i] = y - x;
  }
  return d;
}

/** Left-to-right sum divided by the length (the order fixes the bits: callers rely on it). */
export function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

/**
 * Checks a rows × n matrix (row-major) of paired values: n ≥ 1, whole non-empty rows, finite values;
 * returns the number of rows. Throws a RangeError naming `what` otherwise.
 */
export function checkRows(diffs: Float64Array, n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${what}: the number of queries must be a positive integer, got ${n}`);
  if (diffs.length === 0 || diffs.length % n !== 0) throw new RangeError(`${what}: ${diffs.length} values are not whole rows of ${n}`);
  for (let i = 0; i < diffs.length; i++) {
    if (!Number.isFinite(diffs[i]!)) throw new RangeError(`${what}: values must be finite numbers (row ${Math.floor(i / n)}, index ${i % n}: ${diffs[i]})`);
  }
  return diffs.length / n;
}
