/**
 * Renders rank correlations: this benchmark against another one (`compare --correlate`,
 * analysis/benchmark-correlation.ts) and a published table's two columns (`paper --correlate`,
 * paper/table-correlation.ts), as terminal text or Markdown (through a Medium), or as a JSON value.
 * Renders only: every number is computed before.
 */
import type { BenchmarkCorrelation } from '../../analysis/benchmark-correlation.js';
import type { TableCorrelation } from '../../paper/table-correlation.js';
import type { CorrelationInterval, RankCorrelation } from '../../stats/rank-correlation.js';
import { formatFixed } from '../../util/python-round.js';
import { plural } from '../../util/plural.js';
import { MARKDOWN, TERMINAL, type Medium } from '../medium.js';

const r4 = (x: number) => (Number.isNaN(x) ? 'undefined' : formatFixed(x, 4));

function ciText(ci: CorrelationInterval): string {
  const pctLevel = `${formatFixed(ci.level * 100, 0)}%`;
  const undefinedDraws = ci.undefinedDraws > 0 ? `; ${plural(ci.undefinedDraws, 'resample')} with a constant side left out` : '';
  return `${pctLevel} CI [${r4(ci.low)}, ${r4(ci.high)}]${undefinedDraws}`;
}

function statLines(r: RankCorrelation, seed: number, over: string): string[] {
  return [
    `Spearman ρ   ${r4(r.spearman)}  ${ciText(r.spearmanCI)}`,
    `Kendall τ-b  ${r4(r.kendall)}  ${ciText(r.kendallCI)}`,
    `(n = ${r.n}; percentile bootstrap over the ${over}, ${r.spearmanCI.iterations.toLocaleString('en-US')} resamples, seed ${seed}; ties get average ranks)`,
  ];
}

/** 1-based average ranks, highest value first (what a reader compares). */
function ranksDescending(xs: readonly number[]): number[] {
  return xs.map((v) => 1 + xs.filter((w) => w > v).length + (xs.filter((w) => w === v).length - 1) / 2);
}

const rankText = (r: number) => (Number.isInteger(r) ? String(r) : formatFixed(r, 1));

/** `compare --correlate`: the statistics, the paired table, and what did not pair. */
export function renderBenchmarkCorrelation(c: BenchmarkCorrelation, format: 'table' | 'md'): string {
  const m: Medium = format === 'md' ? MARKDOWN : TERMINAL;
  const out: string[] = [];
  out.push(m.h2(`Rank correlation with ${m.esc(c.file)} (${m.esc(c.column)}) on ${c.key}`), '');
  out.push(...statLines(c.result, c.seed, 'runs').map((l) => (format === 'md' ? `${l}  ` : l)), '');
  const ours = ranksDescending(c.pairs.map((p) => p.ours));
  const theirs = ranksDescending(c.pairs.map((p) => p.theirs));
  const rows = c.pairs.map((p, i) => [m.esc(p.label), `${m.esc(p.name)} (line ${p.line}, ${p.matchedBy})`, formatFixed(p.ours * 100, 2), String(p.theirs), rankText(ours[i]!), rankText(theirs[i]!)]);
  out.push(m.table(['Run', 'Row', `${c.key} ×100`, m.esc(c.column), 'Rank here', 'Rank there'], rows, ['l', 'l', 'r', 'r', 'r', 'r']).trimEnd());
  if (c.unmatchedRows.length) out.push('', `Rows with no compared run: ${c.unmatchedRows.map((r) => `${m.esc(r.name)} (line ${r.line})`).join(', ')}`);
  if (c.unmatchedRuns.length) out.push('', `Runs with no row: ${c.unmatchedRuns.map((l) => m.esc(l)).join(', ')}`);
  return out.join('\n') + '\n';
}

/** `paper --correlate`: the table's two columns correlated, beside the published value. */
export function renderTableCorrelation(t: TableCorrelation): string {
  const m = TERMINAL;
  const out: string[] = [];
  out.push(`${t.table}: ${t.source}: rank correlation of "${t.columns[0]}" and "${t.columns[1]}" over ${plural(t.rows.length, 'row')}`);
  if (t.skipped.length) out.push(`left out (a value missing): ${t.skipped.join(', ')}`);
  out.push('', ...statLines(t.result, t.seed, 'rows'));
  if (t.published) {
    const p = t.published;
    const shown = Number.isNaN(t.result.spearman) ? 'undefined' : formatFixed(t.result.spearman, p.decimals);
    const same = shown === formatFixed(p.spearman, p.decimals);
    out.push(
      '',
      `Published: Spearman ρ = ${formatFixed(p.spearman, p.decimals)} (${p.where}); from the table's own columns ${shown} at ${p.decimals} decimals: ` +
        (same ? 'reproduced' : `NOT reproduced (the published value does not follow from the published columns)`),
    );
  }
  const xr = ranksDescending(t.rows.map((r) => r.x));
  const yr = ranksDescending(t.rows.map((r) => r.y));
  const rows = t.rows.map((r, i) => [r.model, formatFixed(r.x, t.decimals[0]), formatFixed(r.y, t.decimals[1]), rankText(xr[i]!), rankText(yr[i]!), rankText(xr[i]! - yr[i]!)]);
  out.push('', m.table(['Model', t.columns[0], t.columns[1], `Rank (${t.columns[0]})`, `Rank (${t.columns[1]})`, 'd'], rows, ['l', 'r', 'r', 'r', 'r', 'r']).trimEnd());
  const d2 = xr.reduce((s, r, i) => s + (r - yr[i]!) ** 2, 0);
  out.push('', `Σd² = ${rankText(d2)} (without ties ρ = 1 − 6·Σd² / (n(n² − 1)))`);
  return out.join('\n') + '\n';
}

/** The JSON value of either correlation (NaN as null). */
export function correlationJson(c: BenchmarkCorrelation | TableCorrelation): unknown {
  return JSON.parse(JSON.stringify(c, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)));
}
