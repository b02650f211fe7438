/**
 * The leaderboard of a set of runs: every run against the first (the baseline) and against the
 * column's best, on the default compared keys (metrics/measures.ts `defaultComparedKeys` of the
 * first run's keys; the main metric is `mainKey` of them). One value, computed once: `run` builds it
 * from the runs in memory (analysis/report.ts), `report` from the runs of results folders; the
 * terminal summary, summary.md and report.html only render it.
 */
import { defaultComparedKeys, mainKey } from '../metrics/measures.js';
import type { Correction } from '../stats/correction.js';
import { resolveQuerySet, type ComparedRun, type QuerySet } from '../significance/query-set.js';
import { compareSystems, type SystemsComparison, type TestName } from '../significance/systems.js';

export interface LeaderboardSettings {
  test: TestName;
  correction: Correction;
  alpha: number;
  seed: number;
  iterations: number;
  /** Compare on the queries every run shares instead of refusing runs that differ. */
  commonQueries: boolean;
}

/** What `run` compares with: the randomisation test, Holm, α = 0.05, on every query, with the config's seed and iterations. */
export function runLeaderboardSettings(stats: { seed: number; iterations: number }): LeaderboardSettings {
  return { test: 'randomization', correction: 'holm', alpha: 0.05, seed: stats.seed, iterations: stats.iterations, commonQueries: false };
}

export interface Leaderboard {
  /** The compared queries (UTF-8 order) and what --common-queries dropped. */
  querySet: QuerySet;
  comparison: SystemsComparison;
}

/** Compares `runs` (at least one; the first is the baseline). Throws a UserError when they cover different queries or judgements and `commonQueries` is off. */
export function leaderboard(runs: readonly (ComparedRun & { firstKeys: readonly string[] })[], o: LeaderboardSettings): Leaderboard {
  const querySet = resolveQuerySet(runs, o.commonQueries);
  const keys = defaultComparedKeys(runs[0]!.firstKeys);
  const comparison = compareSystems(runs, querySet, {
    keys,
    mainKey: mainKey(keys),
    baseline: 0,
    test: o.test,
    correction: o.correction,
    alpha: o.alpha,
    seed: o.seed,
    iterations: o.iterations,
    pairs: false,
  });
  return { querySet, comparison };
}
