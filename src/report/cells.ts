/**
 * The one home of the cell formats every renderer prints (terminal, Markdown, LaTeX, CSV labels,
 * HTML): a mean as the official percentage, a signed difference, a p-value, a published value. Anything that is not a
 * number to show (undefined, NaN, ±Infinity) prints as "–" in all of them.
 */
import { formatPercent, formatPercentDelta, formatSignedPercent } from '../metrics/official-percent.js';
import type { Attribution, MetricAttribution } from '../significance/attribution.js';
import { formatFixed } from '../util/python-round.js';

/** A mean fraction as the official percentage (`f"{round(x, 5) * 100:.2f}"`). */
export const pct = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '–' : formatPercent(x));

/** A difference of means as a signed official percentage. */
export const signedPct = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '–' : formatSignedPercent(x));

/** A p-value to 4 decimals, "<0.0001" below that. */
export const pval = (p: number | undefined): string => (p === undefined || Number.isNaN(p) ? '–' : p < 0.0001 ? '<0.0001' : formatFixed(p, 4));

/**
 * A published value (percent, as the paper gives it) with `decimals` decimals: its column's published
 * decimals (`columnDecimals`), so 51.3 in a column published to 2 decimals prints 51.30, as `paper` prints it.
 */
export const publishedPct = (x: number | undefined, decimals: number): string => (x === undefined || !Number.isFinite(x) ? '–' : formatFixed(x, decimals));

/**
 * The cells of one metric of an on/off comparison (a treated run against its base, paired), as
 * summary.md's reranker and query-strategy tables print them: off, on, Δ of the printed values,
 * p (randomisation), p (t) and the 95% bootstrap CI of Δ.
 */
export function onOffCells(s: MetricAttribution): string[] {
  return [pct(s.base), pct(s.treated), formatPercentDelta(s.base, s.treated), pval(s.randomization.pValue), pval(s.tTest.pValue), `[${signedPct(s.bootstrap.low)}, ${signedPct(s.bootstrap.high)}]`];
}

/** An on/off comparison's per-query counts by its primary key: `helped / hurt / same`. */
export function onOffCounts(a: Attribution): string {
  return `${a.counts.helped} / ${a.counts.hurt} / ${a.counts.unchanged}`;
}
