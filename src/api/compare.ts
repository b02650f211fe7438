/**
 * Library verb: the one comparison of any number of finished runs (ranx's `compare`), from their
 * results files alone (never re-runs a model). `skillret-eval compare` renders what this returns.
 *
 * Two runs are the N = 2 case: the second against the first (the baseline), with every metric's Δ,
 * both paired tests (randomisation and t), the corrected p, the bootstrap CI, W/T/L per query and
 * the queries it lost most on the main metric; more runs add the column best, the runs not
 * separable from it and, with `pairs`, every pairwise test on the main metric
 * (significance/systems.ts computes the value; renderers only format it).
 *
 * - Each path is a results folder (all its runs), a run folder or a per-query.jsonl file.
 * - Metrics: `measures` if given, else the NDCG, Recall and Completeness keys of the first run
 *   (metrics/measures.ts `defaultComparedKeys`); each must be in every record. The main metric is
 *   `mainKey` of the same module.
 * - Runs scored over different dataset files (their metrics.json say so) are refused unless
 *   `allowDifferentData`; runs scored on different queries or judgements are refused unless
 *   `commonQueries` (then compared on the queries they share).
 * - `correlate`: a CSV of another benchmark's scores per model (formats/benchmark-scores.ts), read and
 *   checked before any run is; each row is paired with a compared run and Spearman ρ / Kendall τ-b of
 *   the main metric against it are computed with bootstrap intervals over the runs (seeded by `seed`,
 *   `iterations` resamples; analysis/benchmark-correlation.ts says how rows and runs are matched).
 * - Every option is checked here, before anything is read, exactly as the CLI checks its flags.
 */
import { dirname, join, resolve } from 'node:path';
import { UserError, where } from '../core/errors.js';
import { compareBySlice, type SliceComparison } from '../analysis/slice-comparison.js';
import { correlateWithBenchmark, type BenchmarkCorrelation } from '../analysis/benchmark-correlation.js';
import { readBenchmarkScores, type BenchmarkScores } from '../formats/benchmark-scores.js';
import { readExplorerFiles, type QueryInfo, type SkillInfo } from '../formats/explorer-files.js';
import { collectRuns, type RunFolder } from '../formats/results-reader.js';
import { defaultComparedKeys, mainKey } from '../metrics/measures.js';
import { CATEGORY_RULES, DEFAULT_CATEGORY_RULE, SLICE_NAMES, type CategoryRule, type SliceName } from '../metrics/query-slices.js';
import { DEFAULT_TOLERANCES, type Tolerances } from '../metrics/verdict.js';
import { claimVerdicts, paperClaim, publishedTables, type ClaimVerdicts, type PaperClaim, type PublishedTableView } from '../paper/published-table.js';
import { resolveQuerySet } from '../significance/query-set.js';
import { compareSystems, TESTS, type SystemsComparison, type TestName } from '../significance/systems.js';
import { CORRECTIONS, type Correction } from '../stats/correction.js';
import { MAX_ITERATIONS } from '../pipeline/config.js';
import { checkOutFile } from '../util/out-file.js';

export const DEFAULT_SEED = 42;
export const DEFAULT_ITERATIONS = 10_000;

export interface CompareOptions {
  /** The run every other is compared with: its label (e.g. `bm25/none`) or folder (default: the first). */
  baseline?: string;
  /** Metrics to compare (default: NDCG, Recall and Completeness at each k of the first run). */
  measures?: readonly string[];
  /** Paired test behind the significance marks and corrected p (default randomization; both are always reported). */
  test?: TestName;
  alpha?: number;
  correction?: Correction;
  /** Seed of the randomisation test and the bootstrap (default 42). */
  seed?: number;
  /** Iterations of the randomisation test and the bootstrap (default 10,000). */
  iterations?: number;
  /** Compare on the queries every run shares (with the same judgements) instead of refusing. */
  commonQueries?: boolean;
  /** Also every pairwise test on the main metric. */
  pairs?: boolean;
  /** Compare runs whose metrics.json name different dataset files anyway (refused otherwise). */
  allowDifferentData?: boolean;
  /** Also the comparison inside each group of this query slice. */
  slice?: string;
  /** The major/sub slices' rule (default each_gold, the paper's). */
  categoryRule?: string;
  /** Points within which a paper-reproduction verdict is OK / close (defaults 0.05 / 1.0). */
  okWithin?: number;
  closeWithin?: number;
  /** A CSV of another benchmark's scores per model: also the rank correlation of the main metric with it. */
  correlate?: string;
}

