/**
 * `skillret-eval compare <results folder | run folder | per-query.jsonl>…`: renders the one
 * comparison (src/api/compare.ts) of any number of runs as a terminal table, Markdown, LaTeX, CSV or
 * JSON; `--paper` lists the published tables instead; `--check` counts FAIL verdicts (exit 1);
 * `--out` writes the rendering to a file. Two runs are not a special case: the same value, the same
 * renderers (the per-run detail under the table holds both tests, the CI, W/T/L and the queries lost
 * most).
 */
import { UserError } from '../core/errors.js';
import { checkCompareOptions, checkKeyList, checkOutFolder, compare, comparePublished, type Comparison, type CompareOptions } from '../api/compare.js';
import { renderComparisonText } from '../report/systems/text.js';
import { renderComparisonMarkdown } from '../report/systems/markdown.js';
import { renderComparisonLatex } from '../report/systems/latex.js';
import { renderComparisonCsv } from '../report/systems/csv.js';
import { renderComparisonJsonMany } from '../report/systems/json.js';
import { renderPublishedTables, renderVerdicts } from '../report/systems/verdicts.js';
import { renderSliceComparison } from '../report/systems/slice-tables.js';
import { correlationJson, renderBenchmarkCorrelation } from '../report/systems/correlation.js';
import type { SystemsComparison } from '../significance/systems.js';
import { writeFileAtomic } from '../util/atomic.js';
import { plural } from '../util/plural.js';

export const FORMATS = ['table', 'md', 'latex', 'csv', 'json'] as const;
export type CompareFormat = (typeof FORMATS)[number];

export interface CompareCommandOptions extends Omit<CompareOptions, 'pairs' | 'measures'> {
  paths: string[];
  format?: CompareFormat;
  out?: string;
  measures?: string[];
  /** Same as `measures` (the older name). */
  keys?: string[];
  pairs?: 'all';
  /** List the whole published tables the runs' counterparts belong to (instead of the comparison). */
  paper?: boolean;
  /** Count FAIL verdicts (the CLI exits 1 on any). */
  check?: boolean;
}

export function renderSystemsComparison(c: SystemsComparison, format: CompareFormat): string {
  switch (format) {
    case 'md':
      return renderComparisonMarkdown(c);
    case 'latex':
      return renderComparisonLatex(c);
    case 'csv':
      return renderComparisonCsv(c);
    case 'json':
      return renderComparisonJsonMany(c);
    default:
      return renderComparisonText(c);
  }
}

function renderComparison(c: Comparison, format: CompareFormat): string {
  let text = c.slices ? renderSliceComparison(c.slices, format, (x) => renderSystemsComparison(x, format)) : renderSystemsComparison(c, format);
  const verdicts = c.paper.runs;
  if (verdicts.length && (format === 'table' || format === 'md')) text += `\n${renderVerdicts(verdicts, c.paper.tolerances, format)}`;
  if (verdicts.length && format === 'json') text = JSON.stringify({ ...(JSON.parse(text) as object), paper: c.paper }, null, 2) + '\n';
  if (c.correlation && (format === 'table' || format === 'md')) text += `\n${renderBenchmarkCorrelation(c.correlation, format)}`;
  if (c.correlation && format === 'json') text = JSON.stringify({ ...(JSON.parse(text) as object), correlation: correlationJson(c.correlation) }, null, 2) + '\n';
  return text;
}

const countFails = (cells: readonly { verdict: string }[]) => cells.filter((c) => c.verdict === 'FAIL').length;

/**
 * The text for stdout (the rendering, or with --out one line saying where it went) and, with
 * --check, the number of FAIL verdicts among the runs with a published counterpart.
 */
export async function compareWithCheck(o: CompareCommandOptions): Promise<{ text: string; failures: number }> {
  const format = o.format ?? 'table';
  if (!FORMATS.includes(format)) throw new UserError(`--format: expected one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  if (o.pairs !== undefined && o.pairs !== 'all') throw new UserError(`--pairs: expected "all", got ${JSON.stringify(o.pairs)}`);
  if (o.paper && (format === 'latex' || format === 'csv')) throw new UserError('--paper: use --format table, md or json');
  if (o.slice !== undefined && o.paper) throw new UserError('--slice: not with --paper (the published tables have no slices)');
  if (o.correlate !== undefined && o.paper) throw new UserError('--correlate: not with --paper (`skillret-eval paper --table <id> --correlate` correlates a published table)');
  if (o.correlate !== undefined && (format === 'latex' || format === 'csv')) throw new UserError('--correlate: use --format table, md or json');
  if (o.measures !== undefined && o.keys !== undefined) throw new UserError('--keys: same as --measures; give one of them');
  if (o.keys !== undefined) checkKeyList(o.keys, '--keys');
  const { paths, out, paper, check, keys, pairs, format: _format, measures = keys, ...rest } = o;
  checkCompareOptions(rest);
  checkOutFolder(out, paths);
  let text: string;
  let failures: number;
  let summary: string;
  if (paper) {
    const p = await comparePublished(paths, rest);
    failures = countFails(p.tables.flatMap((v) => v.rows.flatMap((r) => r.reproduced.flatMap((l) => l.cells))));
    text =
      format === 'json'
        ? JSON.stringify({ tolerances: p.tolerances, tables: p.tables.map((v) => ({ id: v.table.id, source: v.table.source, columns: v.table.columns, rows: v.rows })) }, null, 2) + '\n'
        : renderPublishedTables(p.tables, p.tolerances, format === 'md' ? 'md' : 'table');
    summary = `${p.tables.length} published table${p.tables.length === 1 ? '' : 's'}, ${p.claims} reproduced row${p.claims === 1 ? '' : 's'}`;
  } else {
    const c = await compare(paths, { ...rest, ...(measures !== undefined ? { measures } : {}), pairs: pairs === 'all' });
    if (check && c.paper.runs.length === 0) throw new UserError('--check: no compared run has a published counterpart (a `paper` block in its metrics.json)');
    failures = countFails(c.paper.runs.flatMap((v) => v.cells));
    text = renderComparison(c, format);
    summary = `${plural(c.rows.length, 'run')}, ${plural(c.queries, 'query', 'queries')}${c.slices ? `, ${plural(c.slices.groups.length, `${c.slices.slice} group`)}` : ''}`;
  }
  const failed = check ? failures : 0;
  if (out === undefined) return { text, failures: failed };
  writeFileAtomic(out, text);
  return { text: `wrote ${out} (${summary})\n`, failures: failed };
}

/** `compareWithCheck` without the check: what goes to stdout. */
export async function compareCommand(o: CompareCommandOptions): Promise<string> {
  return (await compareWithCheck(o)).text;
}
