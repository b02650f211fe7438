/**
 * On/off attribution: how a treated run (e.g. retriever + reranker) differs from its base run (the
 * same retriever alone), query by query, with paired significance tests on every metric.
 *
 * Inputs are per-query metric values as a Map: query id → metric key → value (src/metrics/evaluate.ts
 * `Evaluation.perQuery`). A Map, not an object, so no query id ("__proto__", "1") is special and no
 * insertion order is relied on.
 *
 * Definitions:
 * - Queries are taken in UTF-8 byte order of their ids (`compareUtf8`), whatever the maps' order, so
 *   the results depend only on the contents; `base` and `treated` means are left-to-right sums in that
 *   order divided by n: bit for bit the `aggregate()` of src/metrics/evaluate.ts.
 * - delta = mean(treated) − mean(base); per query, diff = treated − base.
 * - Per metric: paired randomization test (src/stats/randomization.ts), paired t-test
 *   (src/stats/ttest.ts) and 95% percentile bootstrap CI of the mean diff (src/stats/bootstrap.ts).
 *   One stream per comparison, shared by all metrics (the multi-metric paired design): the
 *   randomization test seeds deriveSeed(seed, "randomization"), the bootstrap
 *   deriveSeed(seed, "bootstrap") (src/stats/rng.ts; see {@link comparisonSeeds}), and one pass per
 *   iteration flips the same signs / resamples the same queries for every metric (metrics × queries
 *   typed arrays). A metric's result depends only on its own column and that stream, never on which
 *   other keys are asked for, and the same seed gives the same numbers bit for bit. Both use
 *   `iterations` (default 10,000). (Earlier versions drew one stream per metric,
 *   deriveSeed(seed, "randomization:" + key): seeded p-values and CIs changed once with this.)
 * - Counts by the primary key: helped (diff > 1e-12), hurt (diff < −1e-12), unchanged (|diff| <= 1e-12).
 *   Primary key: `primaryKey` if given, else the main metric of `keys` (metrics/measures.ts `mainKey`).
 * - worst: the hurt queries only (diff < −1e-12), by diff ascending then query id (UTF-8 order), at most
 *   `worst` (default 5) of them.
 * The two maps must hold the same query ids and every record a finite value for every key used;
 * anything else is a pipeline bug and throws a plain Error naming the queries (up to 5) or the value.
 */
import { mainKey } from '../metrics/measures.js';
import { compareUtf8 } from '../metrics/rank.js';
import { bootstrapMeanCIs } from '../stats/bootstrap.js';
import { DEFAULT_ITERATIONS, randomizationPValues } from '../stats/randomization.js';
import { checkIterations, checkSeed, deriveSeed } from '../stats/rng.js';
import { pairedTTest } from '../stats/ttest.js';

/** Query id → metric key → value. */
export type PerQuery = ReadonlyMap<string, Readonly<Record<string, number>>>;

/** A query's diff counts as zero when |diff| <= this. */
export const UNCHANGED_EPSILON = 1e-12;
export const DEFAULT_WORST = 5;
/** How many query ids an error message lists. */
const LIST_MAX = 5;

export interface MetricAttribution {
  /** Mean over queries of the base run. */
  base: number;
  /** Mean over queries of the treated run. */
  treated: number;
  /** treated − base. */
  delta: number;
  randomization: { pValue: number; iterations: number; seed: number };
  /** t = ±Infinity and NaN are possible in degenerate cases (see src/stats/ttest.ts). */
  tTest: { t: number; df: number; pValue: number };
  /** Percentile bootstrap CI of the mean per-query diff (level 0.95). */
  bootstrap: { low: number; high: number; level: number; iterations: number; seed: number };
}

export interface QueryDelta {
  qid: string;
  base: number;
  treated: number;
  delta: number;
}

export interface Attribution {
  /** Number of paired queries. */
  queries: number;
  seed: number;
  iterations: number;
  primaryKey: string;
  /** One entry per key, in the order of `keys`. */
  metrics: Record<string, MetricAttribution>;
  /** By the primary key. */
  counts: { helped: number; hurt: number; unchanged: number };
  /** Queries hurt most by the primary key (hurt ones only), worst first. */
  worst: QueryDelta[];
}

export interface AttributionOptions {
  seed: number;
  iterations?: number;
  primaryKey?: string;
  worst?: number;
}

function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, LIST_MAX).map((q) => JSON.stringify(q)).join(', ');
  return ids.length > LIST_MAX ? `${shown} (and ${ids.length - LIST_MAX} more)` : shown;
}

