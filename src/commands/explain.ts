/**
 * `skillret-eval explain <results> --run <retriever>/<reranker> [--queries id,…|--failed|--hurt|--sample N]`:
 * sentence erasure, document-field attribution and concentration for one finished run
 * (src/pipeline/explain.ts), written next to the run's files.
 */
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import { explainRun, type ExplainSelection } from '../pipeline/explain.js';
import { renderExplainText, writeExplain } from '../report/explain.js';
import { createProgressFactory, silentProgress } from '../util/progress.js';
import { defaultCacheDir, offlineFromEnv } from '../util/paths.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface ExplainOptions extends ExplainSelection {
  results: string;
  run: string;
  cacheDir?: string;
  cache?: boolean;
  offline?: boolean;
  quiet?: boolean;
  log?: (line: string) => void;
}

/** The cache the run used (its manifest), unless --cache-dir says otherwise. */
function cacheDirOf(results: string): string | undefined {
  const f = join(results, 'manifest.json');
  if (!existsSync(f)) return undefined;
  try {
    const dir = (JSON.parse(readFileSync(f, 'utf8')) as { cache?: { dir?: string | null } }).cache?.dir;
    return typeof dir === 'string' ? dir : undefined;
  } catch {
    return undefined;
  }
}

export async function explainCommand(o: ExplainOptions): Promise<string> {
  if (o.maxQueries !== undefined && (!Number.isInteger(o.maxQueries) || o.maxQueries < 1))
    throw new UserError(`--max-queries: expected a positive integer, got ${String(o.maxQueries)}`);
  const results = resolve(o.results);
  const log = o.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const ctx: StageContext = {
    cacheDir: o.cacheDir ?? cacheDirOf(results) ?? defaultCacheDir(),
    useCache: o.cache !== false,
    offline: Boolean(o.offline) || offlineFromEnv(),
    progress: o.quiet ? silentProgress : createProgressFactory(),
    log: o.quiet ? () => {} : log,
  };
  const x = await explainRun(ctx, { ...o, results });
  return renderExplainText(x, writeExplain(x));
}
