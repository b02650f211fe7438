/**
 * `skillret-eval compare <runDirA> <runDirB>`: paired comparison of two finished runs from their
 * per-query.jsonl files alone (never re-runs a model). B is compared against A (Δ = B − A) on every
 * metric with the randomization test, the t-test and a bootstrap CI (src/significance/attribution.ts).
 *
 * - Each argument is a run folder (its per-query.jsonl is read) or the per-query.jsonl itself.
 * - Both must cover exactly the same query ids (UserError naming the files and a missing id).
 * - Metrics: `keys` if given, else every key of the first record of A, in its order; every record of
 *   both files must have each of them (UserError file:line otherwise). Means are recomputed from the
 *   per-query values (the same fold as metrics.json, before its 5-decimal rounding).
 * - seed (default 42) and iterations (default 10,000) are validated here as user input.
 */
import { UserError, where } from '../core/errors.js';
import { attribution, DEFAULT_PRIMARY_KEY } from '../significance/attribution.js';
import { readPerQuery, resolvePerQueryFile, type PerQueryFile } from '../formats/per-query-jsonl.js';
import { renderComparisonJson, renderComparisonTable } from '../report/comparison.js';

export const DEFAULT_SEED = 42;
export const DEFAULT_ITERATIONS = 10_000;

export interface CompareOptions {
  a: string;
  b: string;
  format: 'table' | 'json';
  seed?: number;
  iterations?: number;
  keys?: string[];
}

function checkOptions(o: CompareOptions): { seed: number; iterations: number } {
  const seed = o.seed ?? DEFAULT_SEED;
  const iterations = o.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new UserError(`--seed: expected an integer from 0 to ${Number.MAX_SAFE_INTEGER}, got ${String(seed)}`);
  }
  if (!Number.isSafeInteger(iterations) || iterations < 1) {
    throw new UserError(`--iterations: expected a positive integer, got ${String(iterations)}`);
  }
  if (o.format !== 'table' && o.format !== 'json') {
    throw new UserError(`--format: expected "table" or "json", got ${JSON.stringify(o.format)}`);
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

function chooseKeys(o: CompareOptions, a: PerQueryFile): string[] {
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

export async function compareCommand(o: CompareOptions): Promise<string> {
  const { seed, iterations } = checkOptions(o);
  const fileA = await resolvePerQueryFile(o.a);
  const fileB = await resolvePerQueryFile(o.b);
  const a = await readPerQuery(fileA);
  const b = await readPerQuery(fileB);
  const keys = chooseKeys(o, a);
  checkSameQueries(a, b);
  checkKeys(a, keys);
  checkKeys(b, keys);
  const primaryKey = keys.includes(DEFAULT_PRIMARY_KEY) ? DEFAULT_PRIMARY_KEY : keys[0]!;
  const at = attribution(a.perQuery, b.perQuery, keys, { seed, iterations, primaryKey });
  const c = { a: fileA, b: fileB, attribution: at };
  return o.format === 'json' ? renderComparisonJson(c) : renderComparisonTable(c);
}
