/**
 * The many-system comparison value: every run's mean per metric, each run against a baseline
 * (Δ, paired p raw and corrected over the runs compared with the baseline, 95% bootstrap CI of Δ,
 * win/tie/loss per query), the column best and the runs not separable from it, and optionally every
 * pairwise comparison on the main metric. Computed once here; renderers only format it.
 *
 * Families (what a correction runs over): per metric, the n − 1 comparisons with the baseline; per
 * metric, the n − 1 comparisons with the column's best run (the group marker); the n(n − 1)/2 pairs
 * of `pairs` on the main metric. Queries are taken in UTF-8 order of their ids. The randomization
 * test draws one stream for the whole comparison, `deriveSeed(seed, "randomization")` as the reranker
 * on/off attribution does (src/significance/attribution.ts `comparisonSeeds`): every (pair, metric)
 * column it needs beyond the baseline comparisons goes through one pass of
 * src/stats/randomization.ts `randomizationPValues`, the same sign flips for all, and a column's p
 * depends only on its own differences, so a pair's p is the same wherever it appears (the test is
 * symmetric in its two runs).
 */
import { attribution, comparisonSeeds, DEFAULT_WORST, type QueryDelta, UNCHANGED_EPSILON } from './attribution.js';
import { correctPValues, familySize, type Correction } from '../stats/correction.js';
import { randomizationPValues } from '../stats/randomization.js';
import { pairedTTest } from '../stats/ttest.js';
import type { ComparedRun, QuerySet } from './query-set.js';

export const TESTS = ['randomization', 't'] as const;
export type TestName = (typeof TESTS)[number];

export interface ComparisonSettings {
  keys: string[];
  /** The metric of W/T/L, the Δ column and `pairs` (e.g. NDCG@10). */
  mainKey: string;
  baseline: number;
  test: TestName;
  correction: Correction;
  alpha: number;
  seed: number;
  iterations: number;
  pairs: boolean;
}

export interface VersusBaseline {
  delta: number;
  /** The raw p of the chosen test (`settings.test`): one of the two below. */
  pRaw: number;
  /** Raw p of the paired randomization test and of the paired t-test (both always computed). */
  pRandomization: number;
  pT: number;
  pCorrected: number;
  significant: boolean;
  ci: { low: number; high: number; level: number };
  wins: number;
  ties: number;
  losses: number;
}

export interface SystemRow {
  label: string;
  file: string;
  means: Record<string, number>;
  /** undefined for the baseline itself. */
  vsBaseline?: Record<string, VersusBaseline>;
  /** Against the baseline, on the main metric: the queries this run lost most (losses only, worst first; undefined for the baseline). */
  worst?: QueryDelta[];
  /** Per metric: the column's best (max mean; several on an exact tie). */
  best: Record<string, boolean>;
  /** Per metric: best, or not separable from the best at α after correction. */
  topGroup: Record<string, boolean>;
  /** Per metric: corrected p against the column's best (NaN for the best itself). */
  pVsBest: Record<string, number>;
}

export interface PairwiseMatrix {
  key: string;
  /** delta[i][j] = mean_i − mean_j. */
  delta: number[][];
  pRaw: number[][];
  pCorrected: number[][];
  /** n(n − 1)/2 comparisons (NaN ones not counted). */
  family: number;
}

export interface SystemsComparison {
  settings: ComparisonSettings;
  queries: number;
  dropped: QuerySet['dropped'];
  rows: SystemRow[];
  pairs?: PairwiseMatrix;
}

function column(run: ComparedRun, qids: readonly string[], key: string): number[] {
  return qids.map((q) => run.records.get(q)!.metrics[key]!);
}

