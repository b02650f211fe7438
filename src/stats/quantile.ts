/**
 * Quantile of sorted data by linear interpolation between order statistics: Hyndman & Fan type 7,
 * the default of numpy.quantile (method="linear") and R's quantile().
 *
 *     h = (n − 1) · q,  Q(q) = x[⌊h⌋] + (h − ⌊h⌋) · (x[⌊h⌋ + 1] − x[⌊h⌋])
 */

/** `sorted` must be ascending and non-empty; q in [0, 1]. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantile of an empty sample');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile level must be in [0, 1], got ${q}`);
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const xlo = sorted[lo]!;
  if (lo >= n - 1) return sorted[n - 1]!;
  const frac = h - lo;
  if (frac === 0) return xlo;
  return xlo + frac * (sorted[lo + 1]! - xlo);
}