/** The comparison value: the runs' table and tests, plus the slices and paper verdicts asked for. */
export interface Comparison extends SystemsComparison {
  /** With `slice`: the comparison inside each group. */
  slices?: SliceComparison;
  /** Paper-reproduction verdicts of the runs that have a published counterpart (may be empty). */
  paper: { tolerances: Tolerances; runs: ClaimVerdicts[] };
  /** With `correlate`: this benchmark's ranking of the runs against the other benchmark's. */
  correlation?: BenchmarkCorrelation;
}

/** Options after their checks, with defaults filled in. */
export interface CheckedCompareOptions {
  test: TestName;
  alpha: number;
  correction: Correction;
  seed: number;
  iterations: number;
  tolerances: Tolerances;
  slice?: SliceName;
  categoryRule: CategoryRule;
}

/** Checks every option (UserError naming the flag) and fills in the defaults. */
export function checkCompareOptions(o: CompareOptions): CheckedCompareOptions {
  const test = o.test ?? 'randomization';
  if (!TESTS.includes(test)) throw new UserError(`--test: expected randomization or t, got ${JSON.stringify(test)}`);
  const correction = o.correction ?? 'holm';
  if (!CORRECTIONS.includes(correction)) throw new UserError(`--correction: expected one of ${CORRECTIONS.join(', ')}, got ${JSON.stringify(correction)}`);
  const alpha = o.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new UserError(`--alpha: expected a number between 0 and 1, got ${String(alpha)}`);
  const seed = o.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed: expected an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got ${String(seed)}`);
  const iterations = o.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new UserError(`--iterations: expected an integer from 1 to ${MAX_ITERATIONS}, got ${String(iterations)}`);
  }
  const tolerances = { ok: o.okWithin ?? DEFAULT_TOLERANCES.ok, close: o.closeWithin ?? DEFAULT_TOLERANCES.close };
  if (!(tolerances.ok >= 0)) throw new UserError(`--ok-within: expected a non-negative number of points, got ${String(tolerances.ok)}`);
  if (!(tolerances.close >= tolerances.ok)) throw new UserError(`--close-within: expected a number of points ≥ the OK tolerance ${tolerances.ok}, got ${String(tolerances.close)}`);
  const slice = o.slice as SliceName | undefined;
  if (slice !== undefined && !SLICE_NAMES.includes(slice)) throw new UserError(`--slice: expected one of ${SLICE_NAMES.join(', ')}, got ${JSON.stringify(o.slice)}`);
  const categoryRule = (o.categoryRule ?? DEFAULT_CATEGORY_RULE) as CategoryRule;
  if (!CATEGORY_RULES.includes(categoryRule)) throw new UserError(`--category-rule: expected one of ${CATEGORY_RULES.join(', ')}, got ${JSON.stringify(o.categoryRule)}`);
  if (o.measures !== undefined) checkKeyList(o.measures, '--measures');
  return { test, alpha, correction, seed, iterations, tolerances, categoryRule, ...(slice !== undefined ? { slice } : {}) };
}

/** A list of metric keys given by the user: not empty, no empty key, none twice (UserError naming `flag`). */
export function checkKeyList(keys: readonly string[], flag: string): void {
  if (keys.length === 0) throw new UserError(`${flag}: expected at least one metric key`);
  if (keys.some((k) => k === '')) throw new UserError(`${flag}: empty metric key`);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice !== undefined) throw new UserError(`${flag}: ${JSON.stringify(twice)} given twice`);
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
        throw new UserError(`${join(ref.dir, 'metrics.json')} and ${join(r.dir, 'metrics.json')}: the runs are over different dataset files (${role}: sha256 ${x.slice(0, 12)}… vs ${y.slice(0, 12)}…); a paired comparison needs the same data (--allow-different-data to compare anyway)`);
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

/** queries.jsonl and skills.jsonl of the runs' results folders (a run folder's is two levels up). */
async function sliceFiles(runs: readonly RunFolder[]): Promise<{ queries: Map<string, QueryInfo>; skills: Map<string, SkillInfo>; source: string }> {
  const queries = new Map<string, QueryInfo>();
  const skills = new Map<string, SkillInfo>();
  const dirs = [...new Set(runs.map((r) => r.resultsDir ?? dirname(dirname(r.dir))))];
  for (const d of dirs) await readExplorerFiles(d, queries, skills);
  return { queries, skills, source: dirs.join(', ') };
}

function claimsOf(runs: readonly RunFolder[]): PaperClaim[] {
  return runs.map((r) => paperClaim(r.label, r.metricsJson)).filter((x): x is PaperClaim => x !== undefined);
}

/**
 * Compares the runs the paths stand for (see the module comment); the first run is the baseline
 * unless `baseline` names another. Throws a UserError (one line) on bad input.
 */
export async function compare(paths: readonly string[], o: CompareOptions = {}): Promise<Comparison> {
  checkCompareOptions(o);
  const scores = o.correlate !== undefined ? readBenchmarkScores(o.correlate) : undefined;
  return compareRuns(await collectRuns(paths), o, scores);
}

/**
 * The same comparison of runs already read (results folders, or the results history's entries:
 * `leaderboard`). The first run is the baseline unless `baseline` names another.
 */
export async function compareRuns(runs: readonly RunFolder[], o: CompareOptions = {}, scores?: BenchmarkScores): Promise<Comparison> {
  const c = checkCompareOptions(o);
  const other = scores ?? (o.correlate !== undefined ? readBenchmarkScores(o.correlate) : undefined);
  const keys = o.measures !== undefined ? [...o.measures] : defaultComparedKeys(runs[0]!.firstKeys);
  if (keys.length === 0) throw new UserError(`${runs[0]!.file}: no metric values to compare`);
  checkKeys(runs, keys);
  checkSameData(runs, o.allowDifferentData === true);
  const baseline = findBaseline(runs, o.baseline);
  const qs = resolveQuerySet(runs, o.commonQueries === true);
  const settings = { keys, mainKey: mainKey(keys), baseline, test: c.test, correction: c.correction, alpha: c.alpha, seed: c.seed, iterations: c.iterations, pairs: o.pairs === true };
  const comparison = compareSystems(runs, qs, settings);
  const paper = { tolerances: c.tolerances, runs: claimVerdicts(claimsOf(runs), c.tolerances) };
  const correlation = other !== undefined ? { correlation: correlationOf(runs, comparison, other, c) } : {};
  if (c.slice === undefined) return { ...comparison, paper, ...correlation };
  const { queries, skills, source } = await sliceFiles(runs);
  const slices = compareBySlice(runs, qs, settings, { slice: c.slice, rule: c.categoryRule, queries, skills: [...skills.values()], source });
  return { ...comparison, slices, paper, ...correlation };
}

/** The runs' main-metric means (over the compared queries) against the other benchmark's scores. */
function correlationOf(runs: readonly RunFolder[], c: SystemsComparison, scores: BenchmarkScores, o: CheckedCompareOptions): BenchmarkCorrelation {
  const key = c.settings.mainKey;
  const correlated = runs.map((r, i) => {
    const row = (r.metricsJson?.paper as { row?: unknown } | undefined)?.row;
    return { label: r.label, ...(r.retriever !== undefined ? { retriever: r.retriever } : {}), ...(typeof row === 'string' ? { paperRow: row } : {}), value: c.rows[i]!.means[key]! };
  });
  return correlateWithBenchmark(correlated, key, scores, { seed: o.seed, iterations: o.iterations });
}

/**
 * The whole published tables the runs' published counterparts belong to, with the reproduced rows
 * and their verdicts (`compare --paper`). UserError when no run has a published counterpart.
 */
export async function comparePublished(paths: readonly string[], o: Pick<CompareOptions, 'okWithin' | 'closeWithin'> = {}): Promise<{ tolerances: Tolerances; claims: number; tables: PublishedTableView[] }> {
  checkCompareOptions(o);
  return publishedOf(await collectRuns(paths), o);
}

/** `comparePublished` of runs already read. */
export function publishedOf(runs: readonly RunFolder[], o: Pick<CompareOptions, 'okWithin' | 'closeWithin'> = {}): { tolerances: Tolerances; claims: number; tables: PublishedTableView[] } {
  const { tolerances } = checkCompareOptions(o);
  const claims = claimsOf(runs);
  if (claims.length === 0) throw new UserError('--paper: no compared run has a published counterpart (a `paper` block in its metrics.json: pinned-release data and a paper model)');
  return { tolerances, claims: claims.length, tables: publishedTables(claims, tolerances) };
}

/** `--out` checked before any work (util/out-file.ts): its folder exists, it is a file, and it overwrites no input. */
export function checkOutFolder(out: string | undefined, inputs: readonly string[] = []): void {
  if (out === undefined) return;
  checkOutFile(out, { inputs });
}
