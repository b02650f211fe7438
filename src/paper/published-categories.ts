/**
 * Paper Tables 6 and 16 next to an experiment's own per-category results (pinned releases only):
 * the published per-category cells paired with the same cuts of the summary's query slices
 * (metrics/query-slices.ts, `report.category_rule`), and the check that proves the category rule on
 * the data: the sub-category group sizes against Table 16's `n_queries`.
 *
 * - Which runs: first-stage runs (reranker `none`) that published-vs-measured.ts paired with a row
 *   of a first-stage table (Table 3 on v1.0) and whose paper model has a row in a per-category
 *   table of the same release version (`CATEGORY_TABLES`).
 * - Cells: Table 6's columns are major categories of its `metric` (NDCG@10) plus `Overall` (the
 *   run's mean over every query); Table 16's are `<metric> <sub-category>`. Yours = the group's
 *   mean of the slice under the report's category rule, Δ = yours (official printed percentage) −
 *   published, in points, and the verdict (metrics/verdict.ts), exactly as the per-run pairing; the
 *   published value keeps its column's decimals (one, in both tables). A published category with no
 *   group in the data has no yours and no verdict (it counts as FAIL: the data does not match).
 * - Group sizes: for each table with `sub_categories`, each sub-category's evaluated queries under
 *   each rule (each_gold, primary_gold) against its `n_queries`, plus groups of the data the table
 *   does not have. The report's rule is the one the cells use; the other is computed so the
 *   summary can say which rule the published sizes follow.
 */
import { percentDeltaFromPublished } from '../metrics/official-percent.js';
import { CATEGORY_RULES, querySlices, sliceGroups, type CategoryRule, type SliceData } from '../metrics/query-slices.js';
import { verdictOf, worstVerdict, type Tolerances, type Verdict } from '../metrics/verdict.js';
import { columnDecimals, isMetricColumn, paperTables, type PaperSplit, type PaperTable } from './results.js';

/** The published per-category tables and the slice each one cuts by. */
export const CATEGORY_TABLES: readonly { table: string; slice: 'major' | 'sub' }[] = [
  { table: 'v1.0-per-major-ndcg10', slice: 'major' },
  { table: 'v1.0-per-sub-category', slice: 'sub' },
];

/** The column of a per-category table that is the whole run, not a category. */
export const OVERALL_COLUMN = 'Overall';

export interface CategoryCell {
  column: string;
  /** The category (or `Overall`). */
  category: string;
  metric: string;
  /** Evaluated queries in the group (the whole run for `Overall`); undefined: no such group in the data. */
  queries: number | undefined;
  /** The group's mean (fraction, unrounded); undefined: no such group. */
  yours: number | undefined;
  /** Percent, as published. */
  published: number;
  /** Its column's published decimals. */
  decimals: number;
  /** Points, yours (printed) − published; undefined without yours. */
  delta: number | undefined;
  verdict: Verdict;
}

export interface CategoryRunComparison {
  retriever: string;
  reranker: string;
  table: string;
  source: string;
  /** The published row's model. */
  row: string;
  slice: 'major' | 'sub';
  cells: CategoryCell[];
  verdict: Verdict;
}

export interface GroupSizeRow {
  major: string;
  sub: string;
  published: number;
  /** Evaluated queries of the sub-category under each rule. */
  yours: Record<CategoryRule, number>;
}

export interface GroupSizeCheck {
  table: string;
  /** The report's rule (the one the cells use). */
  rule: CategoryRule;
  /** Evaluated queries. */
  queries: number;
  rows: GroupSizeRow[];
  /** Groups of the data (under the report's rule) the table does not list, with their sizes. */
  unlisted: { group: string; queries: number }[];
  publishedTotal: number;
  /** Sum of the group sizes under each rule (listed groups only). */
  totals: Record<CategoryRule, number>;
  /** Whether every listed size equals the published one under the rule (and no group is unlisted). */
  match: Record<CategoryRule, boolean>;
}

export interface CategoryPairing {
  rule: CategoryRule;
  runs: CategoryRunComparison[];
  sizes: GroupSizeCheck[];
  /** The worst verdict over the cells (OK when none). */
  verdict: Verdict;
}

/** What the pairing reads of one run. */
export interface CategoryRunInput {
  retriever: string;
  reranker: string;
  /** The published model row it was paired with (published-vs-measured.ts), for first-stage runs. */
  paperRow: string;
  perQuery: ReadonlyMap<string, Readonly<Record<string, number>>>;
  aggregate: Readonly<Record<string, number>>;
}

