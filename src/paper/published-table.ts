/**
 * `compare --paper`: a whole published table with the rows some compared runs reproduce. Input: each
 * run's `paper` block of metrics.json (table id, row, first stage, depth) and its stored metrics.
 * For every table a run names, every published row in file order; under each reproduced row, one
 * line per run: yours (official printed percentage), Δ = yours − published (points, the difference
 * of the printed numbers) and the verdict per column (paper/verdict.ts).
 */
import { percentDeltaFromPublished } from '../metrics/official-percent.js';
import { findPaperTable, isMetricColumn, type PaperTable } from './results.js';
import { verdictOf, type Tolerances, type Verdict } from '../metrics/verdict.js';

export interface PaperClaim {
  label: string;
  table: string;
  row: string;
  firstStage?: string;
  depth?: number;
  /** A settings column of a single-metric table (Table 11's `Name+Desc`): the one column the run stands for. */
  column?: string;
  /** metrics.json `metrics`: fractions. */
  metrics: Record<string, number>;
}

export interface ReproducedCell {
  column: string;
  metric: string;
  yours: number;
  published: number;
  delta: number;
  verdict: Verdict;
}

export interface ReproducedLine {
  label: string;
  cells: ReproducedCell[];
}

export interface PublishedTableView {
  table: PaperTable;
  rows: { model: string; params: string | null; firstStage?: string; values: Record<string, number>; reproduced: ReproducedLine[] }[];
}

/** Reads the claim out of one run's metrics.json (undefined: no `paper` block). */
export function paperClaim(label: string, metricsJson: Record<string, unknown> | undefined): PaperClaim | undefined {
  const p = metricsJson?.paper as Record<string, unknown> | undefined;
  const m = metricsJson?.metrics as Record<string, unknown> | undefined;
  if (!p || typeof p.table !== 'string' || typeof p.row !== 'string' || !m) return undefined;
  const metrics = Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
  return {
    label,
    table: p.table,
    row: p.row,
    ...(typeof p.first_stage === 'string' ? { firstStage: p.first_stage } : {}),
    ...(typeof p.depth === 'number' ? { depth: p.depth } : {}),
    ...(typeof p.column === 'string' ? { column: p.column } : {}),
    metrics,
  };
}

function metricOf(table: PaperTable, column: string, depth: number | undefined, claimed?: string): string | undefined {
  if (claimed !== undefined) return column === claimed && table.metric !== undefined && isMetricColumn(table.metric) ? table.metric : undefined;
  if (isMetricColumn(column)) return column;
  if (table.metric !== undefined && depth !== undefined && column === `k=${depth}`) return table.metric;
  return undefined;
}

export function publishedTables(claims: readonly PaperClaim[], t: Tolerances): PublishedTableView[] {
  const ids = [...new Set(claims.map((c) => c.table))];
  const out: PublishedTableView[] = [];
  for (const id of ids) {
    const table = findPaperTable(id);
    if (!table) continue;
    const rows = table.rows.map((row) => {
      const fs = row.first_stage ?? table.first_stage ?? undefined;
      const mine = claims.filter((c) => c.table === id && c.row === row.model && (c.firstStage === undefined || fs === undefined || c.firstStage === fs.model));
      const reproduced = mine.map((c) => ({
        label: c.label,
        cells: table.columns.flatMap((column) => {
          const metric = metricOf(table, column, c.depth, c.column);
          const published = row.values[column];
          const yours = metric === undefined ? undefined : c.metrics[metric];
          if (metric === undefined || published === undefined || yours === undefined) return [];
          const delta = percentDeltaFromPublished(yours, published);
          return [{ column, metric, yours, published, delta, verdict: verdictOf(delta, t) }];
        }),
      }));
      return { model: row.model, params: row.params, ...(fs && row.first_stage ? { firstStage: fs.model } : {}), values: row.values, reproduced };
    });
    out.push({ table, rows });
  }
  return out;
}

export interface ClaimVerdicts {
  label: string;
  table: string;
  row: string;
  firstStage?: string;
  depth?: number;
  cells: ReproducedCell[];
}

/** Each claim against its own published row: yours, published, Δ and verdict per metric. */
export function claimVerdicts(claims: readonly PaperClaim[], t: Tolerances): ClaimVerdicts[] {
  return claims.flatMap((c) => {
    const table = findPaperTable(c.table);
    const row = table?.rows.find((r) => r.model === c.row && (c.firstStage === undefined || (r.first_stage ?? table.first_stage)?.model === c.firstStage));
    if (!table || !row) return [];
    const cells = table.columns.flatMap((column) => {
      const metric = metricOf(table, column, c.depth, c.column);
      const published = row.values[column];
      const yours = metric === undefined ? undefined : c.metrics[metric];
      if (metric === undefined || published === undefined || yours === undefined) return [];
      const delta = percentDeltaFromPublished(yours, published);
      return [{ column, metric, yours, published, delta, verdict: verdictOf(delta, t) }];
    });
    return [{ label: c.label, table: c.table, row: c.row, ...(c.firstStage !== undefined ? { firstStage: c.firstStage } : {}), ...(c.depth !== undefined ? { depth: c.depth } : {}), cells }];
  });
}
