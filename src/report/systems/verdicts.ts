/**
 * Renders the paper-reproduction parts of `compare`: each run with a published counterpart against
 * its row (yours, published, Δ, verdict), and with --paper the whole published tables with the rows
 * the runs reproduce. Text (aligned), Markdown or JSON; rendering only.
 */
import { formatPercent } from '../../metrics/official-percent.js';
import { formatFixed } from '../../util/python-round.js';
import type { ClaimVerdicts, PublishedTableView } from '../../paper/published-table.js';
import { columnDecimals, findPaperTable, type PaperTable } from '../../paper/results.js';
import { describeTolerances, type Tolerances } from '../../metrics/verdict.js';
import { publishedPct } from '../cells.js';
import { escapeMd, mdTable } from '../markdown.js';
import { renderTextTable, escapeTerminal } from './text.js';

type Fmt = 'table' | 'md';

/** A published value as `paper` prints it: with its column's published decimals (51.30, not 51.3); "–" when absent. */
const publishedCell = (table: PaperTable, column: string, value: number | undefined): string => publishedPct(value, columnDecimals(table, column));

const signed = (x: number) => {
  const s = formatFixed(x === 0 ? 0 : x, 2);
  return s.startsWith('-') ? s : `+${s}`;
};

function grid(fmt: Fmt, header: string[], rows: string[][], align: ('l' | 'r')[]): string {
  if (fmt === 'md') return mdTable(header.map(escapeMd), rows.map((r) => r.map(escapeMd)), align);
  const cells = (xs: string[]) => xs.map((text) => ({ text, untrusted: true }));
  return renderTextTable({ header: cells(header), rows: rows.map(cells), align, notes: [] }).join('\n') + '\n';
}

export function renderVerdicts(vs: readonly ClaimVerdicts[], t: Tolerances, fmt: Fmt): string {
  if (vs.length === 0) return '';
  const metrics = [...new Set(vs.flatMap((v) => v.cells.map((c) => c.metric)))];
  const rows: string[][] = [];
  for (const v of vs) {
    const by = new Map(v.cells.map((c) => [c.metric, c]));
    const cell = (f: (c: ClaimVerdicts['cells'][number]) => string) => metrics.map((m) => (by.has(m) ? f(by.get(m)!) : '–'));
    const over = v.firstStage !== undefined ? ` over ${v.firstStage}${v.depth !== undefined ? ` top ${v.depth}` : ''}` : '';
    rows.push([v.label, `${v.row}${over} (${v.table})`, 'yours', ...cell((c) => formatPercent(c.yours))]);
    const table = findPaperTable(v.table)!; // a claim's verdicts exist only for a known table
    rows.push(['', '', 'paper', ...cell((c) => publishedCell(table, c.column, c.published))]);
    rows.push(['', '', 'Δ', ...cell((c) => signed(c.delta))]);
    rows.push(['', '', 'verdict', ...cell((c) => c.verdict)]);
  }
  const title = fmt === 'md' ? '### Published results (paper)\n\n' : 'Published results (paper):\n';
  const note = `Yours and published in percent, Δ = yours − published in points; ${describeTolerances(t)}.`;
  return `${title}${grid(fmt, ['Run', 'Published row (table)', '', ...metrics], rows, ['l', 'l', 'l', ...metrics.map(() => 'r' as const)])}\n${fmt === 'md' ? escapeMd(note) : note}\n`;
}

export function renderPublishedTables(views: readonly PublishedTableView[], t: Tolerances, fmt: Fmt): string {
  const out: string[] = [];
  for (const v of views) {
    const cols = v.table.columns;
    const rows: string[][] = [];
    for (const r of v.rows) {
      rows.push([r.reproduced.length ? `${r.model} ◀` : r.model, r.params ?? '', ...cols.map((c) => publishedCell(v.table, c, r.values[c]))]);
      for (const line of r.reproduced) {
        const by = new Map(line.cells.map((c) => [c.column, c]));
        rows.push([`  yours: ${line.label}`, '', ...cols.map((c) => (by.has(c) ? formatPercent(by.get(c)!.yours) : ''))]);
        rows.push(['  Δ / verdict', '', ...cols.map((c) => (by.has(c) ? `${signed(by.get(c)!.delta)} ${by.get(c)!.verdict}` : ''))]);
      }
    }
    const head = `${v.table.id}: ${v.table.description} (${v.table.source})`;
    out.push(`${fmt === 'md' ? `### ${escapeMd(head)}\n\n` : `${escapeTerminal(head)}\n`}${grid(fmt, ['Model', 'Params', ...cols], rows, ['l', 'l', ...cols.map(() => 'r' as const)])}`);
  }
  const note = `◀: a row your runs reproduce; yours in percent (official rounding), Δ = yours − published in points; ${describeTolerances(t)}.`;
  out.push(fmt === 'md' ? escapeMd(note) + '\n' : note + '\n');
  return out.join('\n');
}
