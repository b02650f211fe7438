/**
 * Renders a two-run comparison (an Attribution of run B against run A) as a plain-text table or as
 * JSON. Rendering only: every number arrives computed.
 *
 * Table: metric, A, B, Δ = B − A (×100, 2 decimals, Python-exact via formatPercent), p of the paired
 * randomization test and of the paired t-test (4 decimals, "<0.0001" below that, "–" when undefined),
 * 95% bootstrap CI of Δ (×100); then the helped/hurt/unchanged counts by the primary key and the
 * queries hurt most. JSON: the whole Attribution at full precision (2-space indent, trailing newline);
 * non-finite numbers, which JSON cannot hold, are written as the strings "Infinity", "-Infinity", "NaN".
 */
import type { Attribution } from '../significance/attribution.js';
import { formatFixed, formatPercent, formatPercentDelta, formatSignedPercent } from '../metrics/round.js';

export interface Comparison {
  /** per-query.jsonl of run A (the base). */
  a: string;
  /** per-query.jsonl of run B (the treatment). */
  b: string;
  attribution: Attribution;
}

const pct = (x: number): string => (Number.isFinite(x) ? formatPercent(x) : '–');
const signedPct = (x: number): string => formatSignedPercent(x);
const pval = (p: number): string => (Number.isNaN(p) ? '–' : p < 0.0001 ? '<0.0001' : formatFixed(p, 4));

/** Pads each column to its widest cell; `align` 'l' or 'r' per column; two spaces between columns. */
function columns(rows: readonly string[][], align: readonly ('l' | 'r')[]): string[] {
  const widths = align.map((_, j) => Math.max(...rows.map((r) => [...(r[j] ?? '')].length)));
  return rows.map((r) =>
    r
      .map((cell, j) => {
        const pad = ' '.repeat(widths[j]! - [...cell].length);
        return align[j] === 'l' ? cell + pad : pad + cell;
      })
      .join('  ')
      .trimEnd(),
  );
}

export function renderComparisonTable(c: Comparison): string {
  const at = c.attribution;
  const out: string[] = [];
  out.push(`A: ${c.a}`);
  out.push(`B: ${c.b}`);
  out.push(
    `${at.queries} paired queries. Δ = B − A (×100). p: two-sided paired randomization test ` +
      `(${at.iterations} sign-flip samples, seed ${at.seed}) and paired t-test. ` +
      `CI: 95% percentile bootstrap of the mean Δ (${at.iterations} resamples).`,
  );
  out.push('');
  const rows: string[][] = [['metric', 'A', 'B', 'Δ', 'p (rand.)', 'p (t)', '95% CI of Δ']];
  for (const [key, m] of Object.entries(at.metrics)) {
    rows.push([
      key,
      pct(m.base),
      pct(m.treated),
      formatPercentDelta(m.base, m.treated),
      pval(m.randomization.pValue),
      pval(m.tTest.pValue),
      `[${signedPct(m.bootstrap.low)}, ${signedPct(m.bootstrap.high)}]`,
    ]);
  }
  out.push(...columns(rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r']));
  out.push('');
  const { helped, hurt, unchanged } = at.counts;
  out.push(`By ${at.primaryKey}: B helped ${helped}, hurt ${hurt}, left ${unchanged} unchanged (of ${at.queries}).`);
  if (at.worst.length) {
    out.push(`Queries B hurt most (${at.primaryKey} ×100, A → B, Δ):`);
    const w = at.worst.map((q) => [`  ${q.qid}`, pct(q.base), '→', pct(q.treated), formatPercentDelta(q.base, q.treated)]);
    out.push(...columns(w, ['l', 'r', 'l', 'r', 'r']));
  }
  return out.join('\n') + '\n';
}

function jsonSafe(_key: string, v: unknown): unknown {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

export function renderComparisonJson(c: Comparison): string {
  const { a, b, attribution: at } = c;
  return JSON.stringify({ a, b, delta: 'b - a', ...at }, jsonSafe, 2) + '\n';
}