function meanOf(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export function compareSystems(runs: readonly ComparedRun[], qs: QuerySet, s: ComparisonSettings): SystemsComparison {
  const { qids } = qs;
  const n = runs.length;
  const cols = runs.map((r) => Object.fromEntries(s.keys.map((k) => [k, column(r, qids, k)])) as Record<string, number[]>);
  /** The p-values of the pairs (i, j) on their metrics, all in one pass of the chosen test. */
  const pOf = (requests: readonly { i: number; j: number; key: string }[]): number[] => {
    if (s.test === 't') return requests.map(({ i, j, key }) => pairedTTest(cols[i]![key]!, cols[j]![key]!).pValue);
    if (requests.length === 0) return [];
    const nq = qids.length;
    const diffs = new Float64Array(requests.length * nq);
    requests.forEach(({ i, j, key }, r) => {
      const a = cols[i]![key]!;
      const b = cols[j]![key]!;
      for (let q = 0; q < nq; q++) diffs[r * nq + q] = b[q]! - a[q]!;
    });
    return [...randomizationPValues(diffs, nq, { seed: comparisonSeeds(s.seed).randomization, iterations: s.iterations })];
  };
  const rows: SystemRow[] = runs.map((r, i) => ({
    label: r.label,
    file: r.file,
    means: Object.fromEntries(s.keys.map((k) => [k, meanOf(cols[i]![k]!)])),
    best: {},
    topGroup: {},
    pVsBest: {},
  }));

  // Against the baseline: attribution gives both tests and the bootstrap CI.
  const b = s.baseline;
  const asMap = (i: number) => new Map(qids.map((q) => [q, runs[i]!.records.get(q)!.metrics]));
  const others = rows.map((_, i) => i).filter((i) => i !== b);
  const atts = new Map(others.map((i) => [i, attribution(asMap(b), asMap(i), s.keys, { seed: s.seed, iterations: s.iterations, primaryKey: s.mainKey, worst: DEFAULT_WORST })]));
  for (const i of others) rows[i]!.worst = atts.get(i)!.worst;
  for (const key of s.keys) {
    const raw = others.map((i) => {
      const m = atts.get(i)!.metrics[key]!;
      return s.test === 't' ? m.tTest.pValue : m.randomization.pValue;
    });
    const corrected = correctPValues(raw, s.correction);
    others.forEach((i, j) => {
      const m = atts.get(i)!.metrics[key]!;
      let wins = 0;
      let ties = 0;
      let losses = 0;
      const a = cols[b]![key]!;
      cols[i]![key]!.forEach((y, q) => {
        const d = y - a[q]!;
        if (d > UNCHANGED_EPSILON) wins++;
        else if (d < -UNCHANGED_EPSILON) losses++;
        else ties++;
      });
      const row = rows[i]!;
      row.vsBaseline ??= {};
      row.vsBaseline[key] = {
        delta: m.delta,
        pRaw: raw[j]!,
        pRandomization: m.randomization.pValue,
        pT: m.tTest.pValue,
        pCorrected: corrected[j]!,
        significant: corrected[j]! < s.alpha,
        ci: { low: m.bootstrap.low, high: m.bootstrap.high, level: m.bootstrap.level },
        wins,
        ties,
        losses,
      };
    });
  }

  // The column best and the runs not separable from it (the tests not already run against the
  // baseline, for every metric in one pass).
  const bestOf = s.keys.map((key) => {
    const top = Math.max(...rows.map((r) => r.means[key]!));
    const bestIdx = rows.findIndex((r) => r.means[key] === top);
    return { key, top, bestIdx, rest: rows.map((_, i) => i).filter((i) => i !== bestIdx) };
  });
  const needed = bestOf.flatMap(({ key, bestIdx, rest }) => rest.filter((i) => i !== b && bestIdx !== b).map((i) => ({ i: bestIdx, j: i, key })));
  const pNeeded = pOf(needed);
  const pVsBest = new Map(needed.map((r, t) => [`${r.j}\u0000${r.key}`, pNeeded[t]!]));
  for (const { key, top, bestIdx, rest } of bestOf) {
    const raw = rest.map((i) => (i === b || bestIdx === b ? rows[i === b ? bestIdx : i]!.vsBaseline![key]!.pRaw : pVsBest.get(`${i}\u0000${key}`)!));
    const corrected = correctPValues(raw, s.correction);
    rows.forEach((r) => {
      r.best[key] = r.means[key] === top;
      r.pVsBest[key] = NaN;
      r.topGroup[key] = r.best[key];
    });
    rest.forEach((i, j) => {
      const p = corrected[j]!;
      rows[i]!.pVsBest[key] = p;
      if (!rows[i]!.best[key]) rows[i]!.topGroup[key] = !(p < s.alpha);
    });
  }

  let pairs: PairwiseMatrix | undefined;
  if (s.pairs) {
    const key = s.mainKey;
    const idx: [number, number][] = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) idx.push([i, j]);
    const raw = pOf(idx.map(([i, j]) => ({ i, j, key })));
    const corrected = correctPValues(raw, s.correction);
    const grid = (v: number) => rows.map(() => rows.map(() => v));
    const pr = grid(NaN);
    const pc = grid(NaN);
    const delta = rows.map((ri) => rows.map((rj) => ri.means[key]! - rj.means[key]!));
    idx.forEach(([i, j], t) => {
      pr[i]![j] = pr[j]![i] = raw[t]!;
      pc[i]![j] = pc[j]![i] = corrected[t]!;
    });
    pairs = { key, delta, pRaw: pr, pCorrected: pc, family: familySize(raw) };
  }
  return { settings: s, queries: qids.length, dropped: qs.dropped, rows, ...(pairs ? { pairs } : {}) };
}
