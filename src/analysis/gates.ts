/**
 * The regression gate: every expectation (pipeline/expect.ts) checked against what was measured,
 * computed once (analysis/report.ts `analyze` for `run`, api/score.ts for `score`); the renderers
 * (report/gates.ts: the gate table, the failure lines, gates.json, JUnit XML) only format it.
 *
 * Measured values are the printed ones: the official percentage (metrics/official-percent.ts,
 * round(mean, 5) × 100 to 2 decimals), so a gate agrees with every table. Δ is in points:
 *  - value: printed − value; passes when |Δ| ≤ tolerance (default 0);
 *  - at_least / at_most: printed − the bound it is checked against (the one it misses, else at_least,
 *    else at_most); passes when the printed value is inside;
 *  - not_worse_than: printed − the reference run's printed value; fails only when the run is worse
 *    (its mean below the reference's) and the difference is significant: the leaderboard's paired test
 *    (significance/systems.ts `compareSystems`, the same test, seed and iterations, so a pair's raw p
 *    is the leaderboard's wherever the pair appears there), corrected (the leaderboard's correction)
 *    over the family of every not_worse_than gate of the experiment, at the leaderboard's α.
 */
import type { Expectation, ExpectKind } from '../pipeline/expect.js';
import { expectKind } from '../pipeline/expect.js';
import { percentHundredths } from '../metrics/official-percent.js';
import { correctPValues, familySize } from '../stats/correction.js';
import { resolveQuerySet, type ComparedRun } from '../significance/query-set.js';
import { compareSystems } from '../significance/systems.js';
import type { LeaderboardSettings } from './leaderboard.js';

/** One run as the gate sees it: its label, its means (fractions) and, for not_worse_than, its per-query records. */
export interface GateRun {
  label: string;
  means: Readonly<Record<string, number>>;
  records?: ComparedRun;
}

export interface GateOutcome {
  /** The expectation as written (metric canonical), with where it was written. */
  expectation: Expectation;
  kind: ExpectKind;
  /** The run's printed value (percent, 2 decimals). */
  measured: number;
  /** Δ in points (see the module comment), exact in hundredths for value/range/not_worse_than of 2-decimal bounds. */
  delta: number;
  passed: boolean;
  /** not_worse_than: the reference run's printed value and the test. */
  reference?: { measured: number; pRaw: number; pCorrected: number; worse: boolean };
}

export interface GateReport {
  outcomes: GateOutcome[];
  passed: number;
  failed: number;
  /** The test of the not_worse_than gates (the leaderboard's settings) and the size of their family. */
  test: { name: LeaderboardSettings['test']; correction: LeaderboardSettings['correction']; alpha: number; seed: number; iterations: number; family: number };
}

/** Slack of comparisons of printed values: they are exact hundredths, the slack only absorbs binary representation. */
const SLACK = 1e-9;

/** The printed percentage of a mean fraction, as a number of points (NaN when not finite). */
export function printedPoints(mean: number | undefined): number {
  if (mean === undefined) return Number.NaN;
  const h = percentHundredths(mean);
  return Number.isFinite(h) ? h / 100 : Number.NaN;
}

/** Points difference rounded to 1e-9 (so 75.1 − 75.08 is 0.02, not 0.0199999…). */
const diff = (a: number, b: number): number => {
  const d = Math.round((a - b) * 1e9) / 1e9;
  return d === 0 ? 0 : d;
};

function checkValue(e: Expectation, measured: number): { delta: number; passed: boolean } {
  const delta = diff(measured, e.value!);
  return { delta, passed: Math.abs(delta) <= (e.tolerance ?? 0) + SLACK };
}

function checkRange(e: Expectation, measured: number): { delta: number; passed: boolean } {
  const low = e.at_least !== undefined && measured < e.at_least - SLACK;
  const high = e.at_most !== undefined && measured > e.at_most + SLACK;
  const bound = low ? e.at_least! : high ? e.at_most! : (e.at_least ?? e.at_most!);
  return { delta: diff(measured, bound), passed: !low && !high && Number.isFinite(measured) };
}

/**
 * Checks every expectation against `runs` (their labels are the expectations' run ids; every run
 * and metric named must be there: config.ts and api/score.ts check that before any work).
 */
export function evaluateGates(expectations: readonly Expectation[], runs: readonly GateRun[], settings: LeaderboardSettings): GateReport {
  const byLabel = new Map(runs.map((r) => [r.label, r]));
  const run = (label: string): GateRun => {
    const r = byLabel.get(label);
    if (!r) throw new Error(`evaluateGates: no run ${label}`);
    return r;
  };

  // The not_worse_than gates: one comparison per reference run (the reference as the baseline, the
  // runs checked against it after), their raw p-values corrected together.
  const nwt = expectations.map((e, i) => ({ e, i })).filter(({ e }) => e.not_worse_than !== undefined);
  const raw = new Map<number, { p: number; meanDelta: number }>();
  for (const ref of [...new Set(nwt.map(({ e }) => e.not_worse_than!))]) {
    const gates = nwt.filter(({ e }) => e.not_worse_than === ref);
    const labels = [ref, ...new Set(gates.map(({ e }) => e.run))];
    const compared = labels.map((l) => {
      const r = run(l).records;
      if (!r) throw new Error(`evaluateGates: run ${l} has no per-query records`);
      return r;
    });
    const keys = [...new Set(gates.map(({ e }) => e.metric))];
    const c = compareSystems(compared, resolveQuerySet(compared, settings.commonQueries), {
      keys,
      mainKey: keys[0]!,
      baseline: 0,
      test: settings.test,
      correction: settings.correction,
      alpha: settings.alpha,
      seed: settings.seed,
      iterations: settings.iterations,
      pairs: false,
    });
    for (const { e, i } of gates) {
      const v = c.rows[labels.indexOf(e.run)]!.vsBaseline![e.metric]!;
      raw.set(i, { p: v.pRaw, meanDelta: v.delta });
    }
  }
  const order = [...raw.keys()];
  const corrected = correctPValues(
    order.map((i) => raw.get(i)!.p),
    settings.correction,
  );
  const pCorrected = new Map(order.map((i, j) => [i, corrected[j]!]));

  const outcomes = expectations.map((e, i): GateOutcome => {
    const kind = expectKind(e);
    const measured = printedPoints(run(e.run).means[e.metric]);
    if (kind === 'value') return { expectation: e, kind, measured, ...checkValue(e, measured) };
    if (kind === 'range') return { expectation: e, kind, measured, ...checkRange(e, measured) };
    const refMeasured = printedPoints(run(e.not_worse_than!).means[e.metric]);
    const { p, meanDelta } = raw.get(i)!;
    const pc = pCorrected.get(i)!;
    const worse = meanDelta < 0;
    return {
      expectation: e,
      kind,
      measured,
      delta: diff(measured, refMeasured),
      passed: !(worse && pc < settings.alpha),
      reference: { measured: refMeasured, pRaw: p, pCorrected: pc, worse },
    };
  });
  const passed = outcomes.filter((o) => o.passed).length;
  return {
    outcomes,
    passed,
    failed: outcomes.length - passed,
    test: { name: settings.test, correction: settings.correction, alpha: settings.alpha, seed: settings.seed, iterations: settings.iterations, family: familySize(order.map((i) => raw.get(i)!.p)) },
  };
}
