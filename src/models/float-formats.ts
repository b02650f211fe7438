/**
 * Rounding a double to the reduced float formats of GPU runs (IEEE half, bfloat16): round to
 * nearest, ties to even, from the double value; overflow gives ±Infinity as the hardware does.
 * Used for reranker scores (rerank/score-precision.ts) and embedding vectors (retrieval/dense).
 */

/** Round-half-even of a non-negative double to an integer (exact for values below 2^52). */
function roundHalfEvenInt(q: number): number {
  const f = Math.floor(q);
  const d = q - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Rounds x to a binary format with `mant` explicit mantissa bits, minimum normal exponent `emin`
 * and maximum finite value `max`.
 */
function toFormat(x: number, mant: number, emin: number, max: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  // Math.log2 may be off by one next to powers of two.
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  const step = 2 ** (Math.max(e, emin) - mant);
  const r = roundHalfEvenInt(a / step) * step;
  if (r > max) return sign * Infinity;
  return sign * r;
}

/** The nearest IEEE half-precision value (as a number). */
export function toFloat16(x: number): number {
  return toFormat(x, 10, -14, 65504);
}

/** The nearest bfloat16 value (as a number). */
export function toBfloat16(x: number): number {
  return toFormat(x, 7, -126, 3.3895313892515355e38);
}

