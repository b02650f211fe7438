/**
 * Python-exact rounding and fixed-point formatting (docs/protocol.md §7 rule 11).
 *
 * Python rounds the EXACT binary value of a double, correctly, with exact ties going to the even
 * digit: `round(0.125, 2) == 0.12`, `f"{2.675:.2f}" == "2.67"` (2.675 is stored as 2.67499999...).
 * JavaScript's `toFixed` is also correct except on exact ties, which it rounds away from zero
 * (`(0.125).toFixed(2) == "0.13"`), and it drops the sign of negative zero. So the rounding is done
 * here in exact integer arithmetic (BigInt) on the double's mantissa and exponent.
 */

/** |x| as mantissa * 2^exp (exact), plus the sign bit. x must be finite. */
function decompose(x: number): { neg: boolean; mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const neg = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { neg, mant: frac, exp: -1074 }; // zero and subnormals
  return { neg, mant: frac | (1n << 52n), exp: biased - 1075 };
}

/**
 * round(|x| * 10^digits) to an integer, ties to even, computed exactly. digits may be negative.
 */
function scaledRound(x: number, digits: number): { neg: boolean; q: bigint } {
  const { neg, mant, exp } = decompose(x);
  let num = mant;
  let den = 1n;
  if (digits >= 0) num *= 10n ** BigInt(digits);
  else den *= 10n ** BigInt(-digits);
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  let q = num / den;
  const twiceR = (num - q * den) * 2n;
  if (twiceR > den || (twiceR === den && (q & 1n) === 1n)) q += 1n;
  return { neg, q };
}

function checkDigits(digits: number, min: number, max: number): void {
  if (!Number.isInteger(digits) || digits < min || digits > max) {
    throw new RangeError(`digits must be an integer from ${min} to ${max}, got ${String(digits)}`);
  }
}

/**
 * Python's `f"{x:.{digits}f}"`: the exact value of x correctly rounded to `digits` decimals, exact
 * ties to even; negative values (and -0.0) keep their "-" even when they round to zero;
 * non-finite values print as "inf", "-inf", "nan". digits: integer 0..1100.
 */
export function formatFixed(x: number, digits: number): string {
  checkDigits(digits, 0, 1100);
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const { neg, q } = scaledRound(x, digits);
  let s = q.toString();
  if (digits > 0) {
    if (s.length <= digits) s = '0'.repeat(digits - s.length + 1) + s;
    s = s.slice(0, s.length - digits) + '.' + s.slice(s.length - digits);
  }
  return neg ? '-' + s : s;
}

/** Python's NDIGITS_MAX / NDIGITS_MIN for float rounding (floatobject.c). */
const NDIGITS_MAX = 323;
const NDIGITS_MIN = -308;

/**
 * Python's `round(x, digits)` for a float: x correctly rounded to `digits` decimals (exact ties to
 * even), returned as the nearest double to that decimal. Non-finite x is returned unchanged; like
 * Python, digits > 323 returns x and digits < -308 returns a zero of x's sign.
 */
export function roundHalfEven(x: number, digits: number): number {
  if (!Number.isInteger(digits)) throw new RangeError(`digits must be an integer, got ${String(digits)}`);
  if (!Number.isFinite(x) || digits > NDIGITS_MAX) return x;
  if (digits < NDIGITS_MIN) return 0 * x;
  const { neg, q } = scaledRound(x, digits);
  const v = Number(`${q.toString()}e${-digits}`);
  if (!Number.isFinite(v)) throw new RangeError(`round(${String(x)}, ${digits}): rounded value too large to represent`);
  return neg ? -v : v;
}

/**
 * The official SkillRet percentage, Python's `f"{round(mean, 5) * 100:.2f}"`: the mean is first
 * stored as a fraction rounded to 5 decimals (the official result file), then shown ×100 with 2
 * decimals. Rounding the raw mean once (`f"{mean * 100:.2f}"`) differs by ±0.01 on about 5% of
 * values. THE one helper for every printed percentage (tables, Δ, verdicts, reports).
 */
export function formatPercent(mean: number): string {
  return formatFixed(officialFraction(mean) * 100, 2);
}

/** The official stored value of a mean: Python's `round(mean, 5)`. */
export function officialFraction(mean: number): number {
  return roundHalfEven(mean, 5);
}

/** A printed percentage (`formatPercent`) in integer hundredths of a point; NaN when not finite. */
export function percentHundredths(mean: number): number {
  const s = formatPercent(mean);
  if (!/^-?\d+\.\d\d$/.test(s)) return Number.NaN;
  const v = Number(s.replace('.', ''));
  return v === 0 ? 0 : v;
}

/** A hundredths count as a signed percentage string ("+1.25", "-0.07", "+0.00"). */
function signedHundredths(h: number): string {
  if (!Number.isFinite(h)) return '–';
  const a = Math.abs(h);
  return `${h < 0 ? '-' : '+'}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

/**
 * Δ = treated − base as the two printed percentages show it (so a table's Δ always equals the
 * difference of its printed cells): both rounded officially, the difference exact in hundredths,
 * with a sign ("+0.00" when equal). "–" when either is not finite.
 */
export function formatPercentDelta(base: number, treated: number): string {
  return signedHundredths(percentHundredths(treated) - percentHundredths(base));
}

/** Δ = mine − published, in points (2 decimals, exact): `mine` a mean fraction, `published` a printed percentage. */
export function percentDeltaFromPublished(mine: number, published: number): number {
  const d = percentHundredths(mine) - Math.round(published * 100);
  return d === 0 ? 0 : d / 100;
}

/** A signed official percentage of a difference of means (bootstrap bounds, mean per-query Δ). */
export function formatSignedPercent(x: number): string {
  if (!Number.isFinite(x)) return '–';
  const s = formatPercent(x);
  return s.startsWith('-') ? s : `+${s}`;
}
