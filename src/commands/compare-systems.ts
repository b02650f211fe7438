/**
 * `skillret-eval compare <results folder | run folder | per-query.jsonl>…`: the many-system
 * comparison table (src/comparison/systems.ts) from results files only; never loads a model.
 *
 * Checks every flag before reading anything big; refuses runs scored on different queries or qrels
 * (naming the first difference) unless --common-queries; the metrics are --measures (default: the
 * NDCG, Recall and Completeness keys of the first run, by k), each must be in every record.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { UserError, where } from '../core/errors.js';
import { compareSystems, TESTS, type SystemsComparison, type TestName } from '../significance/systems.js';
import { resolveQuerySet } from '../significance/query-set.js';
import { collectRuns, type RunFolder } from '../formats/results-reader.js';
import { CORRECTIONS, type Correction } from '../stats/correction.js';
import { renderComparisonText } from '../report/systems/text.js';
import { renderComparisonMarkdown } from '../report/systems/markdown.js';
import { renderComparisonLatex } from '../report/systems/latex.js';
import { renderComparisonCsv } from '../report/systems/csv.js';
import { renderComparisonJsonMany } from '../report/systems/json.js';
import { writeFileAtomic } from '../util/atomic.js';
import { claimVerdicts, paperClaim, publishedTables, type PaperClaim } from '../paper/published-table.js';
import { DEFAULT_TOLERANCES, type Tolerances } from '../metrics/verdict.js';
import { renderPublishedTables, renderVerdicts } from '../report/systems/paper.js';
import { renderSliceComparison } from '../report/systems/slices.js';
import { compareBySlice, type SliceComparison } from '../analysis/slice-comparison.js';
import { CATEGORY_RULES, DEFAULT_CATEGORY_RULE, SLICE_NAMES, type CategoryRule, type SliceName } from '../metrics/slices.js';
import { readExplorerFiles, type QueryInfo, type SkillInfo } from '../formats/explorer-files.js';

export const FORMATS = ['table', 'md', 'latex', 'csv', 'json'] as const;
export type CompareFormat = (typeof FORMATS)[number];

export interface CompareSystemsOptions {
  paths: string[];
  format?: CompareFormat;
  out?: string;
  baseline?: string;
  measures?: string[];
  test?: TestName;
  alpha?: number;
  correction?: Correction;
  seed?: number;
  iterations?: number;
  commonQueries?: boolean;
  pairs?: 'all';
  /** Compare runs whose metrics.json name different dataset files anyway (refused otherwise). */
  allowDifferentData?: boolean;
  /** List the whole published tables the runs' counterparts belong to (instead of the comparison). */
  paper?: boolean;
  /** Count FAIL verdicts (the CLI exits 1 on any). */
  check?: boolean;
  okWithin?: number;
  closeWithin?: number;
  /** Compare inside each group of this query slice (metrics/slices.ts). */
  slice?: string;
  /** The major/sub slices' rule (default each_gold, the paper's). */
  categoryRule?: string;
}

const MAIN_NAMES = ['NDCG', 'Recall', 'Completeness'];

/** NDCG, Recall, Completeness keys of the first record, grouped by name then k; else every key. */
function defaultKeys(first: readonly string[]): string[] {
  const parsed = first.map((k) => ({ k, m: /^([A-Za-z]+)@(\d+)$/.exec(k) })).filter((x) => x.m && MAIN_NAMES.includes(x.m[1]!));
  if (parsed.length === 0) return [...first];
  return parsed.sort((a, b) => MAIN_NAMES.indexOf(a.m![1]!) - MAIN_NAMES.indexOf(b.m![1]!) || Number(a.m![2]) - Number(b.m![2])).map((x) => x.k);
}

function checkKeys(runs: readonly RunFolder[], keys: readonly string[]): void {
  for (const r of runs) {
    for (const [qid, rec] of r.records) {
      for (const k of keys) if (rec.metrics[k] === undefined) throw new UserError(`${where(r.file, r.line.get(qid), `metrics.${k}`)}missing (query ${JSON.stringify(qid)})`);
    }
  }
}

/** UserError when two runs' metrics.json name different dataset files (unless allowed). */
function checkSameData(runs: readonly RunFolder[], allow: boolean): void {
  if (allow) return;
  const filesOf = (r: RunFolder) => (r.metricsJson?.dataset as { files?: { role?: unknown; sha256?: unknown }[] } | undefined)?.files;
  const ref = runs.find((r) => Array.isArray(filesOf(r)));
  if (!ref) return;
  const a = filesOf(ref)!;
  for (const r of runs) {
    const b = filesOf(r);
    if (!Array.isArray(b)) continue;
    for (const role of [...new Set([...a, ...b].map((f) => String(f.role)))].sort()) {
      const x = String(a.find((f) => String(f.role) === role)?.sha256 ?? 'none');
      const y = String(b.find((f) => String(f.role) === role)?.sha256 ?? 'none');
      if (x !== y) {
        throw new UserError(`${ref.label} and ${r.label}: the runs are over different dataset files (${role}: sha256 ${x.slice(0, 12)}… vs ${y.slice(0, 12)}…); a paired comparison needs the same data (--allow-different-data to compare anyway)`);
      }
    }
  }
}

