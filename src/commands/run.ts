/**
 * `skillret-eval run <config.yaml>`: validate the config, run every retriever × reranker pair,
 * write the results folder, print the summary table (src/api/run.ts does the work).
 */
import { planExperiment, runExperiment } from '../api/run.js';
import { escapeControl } from '../util/terminal-text.js';

export interface RunOptions {
  config: string;
  dryRun?: boolean;
  cache?: boolean;
  offline?: boolean;
  cacheDir?: string;
  quiet?: boolean;
  /** Print the whole summary (summary.md, for the terminal) instead of the leaderboard. */
  verbose?: boolean;
  /** Tags recorded with the runs in the results history. */
  tag?: string[];
  /** false: do not record the runs in the results history. */
  history?: boolean;
  /** Where informational lines and progress go (default stderr). */
  log?: (line: string) => void;
  /** `--expect FILE`: expectations beyond the config's `expect:`. */
  expect?: string;
  /** `--junit FILE`: the gates as JUnit XML. */
  junit?: string;
}

/**
 * Returns the text for stdout. The config file goes to the library verbs as a path, so its problems
 * and those of the models and files its plan needs are listed together, before any stage runs.
 */
export async function runCommand(o: RunOptions): Promise<string> {
  return (await runCommandWithGates(o)).text;
}

/**
 * The text for stdout and one line per failed gate (the CLI prints them on stderr and exits 1).
 * With $GITHUB_STEP_SUMMARY set (a GitHub Actions job), the compact summary is appended to that file.
 */
export async function runCommandWithGates(o: RunOptions): Promise<{ text: string; gateFailures: string[] }> {
  const config = o.config;
  const opts = {
    ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
    cache: o.cache !== false,
    offline: Boolean(o.offline),
    progress: !o.quiet,
    history: o.history !== false,
    handleSignals: true,
    ...(o.tag !== undefined ? { tags: o.tag } : {}),
    ...(o.expect !== undefined ? { expect: o.expect } : {}),
    ...(o.junit !== undefined ? { junit: o.junit } : {}),
    ...(process.env.GITHUB_STEP_SUMMARY ? { stepSummary: process.env.GITHUB_STEP_SUMMARY } : {}),
    log: o.quiet ? () => {} : (o.log ?? ((line: string) => void process.stderr.write(`${escapeControl(line)}\n`))),
  };
  if (o.dryRun) return { text: planExperiment(config, opts), gateFailures: [] };
  const report = await runExperiment(config, opts);
  return { text: o.verbose ? `${report.details}\n${report.terminal}` : report.terminal, gateFailures: report.gateFailures };
}
