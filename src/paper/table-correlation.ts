/**
 * The rank correlation of a published table's two columns (`skillret-eval paper --table <id>
 * --correlate`): Spearman ρ and Kendall τ-b over the rows that give both values, with bootstrap
 * intervals over the rows (stats/rank-correlation.ts), beside the correlation the paper states for
 * that table, if any. Table 15 (`v1.0-mteb-vs-skillret`, MTEB Retrieval vs SkillRet v1.0 NDCG@10)
 * states Spearman ρ = 0.71; its own two columns give 0.7011 (scipy.stats.spearmanr agrees), 0.70
 * at the published two decimals, so the published value does not follow from the published
 * columns (a difference of one adjacent swap in the ranks: Σd² = 134 instead of 136 gives 0.7055).
 */
import { UserError } from '../core/errors.js';
import { deriveSeed } from '../stats/rng.js';
import { rankCorrelation, type RankCorrelation } from '../stats/rank-correlation.js';
import { columnDecimals, type PaperTable } from './results.js';

/** A correlation the paper states for a table: its value, the decimals it was printed with, where. */
export interface PublishedCorrelation {
  spearman: number;
  decimals: number;
  where: string;
}

/** The correlations the paper states, by table id. */
export const PUBLISHED_CORRELATIONS: Readonly<Record<string, PublishedCorrelation>> = {
  'v1.0-mteb-vs-skillret': { spearman: 0.71, decimals: 2, where: 'stated with Table 15 (Appendix J)' },
};

export interface TableCorrelation {
  table: string;
  source: string;
  /** The two columns, x then y, and the decimals each was published with. */
  columns: [string, string];
  decimals: [number, number];
  rows: { model: string; x: number; y: number }[];
  /** Rows without a value in one of the columns (left out). */
  skipped: string[];
  seed: number;
  result: RankCorrelation;
  published?: PublishedCorrelation;
}

/** ρ and τ-b of the table's two columns (see the module comment); UserError unless it has exactly two. */
export function correlateTableColumns(t: PaperTable, o: { seed: number; iterations: number }): TableCorrelation {
  if (t.columns.length !== 2) {
    throw new UserError(`--correlate: table "${t.id}" has ${t.columns.length} columns (${t.columns.join(', ')}); a correlation needs a table of two, e.g. v1.0-mteb-vs-skillret`);
  }
  const [cx, cy] = t.columns as [string, string];
  const rows: TableCorrelation['rows'] = [];
  const skipped: string[] = [];
  for (const r of t.rows) {
    const x = r.values[cx];
    const y = r.values[cy];
    if (x === undefined || y === undefined) skipped.push(r.model);
    else rows.push({ model: r.model, x, y });
  }
  if (rows.length < 3) throw new UserError(`--correlate: table "${t.id}" has ${rows.length} rows with both values; a rank correlation needs 3 or more`);
  const result = rankCorrelation(
    rows.map((r) => r.x),
    rows.map((r) => r.y),
    { seed: deriveSeed(o.seed, 'rank-correlation'), iterations: o.iterations },
  );
  const published = PUBLISHED_CORRELATIONS[t.id];
  return { table: t.id, source: t.source, columns: [cx, cy], decimals: [columnDecimals(t, cx), columnDecimals(t, cy)], rows, skipped, seed: o.seed, result, ...(published ? { published } : {}) };
}
