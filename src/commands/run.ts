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
}

/**
 * Returns the text for stdout. The config file goes to the library verbs as a path, so its problems
 * and those of the models and files its plan needs are listed together, before any stage runs.
 */
export async function runCommand(o: RunOptions): Promise<string> {
  const config = o.config;
  const opts = {
    ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
    cache: o.cache !== false,
    offline: Boolean(o.offline),
    progress: !o.quiet,
    history: o.history !== false,
    handleSignals: true,
    ...(o.tag !== undefined ? { tags: o.tag } : {}),
    log: o.quiet ? () => {} : (o.log ?? ((line: string) => void process.stderr.write(`${escapeControl(line)}\n`))),
  };
  if (o.dryRun) return planExperiment(config, opts);
  const report = await runExperiment(config, opts);
  return o.verbose ? `${report.details}\n${report.terminal}` : report.terminal;
}
