/**
 * The SkillRet paper's published result tables as typed data, and lookups into them.
 *
 * The numbers live in `paper-results.json` next to this module: a byte-for-byte copy of the shared
 * `paper-results.json` (published numbers only), read once at runtime from this module's folder (the
 * build copies it into dist/ beside the compiled module, so the same file serves vitest, the CLI and an
 * installed package) and checked against the schema below.
 *
 * Units: every value is a percentage exactly as published (fractions ×100; most tables 2 decimals,
 * paper Tables 6 and 16 one decimal, the BM25 golden dict three). Table ids, splits and column names
 * are the file's own. v1.0 and v1.1 are different test splits: never compare their numbers.
 *
 * Model names are matched explicitly (docs/protocol.md §7 rule 3): a name matches a row or first stage when it
 * equals, ignoring case, its paper name (`model`), its public hub id (`hf_id`) or its review-copy id
 * (`hf_review_id`); never by substring.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export type PaperSplit = 'v1.0' | 'v1.1';
export const PAPER_SPLITS: readonly PaperSplit[] = ['v1.1', 'v1.0'];

const modelRef = z.object({
  model: z.string().min(1),
  hf_id: z.string().min(1).nullable(),
  hf_review_id: z.string().min(1).optional(),
  /** Rerank tables: how many first-stage candidates were reranked. */
  depth: z.number().int().positive().optional(),
});

const finite = z.number(); // zod 4 numbers are finite

const rowSchema = z.looseObject({
  model: z.string().min(1),
  params: z.string().nullable(),
  hf_id: z.string().min(1).nullable(),
  hf_review_id: z.string().min(1).optional(),
  /** Short label used in the paper's text ("Base", "Trained"). */
  label: z.string().optional(),
  /** Per-row first stage (only in a table whose first stage differs by row). */
  first_stage: modelRef.optional(),
  values: z.record(z.string(), finite),
  relative_change_pct: z.record(z.string(), finite).optional(),
  /** The unrounded stored fractions, where the source gives them. */
  stored_fractions: z.record(z.string(), finite).optional(),
});

const tableSchema = z.looseObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
  split: z.enum(['v1.0', 'v1.1']),
  source: z.string().min(1),
  description: z.string().min(1),
  /** The single metric of a table whose columns are not metric keys (e.g. NDCG@10 at depths k=10/20/50). */
  metric: z.string().optional(),
  /** The first stage a rerank table reranks (null: the rows are first stages themselves). */
  first_stage: modelRef.nullable(),
  columns: z.array(z.string().min(1)).min(1),
  rows: z.array(rowSchema).min(1),
  published_deltas: z.record(z.string(), z.record(z.string(), finite)).optional(),
  sub_categories: z.array(z.object({ major: z.string(), sub: z.string(), n_queries: z.number().int() })).optional(),
});

const fileSchema = z.object({
  source: z.record(z.string(), z.string()),
  tables: z.array(tableSchema).min(1),
});

export type PaperModelRef = z.infer<typeof modelRef>;
export type PaperRow = z.infer<typeof rowSchema>;
export type PaperTable = z.infer<typeof tableSchema>;
export interface PaperResults {
  /** The file's provenance notes (paper, official code, units, splits, rounding, missing values …). */
  source: Record<string, string>;
  tables: PaperTable[];
}

/** A row found by a lookup, with the table it belongs to. */
export interface PaperRowMatch {
  table: PaperTable;
  row: PaperRow;
  /**
   * A single-metric table whose columns are settings rather than metrics (paper Table 11's
   * `Name+Desc`): the one column that applies to the run; its value is the table's `metric`.
   */
  column?: string;
}

/** The document text of a run: the fields joined and the separator (config `dataset.text`). */
export interface DocumentText {
  fields: readonly string[];
  separator: string;
}

/**
 * Published first-stage rows measured with another document text than the protocol's: the table,
 * the text and the column holding the values. Paper Table 11 (`v1.0-document-fields`): documents
 * "name | description" (no SKILL.md body) in column `Name+Desc`; its `Full` column repeats Table 3.
 */
export const DOCUMENT_TEXT_TABLES: readonly { table: string; text: DocumentText; column: string }[] = [
  { table: 'v1.0-document-fields', text: { fields: ['name', 'description'], separator: ' | ' }, column: 'Name+Desc' },
];

function sameText(a: DocumentText, b: DocumentText): boolean {
  return a.separator === b.separator && a.fields.length === b.fields.length && a.fields.every((f, i) => f === b.fields[i]);
}

/** Where the published numbers are read from. */
export function paperResultsPath(): string {
  return fileURLToPath(new URL('./paper-results.json', import.meta.url));
}

/** Checks parsed JSON against the schema and the file's invariants; throws on a malformed file. */
export function parsePaperResults(value: unknown, file = 'paper-results.json'): PaperResults {
  const res = fileSchema.safeParse(value);
  if (!res.success) {
    const i = res.error.issues[0]!;
    throw new Error(`${file}: ${i.path.join('.')}: ${i.message}`);
  }
  const ids = new Set<string>();
  for (const t of res.data.tables) {
    if (ids.has(t.id)) throw new Error(`${file}: duplicate table id ${t.id}`);
    ids.add(t.id);
    for (const r of t.rows) {
      for (const k of Object.keys(r.values)) {
        if (!t.columns.includes(k)) throw new Error(`${file}: table ${t.id}, row ${r.model}: value for ${k}, which is not a column`);
      }
    }
  }
  return res.data;
}

let cached: PaperResults | undefined;