/** Throws unless both maps hold the same query ids; returns them in UTF-8 order. */
function pairedQueryIds(base: PerQuery, treated: PerQuery): string[] {
  const missingInTreated = [...base.keys()].filter((q) => !treated.has(q)).sort(compareUtf8);
  const missingInBase = [...treated.keys()].filter((q) => !base.has(q)).sort(compareUtf8);
  if (missingInTreated.length || missingInBase.length) {
    const parts: string[] = [];
    if (missingInTreated.length) parts.push(`missing from treated: ${listIds(missingInTreated)}`);
    if (missingInBase.length) parts.push(`missing from base: ${listIds(missingInBase)}`);
    throw new Error(`attribution: the runs cover different queries; ${parts.join('; ')}`);
  }
  const qids = [...base.keys()].sort(compareUtf8);
  if (qids.length === 0) throw new Error('attribution: no queries');
  return qids;
}

/** The values of `key` in `qids` order; throws on a missing or non-finite value. */
function column(side: string, perQuery: PerQuery, qids: readonly string[], key: string): number[] {
  return qids.map((qid) => {
    const v = perQuery.get(qid)![key];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new Error(`attribution: ${side} query ${JSON.stringify(qid)}: ${key} is ${v === undefined ? 'missing' : String(v)}`);
    }
    return v;
  });
}

/**
 * The seeds of one comparison's two streams under the base `seed`: the randomization test's and the
 * bootstrap's, shared by every metric (and by every pair of runs compared under that seed).
 */
export function comparisonSeeds(seed: number): { randomization: number; bootstrap: number } {
  return { randomization: deriveSeed(seed, 'randomization'), bootstrap: deriveSeed(seed, 'bootstrap') };
}

function meanOf(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export function attribution(base: PerQuery, treated: PerQuery, keys: readonly string[], o: AttributionOptions): Attribution {
  checkSeed(o.seed);
  const iterations = o.iterations ?? DEFAULT_ITERATIONS;
  checkIterations(iterations);
  const worstN = o.worst ?? DEFAULT_WORST;
  if (!Number.isSafeInteger(worstN) || worstN < 0) throw new RangeError(`worst must be a non-negative integer, got ${worstN}`);
  if (keys.length === 0 && o.primaryKey === undefined) throw new Error('attribution: no metric keys');
  if (new Set(keys).size !== keys.length) throw new Error(`attribution: duplicate metric keys in ${JSON.stringify(keys)}`);
  const primaryKey = o.primaryKey ?? mainKey(keys);
  const qids = pairedQueryIds(base, treated);

  const n = qids.length;
  const cols = keys.map((key) => ({ a: column('base', base, qids, key), b: column('treated', treated, qids, key) }));
  const diffs = new Float64Array(keys.length * n);
  cols.forEach(({ a, b }, r) => {
    for (let i = 0; i < n; i++) diffs[r * n + i] = b[i]! - a[i]!;
  });
  const seeds = comparisonSeeds(o.seed);
  const pValues = keys.length ? randomizationPValues(diffs, n, { seed: seeds.randomization, iterations }) : [];
  const cis = keys.length ? bootstrapMeanCIs(diffs, n, { seed: seeds.bootstrap, iterations, level: 0.95 }) : [];

  const metrics = Object.create(null) as Record<string, MetricAttribution>;
  keys.forEach((key, r) => {
    const { a, b } = cols[r]!;
    const baseMean = meanOf(a);
    const treatedMean = meanOf(b);
    const t = pairedTTest(a, b);
    const ci = cis[r]!;
    metrics[key] = {
      base: baseMean,
      treated: treatedMean,
      delta: treatedMean - baseMean,
      randomization: { pValue: pValues[r]!, iterations, seed: seeds.randomization },
      tTest: { t: t.t, df: t.df, pValue: t.pValue },
      bootstrap: { low: ci.low, high: ci.high, level: ci.level, iterations, seed: seeds.bootstrap },
    };
  });

  const a = column('base', base, qids, primaryKey);
  const b = column('treated', treated, qids, primaryKey);
  const counts = { helped: 0, hurt: 0, unchanged: 0 };
  const hurt: QueryDelta[] = [];
  qids.forEach((qid, i) => {
    const delta = b[i]! - a[i]!;
    if (delta > UNCHANGED_EPSILON) counts.helped++;
    else if (delta < -UNCHANGED_EPSILON) {
      counts.hurt++;
      hurt.push({ qid, base: a[i]!, treated: b[i]!, delta });
    } else counts.unchanged++;
  });
  hurt.sort((x, y) => x.delta - y.delta || compareUtf8(x.qid, y.qid));

  return { queries: qids.length, seed: o.seed, iterations, primaryKey, metrics, counts, worst: hurt.slice(0, worstN) };
}