function findBaseline(runs: readonly RunFolder[], name: string | undefined): number {
  if (name === undefined) return 0;
  const byLabel = runs.findIndex((r) => r.label === name);
  if (byLabel >= 0) return byLabel;
  const abs = resolve(name);
  const byPath = runs.findIndex((r) => resolve(r.dir) === abs || resolve(r.file) === abs);
  if (byPath >= 0) return byPath;
  const suffix = runs.filter((r) => r.label.endsWith(name));
  if (suffix.length === 1) return runs.indexOf(suffix[0]!);
  throw new UserError(`--baseline: no compared run is ${JSON.stringify(name)} (runs: ${runs.map((r) => JSON.stringify(r.label)).join(', ')})`);
}

export interface CheckedOptions {
  format: CompareFormat;
  test: TestName;
  alpha: number;
  correction: Correction;
  seed: number;
  iterations: number;
  tolerances: Tolerances;
  slice?: SliceName;
  categoryRule: CategoryRule;
}

export function checkCompareOptions(o: CompareSystemsOptions): CheckedOptions {
  const format = o.format ?? 'table';
  if (!FORMATS.includes(format)) throw new UserError(`--format: expected one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  const test = o.test ?? 'randomization';
  if (!TESTS.includes(test)) throw new UserError(`--test: expected randomization or t, got ${JSON.stringify(test)}`);
  const correction = o.correction ?? 'holm';
  if (!CORRECTIONS.includes(correction)) throw new UserError(`--correction: expected one of ${CORRECTIONS.join(', ')}, got ${JSON.stringify(correction)}`);
  const alpha = o.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new UserError(`--alpha: expected a number between 0 and 1, got ${String(alpha)}`);
  const seed = o.seed ?? 42;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed: expected a non-negative integer, got ${String(seed)}`);
  const iterations = o.iterations ?? 10_000;
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > 1_000_000) throw new UserError(`--iterations: expected an integer from 1 to 1000000, got ${String(iterations)}`);
  if (o.pairs !== undefined && o.pairs !== 'all') throw new UserError(`--pairs: expected "all", got ${JSON.stringify(o.pairs)}`);
  const tolerances = { ok: o.okWithin ?? DEFAULT_TOLERANCES.ok, close: o.closeWithin ?? DEFAULT_TOLERANCES.close };
  if (!(tolerances.ok >= 0)) throw new UserError(`--ok-within: expected a non-negative number of points, got ${String(tolerances.ok)}`);
  if (!(tolerances.close >= tolerances.ok)) throw new UserError(`--close-within: expected a number of points ≥ the OK tolerance ${tolerances.ok}, got ${String(tolerances.close)}`);
  if (o.paper && (format === 'latex' || format === 'csv')) throw new UserError('--paper: use --format table, md or json');
  const slice = o.slice as SliceName | undefined;
  if (slice !== undefined && !SLICE_NAMES.includes(slice)) throw new UserError(`--slice: expected one of ${SLICE_NAMES.join(', ')}, got ${JSON.stringify(o.slice)}`);
  const categoryRule = (o.categoryRule ?? DEFAULT_CATEGORY_RULE) as CategoryRule;
  if (!CATEGORY_RULES.includes(categoryRule)) throw new UserError(`--category-rule: expected one of ${CATEGORY_RULES.join(', ')}, got ${JSON.stringify(o.categoryRule)}`);
  if (slice !== undefined && o.paper) throw new UserError('--slice: not with --paper (the published tables have no slices)');
  if (o.out !== undefined) {
    const dir = dirname(resolve(o.out));
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`--out: ${relative('.', dir) || dir}: no such folder`);
  }
  return { format, test, alpha, correction, seed, iterations, tolerances, categoryRule, ...(slice !== undefined ? { slice } : {}) };
}