/** The published tables (read and validated once). */
export function paperResults(): PaperResults {
  if (cached) return cached;
  const file = paperResultsPath();
  return (cached = parsePaperResults(JSON.parse(readFileSync(file, 'utf8')) as unknown, file));
}

/** All tables, or those of one split, in file order. */
export function paperTables(split?: PaperSplit): PaperTable[] {
  return paperResults().tables.filter((t) => split === undefined || t.split === split);
}

export function findPaperTable(id: string): PaperTable | undefined {
  return paperResults().tables.find((t) => t.id === id);
}

/** `NDCG@10`, `Recall@5`, … : a column that is one of the evaluation's metric keys. */
export function isMetricColumn(column: string): boolean {
  return /^(NDCG|MAP|Recall|Precision|Completeness)@[1-9][0-9]*$/.test(column);
}

/** True when `name` is this model (paper name, hub id or review id; case-insensitive, whole string). */
export function sameModel(ref: { model: string; hf_id: string | null; hf_review_id?: string | undefined }, name: string): boolean {
  const n = name.trim().toLowerCase();
  if (n === '') return false;
  return [ref.model, ref.hf_id, ref.hf_review_id].some((x) => typeof x === 'string' && x.toLowerCase() === n);
}

/** A table of first-stage results: no first stage of its own and only metric-key columns. */
function isFirstStageTable(t: PaperTable): boolean {
  return t.first_stage === null && t.columns.every(isMetricColumn) && t.rows.every((r) => r.first_stage === undefined);
}

/**
 * Every published row for a model on a split, in file order.
 * - Without a reranker (or `none`): rows of first-stage tables (no first stage, metric-key columns),
 *   e.g. `v1.1-embedding`; BM25 is the row named `BM25`.
 * - With a reranker: rows naming that reranker in a rerank table over the given first stage, either
 *   the table's own `first_stage` (paper Table 4) or the row's (paper Table 10).
 * - A first stage with a document `text` that a published ablation used (`DOCUMENT_TEXT_TABLES`:
 *   "name | description", paper Table 11) gets that table's row first, with its column.
 */
export function findPaperRows(split: PaperSplit, modelName: string, reranker?: string, text?: DocumentText): PaperRowMatch[] {
  const out: PaperRowMatch[] = [];
  const firstStageOnly = reranker === undefined || reranker === 'none';
  if (firstStageOnly && text !== undefined) {
    for (const d of DOCUMENT_TEXT_TABLES) {
      const table = paperTables(split).find((t) => t.id === d.table);
      if (!table || !sameText(d.text, text)) continue;
      for (const row of table.rows) if (sameModel(row, modelName) && row.values[d.column] !== undefined) out.push({ table, row, column: d.column });
    }
  }
  for (const table of paperTables(split)) {
    if (firstStageOnly) {
      if (!isFirstStageTable(table)) continue;
      for (const row of table.rows) if (sameModel(row, modelName)) out.push({ table, row });
    } else {
      for (const row of table.rows) {
        const fs = row.first_stage ?? table.first_stage;
        if (fs && sameModel(fs, modelName) && sameModel(row, reranker)) out.push({ table, row });
      }
    }
  }
  return out;
}

/** The first published row for a model (and reranker) on a split; see `findPaperRows`. */
export function findPaperRow(split: PaperSplit, modelName: string, reranker?: string): PaperRowMatch | undefined {
  return findPaperRows(split, modelName, reranker)[0];
}

/** Digits after the decimal point of a number as JSON writes it (49.9 -> 1, 51.69 -> 2, 53 -> 0). */
function decimalsOf(v: number): number {
  const s = String(v);
  if (/e/i.test(s)) return 2;
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}

/**
 * The decimals a column was published with: the most any of its values has, at least 1 (JSON drops
 * trailing zeros: 49.90 is stored as 49.9, so a column is read as a whole).
 */
export function columnDecimals(table: PaperTable, column: string): number {
  return Math.max(1, ...table.rows.map((r) => (r.values[column] === undefined ? 0 : decimalsOf(r.values[column]!))));
}

/**
 * The published values of a matched row as metric key -> {value (percent), column it came from}, for
 * a run that reranked `depth` candidates (undefined for a first-stage run).
 * - Metric-key columns are taken as they are; a rerank table that names its depth only applies to
 *   runs of that depth.
 * - A single-metric table with depth columns (`k=10`, `k=20`, …) gives its metric at `k=<depth>`.
 * - A match with a `column` (paper Table 11) gives the table's metric from that column alone.
 * Other columns (categories, `Embed only`, MTEB scores) are not metrics of a run: left out.
 */
export function publishedCells(m: PaperRowMatch, depth?: number): Record<string, { value: number; column: string }> {
  const { table, row } = m;
  const out: Record<string, { value: number; column: string }> = {};
  const fs = row.first_stage ?? table.first_stage;
  if (fs?.depth !== undefined && fs.depth !== depth) return out;
  if (m.column !== undefined) {
    const value = row.values[m.column];
    if (value !== undefined && table.metric !== undefined && isMetricColumn(table.metric)) out[table.metric] = { value, column: m.column };
    return out;
  }
  for (const column of table.columns) {
    const value = row.values[column];
    if (value === undefined) continue;
    if (isMetricColumn(column)) out[column] = { value, column };
    else if (table.metric !== undefined && isMetricColumn(table.metric) && depth !== undefined && column === `k=${depth}`) out[table.metric] = { value, column };
  }
  return out;
}

/** `publishedCells` as metric key -> percent. */
export function publishedMetrics(m: PaperRowMatch, depth?: number): Record<string, number> {
  return Object.fromEntries(Object.entries(publishedCells(m, depth)).map(([k, c]) => [k, c.value]));
}
