/**
 * The paper-reproduction verdict of one metric: |Δ| = |yours − published| in points, where yours is
 * the official printed percentage (metrics/official-percent.ts: round(mean, 5) × 100, 2 decimals), so Δ is the
 * difference of two printed numbers. OK when |Δ| ≤ ok (default 0.05 points), close when ≤ close
 * (default 1.0), FAIL beyond. Tolerances are part of every output that shows a verdict.
 */
export type Verdict = 'OK' | 'close' | 'FAIL';

export interface Tolerances {
  /** Points: |Δ| up to this is OK. */
  ok: number;
  /** Points: |Δ| up to this is close. */
  close: number;
}

export const DEFAULT_TOLERANCES: Tolerances = { ok: 0.05, close: 1.0 };

/** Δ values are exact hundredths; the slack only absorbs their binary representation. */
const SLACK = 1e-9;

export function checkTolerances(t: Tolerances, what: string): void {
  if (!(Number.isFinite(t.ok) && t.ok >= 0)) throw new RangeError(`${what}: the OK tolerance must be a non-negative number of points, got ${t.ok}`);
  if (!(Number.isFinite(t.close) && t.close >= t.ok)) throw new RangeError(`${what}: the close tolerance must be a number of points ≥ the OK tolerance (${t.ok}), got ${t.close}`);
}

export function verdictOf(deltaPoints: number, t: Tolerances = DEFAULT_TOLERANCES): Verdict {
  const d = Math.abs(deltaPoints);
  if (!Number.isFinite(d)) return 'FAIL';
  if (d <= t.ok + SLACK) return 'OK';
  if (d <= t.close + SLACK) return 'close';
  return 'FAIL';
}

/** The worst of several verdicts (FAIL > close > OK); OK for none. */
export function worstVerdict(vs: Iterable<Verdict>): Verdict {
  let w: Verdict = 'OK';
  for (const v of vs) {
    if (v === 'FAIL') return 'FAIL';
    if (v === 'close') w = 'close';
  }
  return w;
}

export function describeTolerances(t: Tolerances): string {
  return `OK: |Δ| ≤ ${t.ok} points after the official rounding; close: ≤ ${t.close}; FAIL: beyond`;
}