/** Reads the runs, checks them, computes the comparison (and, with --slice, the comparison inside each group). */
export async function buildSystemsComparison(
  o: CompareSystemsOptions,
  c: CheckedOptions,
): Promise<{ runs: RunFolder[]; comparison: SystemsComparison; slices?: SliceComparison }> {
  const runs = await collectRuns(o.paths);
  const keys = o.measures ?? defaultKeys(runs[0]!.firstKeys);
  if (keys.length === 0) throw new UserError(`${runs[0]!.file}: no metric values to compare`);
  if (new Set(keys).size !== keys.length) throw new UserError(`--measures: a metric given twice in ${keys.join(',')}`);
  checkKeys(runs, keys);
  checkSameData(runs, o.allowDifferentData === true);
  const baseline = findBaseline(runs, o.baseline);
  const qs = resolveQuerySet(runs, o.commonQueries === true);
  const mainKey = keys.includes('NDCG@10') ? 'NDCG@10' : keys[0]!;
  const settings = { keys, mainKey, baseline, test: c.test, correction: c.correction, alpha: c.alpha, seed: c.seed, iterations: c.iterations, pairs: o.pairs === 'all' };
  const comparison = compareSystems(runs, qs, settings);
  if (c.slice === undefined) return { runs, comparison };
  const { queries, skills, source } = await sliceFiles(runs);
  const slices = compareBySlice(runs, qs, settings, { slice: c.slice, rule: c.categoryRule, queries, skills: skills.values(), source });
  return { runs, comparison, slices };
}

/** queries.jsonl and skills.jsonl of the runs' results folders (a run folder's is two levels up). */
async function sliceFiles(runs: readonly RunFolder[]): Promise<{ queries: Map<string, QueryInfo>; skills: Map<string, SkillInfo>; source: string }> {
  const queries = new Map<string, QueryInfo>();
  const skills = new Map<string, SkillInfo>();
  const dirs = [...new Set(runs.map((r) => r.resultsDir ?? dirname(dirname(r.dir))))];
  for (const d of dirs) await readExplorerFiles(d, queries, skills);
  return { queries, skills, source: dirs.join(', ') };
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

function claimsOf(runs: readonly RunFolder[]): PaperClaim[] {
  return runs.map((r) => paperClaim(r.label, r.metricsJson)).filter((x): x is PaperClaim => x !== undefined);
}

const countFails = (cells: readonly { verdict: string }[]) => cells.filter((c) => c.verdict === 'FAIL').length;

/**
 * The text for stdout (the rendering, or with --out one line saying where it went) and, with
 * --check, the number of FAIL verdicts among the runs with a published counterpart.
 */
export async function compareWithCheck(o: CompareSystemsOptions): Promise<{ text: string; failures: number }> {
  const c = checkCompareOptions(o);
  let text: string;
  let failures: number;
  let summary: string;
  if (o.paper) {
    const runs = await collectRuns(o.paths);
    const claims = claimsOf(runs);
    if (claims.length === 0) throw new UserError('--paper: no compared run has a published counterpart (a `paper` block in its metrics.json: pinned-release data and a paper model)');
    const views = publishedTables(claims, c.tolerances);
    failures = countFails(views.flatMap((v) => v.rows.flatMap((r) => r.reproduced.flatMap((l) => l.cells))));
    text =
      c.format === 'json'
        ? JSON.stringify({ tolerances: c.tolerances, tables: views.map((v) => ({ id: v.table.id, source: v.table.source, columns: v.table.columns, rows: v.rows })) }, null, 2) + '\n'
        : renderPublishedTables(views, c.tolerances, c.format === 'md' ? 'md' : 'table');
    summary = `${views.length} published table${views.length === 1 ? '' : 's'}, ${claims.length} reproduced row${claims.length === 1 ? '' : 's'}`;
  } else {
    const built = await buildSystemsComparison(o, c);
    const { runs, comparison } = built;
    const verdicts = claimVerdicts(claimsOf(runs), c.tolerances);
    if (o.check && verdicts.length === 0) throw new UserError('--check: no compared run has a published counterpart (a `paper` block in its metrics.json)');
    failures = countFails(verdicts.flatMap((v) => v.cells));
    const { slices } = built;
    text = slices ? renderSliceComparison(slices, c.format, (x) => renderSystemsComparison(x, c.format)) : renderSystemsComparison(comparison, c.format);
    if (verdicts.length && (c.format === 'table' || c.format === 'md')) text += `\n${renderVerdicts(verdicts, c.tolerances, c.format)}`;
    if (verdicts.length && c.format === 'json') text = JSON.stringify({ ...(JSON.parse(text) as object), paper: { tolerances: c.tolerances, runs: verdicts } }, null, 2) + '\n';
    summary = `${comparison.rows.length} runs, ${comparison.queries} queries${built.slices ? `, ${built.slices.groups.length} ${built.slices.slice} groups` : ''}`;
  }
  const failed = o.check ? failures : 0;
  if (o.out === undefined) return { text, failures: failed };
  writeFileAtomic(o.out, text);
  return { text: `wrote ${o.out} (${summary})\n`, failures: failed };
}

/** `compareWithCheck` without the check: what goes to stdout. */
export async function compareSystemsCommand(o: CompareSystemsOptions): Promise<string> {
  return (await compareWithCheck(o)).text;
}
