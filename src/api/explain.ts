/**
 * Library verb: where the signal is, for one finished run (src/pipeline/explain-run.ts): sentence
 * erasure, document-field attribution and concentration, re-scored from the run's caches.
 * `skillret-eval explain` renders what this returns; `write` (default true) also writes
 * explain.jsonl and explain.json into the run folder.
 */
import { resetCacheWriteFailures } from '../cache/write-failures.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import { explainRun as explain, type ExplainResult, type ExplainSelection } from '../pipeline/explain-run.js';
import { writeExplain } from '../report/explain-output.js';
import { createProgressFactory, silentProgress } from '../util/progress.js';
import { defaultCacheDir, offlineFromEnv } from '../util/paths.js';
import { acquireLock } from '../util/folder-lock.js';
import { lockPathFor } from '../util/staged-folder.js';

export interface ExplainRunOptions extends ExplainSelection {
  /** A results folder written by `run`. */
  results: string;
  /** `<retriever>/<reranker>`, e.g. `bm25/none`. */
  run: string;
  /** Cache root (default: the one in the run's manifest). */
  cacheDir?: string;
  cache?: boolean;
  offline?: boolean;
  /** Terminal progress bars (default false). */
  progress?: boolean;
  log?: (line: string) => void;
  /** Write explain.jsonl and explain.json (default true). */
  write?: boolean;
}

export type { ExplainResult, ExplainSelection };

/** The cache the run used (its manifest), unless cacheDir says otherwise. */
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

export async function explainRun(o: ExplainRunOptions): Promise<ExplainResult & { files: string[] }> {
  resetCacheWriteFailures();
  if (o.maxQueries !== undefined && (!Number.isInteger(o.maxQueries) || o.maxQueries < 1))
    throw new UserError(`--max-queries: expected a positive integer, got ${String(o.maxQueries)}`);
  const results = resolve(o.results);
  const ctx: StageContext = {
    cacheDir: o.cacheDir ?? cacheDirOf(results) ?? defaultCacheDir(),
    useCache: o.cache !== false,
    offline: Boolean(o.offline) || offlineFromEnv(),
    progress: o.progress ? createProgressFactory() : silentProgress,
    log: o.log ?? (() => {}),
  };
  if (o.write === false) return { ...(await explain(ctx, { ...o, results })), files: [] };
  // Under the results folder's lock, as `run` writes it: a run swapping the folder meanwhile would drop these files.
  const lockFile = lockPathFor(results);
  const lock = acquireLock(lockFile, `skillret-eval explain ${o.run}`);
  if (!lock.ok) {
    const h = lock.holder;
    throw new UserError(`${results}: being written by ${h ? `pid ${h.pid} on ${h.host} since ${h.started_at} (${h.what})` : 'another process'}: ${lock.reason}; wait for it, or remove ${lockFile} if that process is gone`);
  }
  try {
    const x = await explain(ctx, { ...o, results });
    return { ...x, files: writeExplain(x) };
  } finally {
    lock.release();
  }
}