/** `NDCG@10 Development` → [NDCG@10, Development]; a plain column → the table's metric and the column. */
export function categoryColumn(table: PaperTable, column: string): { metric: string; category: string } | undefined {
  const m = /^(\S+@\d+) (.+)$/.exec(column);
  if (m && isMetricColumn(m[1]!)) return { metric: m[1]!, category: m[2]! };
  if (table.metric !== undefined && isMetricColumn(table.metric)) return { metric: table.metric, category: column };
  return undefined;
}

function sizeCheck(data: SliceData, evaluated: readonly string[], table: PaperTable, rule: CategoryRule): GroupSizeCheck | undefined {
  const subs = table.sub_categories;
  if (!subs || subs.length === 0) return undefined;
  const perQuery = new Map(evaluated.map((q) => [q, {}]));
  const sizes = new Map<CategoryRule, Map<string, number>>();
  for (const r of CATEGORY_RULES) {
    const def = querySlices(data, evaluated, r).find((s) => s.name === 'sub')!;
    sizes.set(r, new Map([...sliceGroups(def, perQuery, [])].map(([g, s]) => [g, s.queries])));
  }
  const of = (r: CategoryRule, sub: string) => sizes.get(r)!.get(sub) ?? 0;
  const rows = subs.map((s) => ({ major: s.major, sub: s.sub, published: s.n_queries, yours: Object.fromEntries(CATEGORY_RULES.map((r) => [r, of(r, s.sub)])) as Record<CategoryRule, number> }));
  const listed = new Set(subs.map((s) => s.sub));
  const unlistedOf = (r: CategoryRule) => [...sizes.get(r)!].filter(([g]) => !listed.has(g)).map(([group, queries]) => ({ group, queries }));
  return {
    table: table.id,
    rule,
    queries: evaluated.length,
    rows,
    unlisted: unlistedOf(rule),
    publishedTotal: subs.reduce((a, s) => a + s.n_queries, 0),
    totals: Object.fromEntries(CATEGORY_RULES.map((r) => [r, rows.reduce((a, x) => a + x.yours[r], 0)])) as Record<CategoryRule, number>,
    match: Object.fromEntries(CATEGORY_RULES.map((r) => [r, rows.every((x) => x.yours[r] === x.published) && unlistedOf(r).length === 0])) as Record<CategoryRule, boolean>,
  };
}

/**
 * The per-category pairing of a pinned release's experiment, or undefined when the release version
 * has no per-category table. `evaluated`: the ids the runs were scored on (the group sizes are
 * counted over them); `runs`: the first-stage runs already paired with a first-stage row.
 */
export function categoryPairing(
  data: SliceData,
  evaluated: readonly string[],
  runs: readonly CategoryRunInput[],
  version: PaperSplit,
  rule: CategoryRule,
  tolerances: Tolerances,
): CategoryPairing | undefined {
  const tables = CATEGORY_TABLES.flatMap((c) => {
    const t = paperTables(version).find((x) => x.id === c.table);
    return t ? [{ table: t, slice: c.slice }] : [];
  });
  if (tables.length === 0) return undefined;
  const defs = querySlices(data, evaluated, rule);
  const out: CategoryRunComparison[] = [];
  for (const run of runs) {
    for (const { table, slice } of tables) {
      const row = table.rows.find((r) => r.model === run.paperRow);
      if (!row) continue;
      const columns = table.columns.flatMap((column) => {
        const c = categoryColumn(table, column);
        return c && row.values[column] !== undefined ? [{ column, ...c }] : [];
      });
      const keys = [...new Set(columns.map((c) => c.metric))].filter((k) => run.aggregate[k] !== undefined);
      const groups = sliceGroups(defs.find((d) => d.name === slice)!, run.perQuery, keys);
      const cells: CategoryCell[] = [];
      for (const { column, metric, category } of columns) {
        if (!keys.includes(metric)) continue;
        const published = row.values[column]!;
        const overall = category === OVERALL_COLUMN;
        const g = overall ? undefined : groups.get(category);
        const yours = overall ? run.aggregate[metric] : g?.metrics[metric];
        const queries = overall ? run.perQuery.size : g?.queries;
        const delta = yours === undefined ? undefined : percentDeltaFromPublished(yours, published);
        cells.push({ column, category, metric, queries, yours, published, decimals: columnDecimals(table, column), delta, verdict: delta === undefined ? 'FAIL' : verdictOf(delta, tolerances) });
      }
      if (cells.length === 0) continue;
      out.push({ retriever: run.retriever, reranker: run.reranker, table: table.id, source: table.source, row: row.model, slice, cells, verdict: worstVerdict(cells.map((c) => c.verdict)) });
    }
  }
  const sizes = tables.flatMap(({ table }) => {
    const s = sizeCheck(data, evaluated, table, rule);
    return s ? [s] : [];
  });
  return { rule, runs: out, sizes, verdict: worstVerdict(out.map((r) => r.verdict)) };
}
