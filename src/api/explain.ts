/**
 * Library verb: where the signal is, for one finished run (src/pipeline/explain-run.ts): sentence
 * erasure, document-field attribution and concentration, re-scored from the run's caches.
 * `skillret-eval explain` renders what this returns; `write` (default true) also writes
 * explain.jsonl and explain.json into the run folder. `explainMask`: paper Table 5 ([MASK] on the
 * top attributed sentences of single-gold queries, NDCG@10 per level; mask.json).
 */
import { resetCacheWriteFailures } from '../cache/write-failures.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import { explainRun as explain, type ExplainResult, type ExplainSelection } from '../pipeline/explain-run.js';
import { writeExplain } from '../report/explain-output.js';
import { writeMask } from '../report/mask-output.js';
import { maskRun, type MaskResult } from '../pipeline/explain-mask.js';
import { maskPaper, type MaskPaper } from '../paper/mask-vs-published.js';
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

export type { ExplainResult, ExplainSelection, MaskResult, MaskPaper };

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

function contextOf(o: ExplainRunOptions, results: string): StageContext {
  return {
    cacheDir: o.cacheDir ?? cacheDirOf(results) ?? defaultCacheDir(),
    useCache: o.cache !== false,
    offline: Boolean(o.offline) || offlineFromEnv(),
    progress: o.progress ? createProgressFactory() : silentProgress,
    log: o.log ?? (() => {}),
  };
}

/** `work` under the results folder's lock, as `run` writes it: a run swapping the folder meanwhile would drop these files. */
async function underLock<T>(results: string, what: string, work: () => Promise<T>): Promise<T> {
  const lockFile = lockPathFor(results);
  const lock = acquireLock(lockFile, what);
  if (!lock.ok) {
    const h = lock.holder;
    throw new UserError(`${results}: being written by ${h ? `pid ${h.pid} on ${h.host} since ${h.started_at} (${h.what})` : 'another process'}: ${lock.reason}; wait for it, or remove ${lockFile} if that process is gone`);
  }
  try {
    return await work();
  } finally {
    lock.release();
  }
}

function checkMaxQueries(o: ExplainSelection): void {
  if (o.maxQueries !== undefined && (!Number.isInteger(o.maxQueries) || o.maxQueries < 1))
    throw new UserError(`--max-queries: expected a positive integer, got ${String(o.maxQueries)}`);
}

export async function explainRun(o: ExplainRunOptions): Promise<ExplainResult & { files: string[] }> {
  resetCacheWriteFailures();
  checkMaxQueries(o);
  const results = resolve(o.results);
  const ctx = contextOf(o, results);
  if (o.write === false) return { ...(await explain(ctx, { ...o, results })), files: [] };
  return underLock(results, `skillret-eval explain ${o.run}`, async () => {
    const x = await explain(ctx, { ...o, results });
    return { ...x, files: writeExplain(x) };
  });
}

export interface ExplainMaskOptions extends ExplainRunOptions {
  /** The highest masking level: levels 0..levels (default 3, paper Table 5). */
  levels?: number;
}

/**
 * Paper Table 5 on one first-stage run (src/pipeline/explain-mask.ts): mean NDCG@10 of its
 * single-gold queries with the top 1..k attributed sentences replaced by [MASK], beside the
 * published numbers where they apply. `write` (default true) writes mask.json into the run folder.
 */
export async function explainMask(o: ExplainMaskOptions): Promise<MaskResult & { paper: MaskPaper; files: string[] }> {
  resetCacheWriteFailures();
  checkMaxQueries(o);
  const results = resolve(o.results);
  const ctx = contextOf(o, results);
  const measure = async () => {
    const x = await maskRun(ctx, { ...o, results });
    const paper = maskPaper({ ndcg10: x.summary.ndcg10, counterpart: x.counterpart, firstStage: x.firstStage, subset: x.subset, selection: x.selection, dataset: x.dataset });
    return { x, paper };
  };
  if (o.write === false) {
    const { x, paper } = await measure();
    return { ...x, paper, files: [] };
  }
  return underLock(results, `skillret-eval explain --mask ${o.run}`, async () => {
    const { x, paper } = await measure();
    return { ...x, paper, files: writeMask(x, paper) };
  });
}
