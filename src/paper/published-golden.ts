/**
 * Published rows that give the official result file's stored fractions (`stored_fractions`: the
 * mean rounded to 5 decimals, as the official code writes it), paired with a run at that precision:
 * the golden regression values (BM25's full metric dict on v1.0, `v1.0-bm25-full-metric-dict`).
 *
 * Which runs: a first-stage run (reranker `none`) paired by published-vs-measured.ts with a row of a
 * first-stage table, when another first-stage table of the same version has a row of the same model
 * with stored fractions. Per metric the run measured: yours = its official stored fraction
 * (`round(mean, 5)`), Δ = yours − published in points (exact in units of 1e-5, so 3 decimals),
 * `exact` when the two stored fractions are equal, and the verdict by the report's tolerances.
 */
import { officialFraction } from '../metrics/official-percent.js';
import { verdictOf, worstVerdict, type Tolerances, type Verdict } from '../metrics/verdict.js';
import { isMetricColumn, paperTables, type PaperSplit } from './results.js';

export interface GoldenCell {
  metric: string;
  /** round(mean, 5). */
  yours: number;
  /** The published stored fraction. */
  published: number;
  /** Points (yours − published) × 100, 3 decimals. */
  delta: number;
  exact: boolean;
  verdict: Verdict;
}

export interface GoldenComparison {
  retriever: string;
  reranker: string;
  table: string;
  source: string;
  row: string;
  cells: GoldenCell[];
  /** How many cells are exact. */
  exact: number;
  verdict: Verdict;
}

/** The golden rows a first-stage run paired with `paperRow` (a first-stage table's row) matches. */
export function goldenComparisons(
  runs: readonly { retriever: string; reranker: string; paperRow: string; aggregate: Readonly<Record<string, number>> }[],
  version: PaperSplit,
  tolerances: Tolerances,
): GoldenComparison[] {
  const out: GoldenComparison[] = [];
  for (const run of runs) {
    for (const table of paperTables(version)) {
      if (table.first_stage !== null || !table.columns.every(isMetricColumn)) continue;
      const row = table.rows.find((r) => r.model === run.paperRow && r.stored_fractions !== undefined);
      if (!row) continue;
      const cells: GoldenCell[] = [];
      for (const metric of table.columns) {
        const published = row.stored_fractions![metric];
        const mean = run.aggregate[metric];
        if (published === undefined || mean === undefined || Number.isNaN(mean)) continue;
        const yours = officialFraction(mean);
        const units = Math.round(yours * 1e5) - Math.round(published * 1e5);
        const delta = units === 0 ? 0 : units / 1000;
        cells.push({ metric, yours, published, delta, exact: units === 0, verdict: verdictOf(delta, tolerances) });
      }
      if (cells.length === 0) continue;
      out.push({ retriever: run.retriever, reranker: run.reranker, table: table.id, source: table.source, row: row.model, cells, exact: cells.filter((c) => c.exact).length, verdict: worstVerdict(cells.map((c) => c.verdict)) });
    }
  }
  return out;
}
