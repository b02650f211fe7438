/**
 * `skillret-eval run <config.yaml>`: validate the config, run every retriever ×
 * reranker pair, write the results folder, print the summary table.
 */
import { loadConfig } from '../pipeline/config.js';
import { formatPlan } from '../pipeline/plan.js';
import { runExperiment } from '../pipeline/experiment.js';
import { writeResults } from '../report/results-folder.js';
import { stopwatch } from '../pipeline/manifest.js';
import type { StageContext } from '../core/context.js';
import { createProgressFactory, silentProgress } from '../util/progress.js';
import { UserError } from '../core/errors.js';
import { defaultCacheDir, insideInstalledPackage, offlineFromEnv } from '../util/paths.js';

export interface RunOptions {
  config: string;
  dryRun?: boolean;
  cache?: boolean;
  offline?: boolean;
  cacheDir?: string;
  quiet?: boolean;
  /** Where informational lines and progress go (default stderr). */
  log?: (line: string) => void;
}

/** Returns the text for stdout. */
export async function runCommand(o: RunOptions): Promise<string> {
  const config = loadConfig(o.config);
  const offline = Boolean(o.offline) || offlineFromEnv();
  const useCache = o.cache !== false;
  const cacheDir = o.cacheDir ?? config.cache_dir ?? defaultCacheDir();
  // An installed package folder may be read-only and is shared: never write results or caches into it.
  for (const [what, dir] of [['output', config.output], ['cache_dir', cacheDir]] as const) {
    if (insideInstalledPackage(dir)) {
      throw new UserError(`${config.file}: ${what}: ${dir} is inside the installed skillret-eval package, which is never written; run \`skillret-eval init\` for a config of your own, or copy this one`);
    }
  }
  if (o.dryRun) return formatPlan(config, { cacheDir, offline, useCache });
  const log = o.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const ctx: StageContext = {
    cacheDir,
    useCache,
    offline,
    progress: o.quiet ? silentProgress : createProgressFactory(),
    log: o.quiet ? () => {} : log,
  };
  const startedAt = new Date().toISOString();
  const total = stopwatch();
  const res = await runExperiment(ctx, config);
  const summary = writeResults(res, { startedAt, finishedAt: new Date().toISOString(), cacheDir, useCache, offline, totalSeconds: total() });
  return `${summary}\nResults written to ${config.output}\n`;
}
