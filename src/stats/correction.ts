/**
 * Multiple-comparison correction of a family of p-values: Holm's step-down (default), Bonferroni,
 * or none. Pure, order-preserving: the i-th output belongs to the i-th input.
 *
 * Undefined p-values (NaN: a test that could not be computed, e.g. a t-test over identical runs)
 * are not tests of the family: they stay NaN, are never significant, and do not count in the family
 * size m. (A NaN passed to a sorting correction otherwise poisons every other value, the bug of
 * pyterrier PR #440.)
 *
 * - bonferroni: p' = min(1, m·p).
 * - holm: with the m defined p-values sorted ascending (ties in input order), p'_(i) =
 *   max over j ≤ i of min(1, (m − j + 1)·p_(j)), 1-based: the step-down adjusted p-values of Holm
 *   (1979), equal to statsmodels' `multipletests(method="holm")`.
 * - none: p' = p.
 */

export const CORRECTIONS = ['holm', 'bonferroni', 'none'] as const;
export type Correction = (typeof CORRECTIONS)[number];

/** The number of defined (non-NaN) p-values: the family size a correction uses. */
export function familySize(ps: readonly number[]): number {
  return ps.filter((p) => !Number.isNaN(p)).length;
}

export function correctPValues(ps: readonly number[], method: Correction): number[] {
  for (const p of ps) if (!Number.isNaN(p) && (p < 0 || p > 1)) throw new RangeError(`p-value out of [0, 1]: ${p}`);
  const m = familySize(ps);
  if (method === 'none') return [...ps];
  if (method === 'bonferroni') return ps.map((p) => (Number.isNaN(p) ? NaN : Math.min(1, m * p)));
  const order = ps
    .map((p, i) => ({ p, i }))
    .filter((x) => !Number.isNaN(x.p))
    .sort((x, y) => x.p - y.p || x.i - y.i);
  const out = ps.map(() => NaN);
  let running = 0;
  order.forEach(({ p, i }, j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[i] = running;
  });
  return out;
}
