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
