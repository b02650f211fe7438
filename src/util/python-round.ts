/**
 * Python-exact rounding and fixed-point formatting (docs/protocol.md §7 rule 11): `round(x, n)` and
 * `f"{x:.nf}"` as CPython computes them. The official percentage built on them is
 * metrics/official-percent.ts.
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
