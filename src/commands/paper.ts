/**
 * `skillret-eval paper`: prints the SkillRet paper's published result tables (src/paper/results.ts),
 * percent exactly as published.
 *
 * - No `--table`: an index of every table id (of `--split`, if given), then each of those tables.
 * - `--table <id>`: that table only (with `--split`, it must be a table of that split).
 * - `--format json`: `{"units": "percent", "tables": [table objects as stored]}` (2-space indent).
 * - `--correlate` (with `--table` of two columns): the rank correlation of its two columns
 *   (paper/table-correlation.ts) with bootstrap intervals (`--seed`, `--iterations`), beside the
 *   correlation the paper states for it; JSON: that value (NaN as null).
 * - Table format: a header line per table (id, split, source, first stage), its description, then
 *   the rows with one aligned column per published column; each column keeps the decimals it was
 *   published with (the most any of its values has); `–` marks a value the source does not give.
 */
import { closest } from 'fastest-levenshtein';
import { UserError } from '../core/errors.js';
import { publishedPct } from '../report/cells.js';
import { columnDecimals, paperResults, paperTables, PAPER_SPLITS, type PaperSplit, type PaperTable } from '../paper/results.js';
import { correlateTableColumns } from '../paper/table-correlation.js';
import { correlationJson, renderTableCorrelation } from '../report/systems/correlation.js';
import { MAX_ITERATIONS } from '../pipeline/config.js';

export interface PaperOptions {
  /** `v1.1` or `v1.0`; all splits when absent. */
  split?: string;
  /** A table id; every table of the split when absent. */
  table?: string;
  format?: 'table' | 'json';
  /** With `table`: the rank correlation of its two columns. */
  correlate?: boolean;
  /** Seed and resamples of the correlation's bootstrap (default 42, 10,000). */
  seed?: number;
  iterations?: number;
}

function pad(s: string, width: number, right: boolean): string {
  const n = [...s].length;
  if (n >= width) return s;
  return right ? ' '.repeat(width - n) + s : s + ' '.repeat(width - n);
}

/** One table as aligned text. */
export function formatPaperTable(t: PaperTable): string {
  const lines: string[] = [];
  const fs = t.first_stage ? `; reranking the top ${t.first_stage.depth ?? '?'} of ${t.first_stage.model}` : '';
  lines.push(`${t.id} (${t.split}): ${t.source}${fs}`);
  lines.push(t.description);
  const perRowFirstStage = t.rows.some((r) => r.first_stage !== undefined);
  const label = (r: PaperTable['rows'][number]) => (r.first_stage ? `${r.model} over ${r.first_stage.model}` : r.model);
  const decimals = t.columns.map((c) => columnDecimals(t, c));
  const cells = t.rows.map((r) => t.columns.map((c, j) => publishedPct(r.values[c], decimals[j]!)));
  const head = [perRowFirstStage ? 'Reranker over first stage' : 'Model', ...t.columns];
  const body = t.rows.map((r, i) => [label(r), ...cells[i]!]);
  const widths = head.map((h, j) => Math.max([...h].length, ...body.map((row) => [...row[j]!].length)));
  const line = (row: string[]) => row.map((c, j) => pad(c, widths[j]!, j > 0)).join('  ').trimEnd();
  lines.push('', line(head), ...body.map(line));
  return lines.join('\n') + '\n';
}

function checkSplit(split: string | undefined): PaperSplit | undefined {
  if (split === undefined) return undefined;
  const s = PAPER_SPLITS.find((x) => x === split);
  if (!s) throw new UserError(`--split: expected one of ${PAPER_SPLITS.join(', ')}, got "${split}"`);
  return s;
}

/** Returns the text to print. */
export async function paperCommand(o: PaperOptions): Promise<string> {
  const split = checkSplit(o.split);
  const format = o.format ?? 'table';
  let tables = paperTables(split);
  if (o.table !== undefined) {
    const all = paperTables();
    const t = all.find((x) => x.id === o.table);
    if (!t) {
      const ids = all.map((x) => x.id);
      throw new UserError(`--table: no published table "${o.table}" (did you mean "${closest(o.table, ids)}"? \`skillret-eval paper\` lists them all)`);
    }
    if (split !== undefined && t.split !== split) throw new UserError(`--table: "${t.id}" is a ${t.split} table, not ${split}: never compare v1.0 with v1.1`);
    tables = [t];
  }
  if (o.correlate) {
    if (o.table === undefined) throw new UserError('--correlate: needs --table <id> of a table with two columns (e.g. v1.0-mteb-vs-skillret, Table 15)');
    const seed = o.seed ?? 42;
    if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed: expected an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got ${String(seed)}`);
    const iterations = o.iterations ?? 10_000;
    if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) throw new UserError(`--iterations: expected an integer from 1 to ${MAX_ITERATIONS}, got ${String(iterations)}`);
    const c = correlateTableColumns(tables[0]!, { seed, iterations });
    return format === 'json' ? JSON.stringify(correlationJson(c), null, 2) + '\n' : renderTableCorrelation(c);
  }
  if (format === 'json') return JSON.stringify({ units: 'percent', tables }, null, 2) + '\n';

  const src = paperResults().source;
  const out: string[] = [];
  out.push('SkillRet published results (arXiv 2605.05726 and the official repository), percent as published.');
  out.push('v1.0 and v1.1 are different test splits: never compare their numbers.');
  if (o.table === undefined) {
    if (src['missing']) out.push(src['missing']);
    out.push('', `Tables${split ? ` (${split})` : ''}:`);
    const w = Math.max(...tables.map((t) => t.id.length));
    for (const t of tables) out.push(`  ${pad(t.id, w, false)}  ${t.split}  ${t.source}`);
  }
  for (const t of tables) out.push('', formatPaperTable(t).trimEnd());
  return out.join('\n') + '\n';
}
