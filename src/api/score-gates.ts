/**
 * The regression gate of `score` (`--expect`, `--junit`): the expect file checked against the scored
 * run and its measures, and the gates evaluated on its means. Its own module, imported by
 * api/score.ts only when a gate is asked for: it pulls in the config schema (zod) and the gate
 * statistics, which scoring two files does not need at start-up.
 */
import { isUserError, UserError } from '../core/errors.js';
import { checkExpectFile, formatProblems, type ConfigProblem } from '../pipeline/config.js';
import { expectationProblems, expectationsOf, type Expectation } from '../pipeline/expect.js';
import { evaluateGates, type GateReport } from '../analysis/gates.js';
import { runLeaderboardSettings } from '../analysis/leaderboard.js';
import { checkOutFile } from '../util/out-file.js';

/** What of `score`'s options the gate reads (ScoreRunOptions' fields of the same names). */
export interface GateFileOptions {
  qrels: string;
  run: string;
  expect?: string;
  junit?: string;
  stepSummary?: string;
}

/** The gates of the scored run (`label`) on its means. */
export function scoreGates(expectations: Expectation[], label: string, means: Record<string, number>): GateReport {
  return evaluateGates(expectations, [{ label, means }], runLeaderboardSettings({ seed: 42, iterations: 10000 }));
}

/**
 * Before any file is read: the expect file (its entries against the scored run and the measures)
 * and the files written (`junit`, `stepSummary`), every problem in one UserError; the expectations,
 * each naming the scored run by `label`, when there is an expect file.
 */
export function checkGateFiles(o: GateFileOptions, label: string, keys: readonly string[]): Expectation[] | undefined {
  const lines: string[] = [];
  let expectations: Expectation[] | undefined;
  const keep = (f: () => void) => {
    try {
      f();
    } catch (e) {
      if (!isUserError(e)) throw e;
      lines.push(...e.problems);
    }
  };
  if (o.expect !== undefined) {
    const file = o.expect;
    keep(() => {
      const f = checkExpectFile(file);
      const problems: ConfigProblem[] = [...f.problems];
      // The scored run by its path as given or its file name.
      const entries = f.entries.map(({ index, entry }) => ({ index, entry: entry.run === o.run ? { ...entry, run: label } : entry }));
      expectationProblems(entries, { runs: [label], metrics: keys }, (path, text) => problems.push({ path: ['expect', ...path], text }), {
        runRequired: false,
        runWord: 'the scored run',
        measuresHint: 'add it to --measures, or its cutoff to --k',
      });
      lines.push(...formatProblems(file, f.lineOf, problems));
      expectations = expectationsOf(entries, (i) => `${file} expect[${i}]`).map((e) => ({ ...e, run: label }));
    });
  }
  const inputs = [o.qrels, o.run, ...(o.expect !== undefined ? [o.expect] : [])];
  for (const [path, flag] of [[o.junit, '--junit'], [o.expect !== undefined ? o.stepSummary : undefined, '$GITHUB_STEP_SUMMARY']] as const) {
    if (path !== undefined) keep(() => checkOutFile(path, { flag, inputs }));
  }
  if (lines.length > 0) throw new UserError(lines);
  return expectations;
}
