/**
 * Library verb: paired comparison of two finished runs from their per-query.jsonl files alone (never
 * re-runs a model); `skillret-eval compare <runDirA> <runDirB>` renders what this returns. B is
 * compared against A (Δ = B − A) on every metric with the randomization test, the t-test and a
 * bootstrap CI (src/significance/attribution.ts).
 *
 * - Each argument is a run folder (its per-query.jsonl is read) or the per-query.jsonl itself.
 * - Both must cover exactly the same query ids (UserError naming the files and a missing id).
 * - Metrics: `keys` if given, else every key of the first record of A, in its order; every record of
 *   both files must have each of them (UserError file:line otherwise). Means are recomputed from the
 *   per-query values (the same fold as metrics.json, before its 5-decimal rounding).
 * - When both folders' metrics.json name their dataset files (SHA-256), they must be the same files
 *   (a paired test over different corpora means nothing), unless `allowDifferentData`.
 * - seed (default 42) and iterations (default 10,000, at most MAX_ITERATIONS) are validated here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MAX_ITERATIONS } from '../pipeline/config.js';
import { UserError, where } from '../core/errors.js';
import { attribution, DEFAULT_PRIMARY_KEY } from '../significance/attribution.js';
import { readPerQuery, resolvePerQueryFile, type PerQueryFile } from '../formats/per-query-jsonl.js';
import type { Comparison } from '../report/comparison.js';

export const DEFAULT_SEED = 42;
export const DEFAULT_ITERATIONS = 10_000;

export interface CompareRunsOptions {
  /** Seed of the randomisation and bootstrap tests (default 42). */
  seed?: number;
  /** Iterations of the randomisation and bootstrap tests (default 10,000). */
  iterations?: number;
  /** Compare runs whose metrics.json name different dataset files anyway (refused otherwise). */
  allowDifferentData?: boolean;
  /** Metrics to compare (default: every metric of A's first record, in its order). */
  keys?: readonly string[];
}

function checkOptions(o: CompareRunsOptions): { seed: number; iterations: number } {
  const seed = o.seed ?? DEFAULT_SEED;
  const iterations = o.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new UserError(`--seed: expected an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got ${String(seed)}`);
  }
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new UserError(`--iterations: expected an integer from 1 to ${MAX_ITERATIONS}, got ${String(iterations)}`);
  }
  return { seed, iterations };
}

/** UserError unless A and B hold the same query ids: names both files and the first id missing. */
function checkSameQueries(a: PerQueryFile, b: PerQueryFile): void {
  const notInB = [...a.perQuery.keys()].filter((q) => !b.perQuery.has(q));
  const notInA = [...b.perQuery.keys()].filter((q) => !a.perQuery.has(q));
  if (notInB.length === 0 && notInA.length === 0) return;
  const parts: string[] = [];
  if (notInB.length) {
    const q = notInB[0]!;
    const more = notInB.length > 1 ? ` and ${notInB.length - 1} more` : '';
    parts.push(`${b.file} lacks query ${JSON.stringify(q)} (${a.file}:${a.line.get(q)})${more}`);
  }
  if (notInA.length) {
    const q = notInA[0]!;
    const more = notInA.length > 1 ? ` and ${notInA.length - 1} more` : '';
    parts.push(`${a.file} lacks query ${JSON.stringify(q)} (${b.file}:${b.line.get(q)})${more}`);
  }
  throw new UserError(`the runs cover different queries: ${parts.join('; ')}`);
}

/** UserError unless every record of `f` has each key (names the first file:line lacking one). */
function checkKeys(f: PerQueryFile, keys: readonly string[]): void {
  for (const [qid, rec] of f.perQuery) {
    for (const k of keys) {
      if (rec[k] === undefined) {
        throw new UserError(`${where(f.file, f.line.get(qid), `metrics.${k}`)}missing (query ${JSON.stringify(qid)})`);
      }
    }
  }
}

function chooseKeys(o: CompareRunsOptions, a: PerQueryFile): string[] {
  if (o.keys === undefined) {
    if (a.firstKeys.length === 0) {
      const [qid] = a.perQuery.keys();
      throw new UserError(`${where(a.file, a.line.get(qid!), 'metrics')}no metric values to compare`);
    }
    return a.firstKeys;
  }
  if (o.keys.length === 0) throw new UserError('--keys: expected at least one metric key');
  const seen = new Set<string>();
  for (const k of o.keys) {
    if (k === '') throw new UserError('--keys: empty metric key');
    if (seen.has(k)) throw new UserError(`--keys: ${JSON.stringify(k)} given twice`);
    seen.add(k);
  }
  return [...o.keys];
}

interface DatasetFiles {
  file: string;
  files: { role: string; sha256: string }[];
}

/** The dataset files a run was computed on (from the metrics.json beside its per-query.jsonl), if recorded. */
function datasetOf(perQueryFile: string): DatasetFiles | undefined {
  const file = join(dirname(perQueryFile), 'metrics.json');
  if (!existsSync(file)) return undefined;
  let m: { dataset?: { files?: { role?: unknown; sha256?: unknown }[] } };
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as typeof m;
  } catch (e) {
    throw new UserError(`${file}: not valid JSON (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  const files = m.dataset?.files;
  if (!Array.isArray(files)) return undefined;
  return { file, files: files.map((f) => ({ role: String(f.role), sha256: String(f.sha256) })) };
}

/** UserError when both runs name their dataset files and these differ (unless allowed). */
function checkSameData(fileA: string, fileB: string, allow: boolean): void {
  const a = datasetOf(fileA);
  const b = datasetOf(fileB);
  if (!a || !b || allow) return;
  const roles = [...new Set([...a.files, ...b.files].map((f) => f.role))].sort();
  for (const role of roles) {
    const x = a.files.find((f) => f.role === role)?.sha256 ?? 'none';
    const y = b.files.find((f) => f.role === role)?.sha256 ?? 'none';
    if (x !== y) {
      throw new UserError(
        `${a.file} and ${b.file}: the runs are over different dataset files (${role}: sha256 ${x.slice(0, 12)}… vs ${y.slice(0, 12)}…); a paired comparison needs the same data (--allow-different-data to compare anyway)`,
      );
    }
  }
}

/**
 * Compares run B against run A (Δ = B − A): each argument is a run folder (its per-query.jsonl is read)
 * or the per-query.jsonl itself. Throws a UserError (one line) on bad input.
 */
export async function compareRuns(a: string, b: string, o: CompareRunsOptions = {}): Promise<Comparison> {
  const { seed, iterations } = checkOptions(o);
  const fileA = await resolvePerQueryFile(a);
  const fileB = await resolvePerQueryFile(b);
  const runA = await readPerQuery(fileA);
  const runB = await readPerQuery(fileB);
  checkSameData(fileA, fileB, Boolean(o.allowDifferentData));
  const keys = chooseKeys(o, runA);
  checkSameQueries(runA, runB);
  checkKeys(runA, keys);
  checkKeys(runB, keys);
  const primaryKey = keys.includes(DEFAULT_PRIMARY_KEY) ? DEFAULT_PRIMARY_KEY : keys[0]!;
  return { a: fileA, b: fileB, attribution: attribution(runA.perQuery, runB.perQuery, keys, { seed, iterations, primaryKey }) };
}
