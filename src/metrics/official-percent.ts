/**
 * The official SkillRet percentage (docs/protocol.md §7 rule 11): a mean stored as Python's
 * `round(mean, 5)` and printed `f"{… * 100:.2f}"`, and the differences of printed percentages.
 * The Python-exact rounding itself is util/python-round.ts.
 */
import { formatFixed, roundHalfEven } from '../util/python-round.js';

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
