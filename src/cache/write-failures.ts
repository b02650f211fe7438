/**
 * A cache write that fails costs a warning, not the run. Every write into a cache root (the store's
 * entries, the BM25 and HNSW indexes, chart and token-count entries, the results history, a Hub
 * "absent" marker) goes through `cacheWrite`: a filesystem error (a full disk, a read-only mount,
 * permissions, a file where a folder should be…) is caught, reported once per cache root as
 *
 *   warning: cache: cannot write in <root>: <reason> (<CODE>); going on without caching …
 *
 * and the root is marked: later writes to it are skipped for the rest of the run (a full disk
 * would otherwise be retried, and fail, at every entry). Reads go on as before. What a run computes
 * does not depend on what the cache holds, so its results are byte-identical to a run without a
 * cache. Errors that are not the filesystem's (a bug in a writer) still end the run.
 *
 * The marks last for one run: `runExperiment` and `report` call `resetCacheWriteFailures` first, so
 * a long-lived process whose disk was freed writes its cache again on its next run.
 */
import { resolve } from 'node:path';
import { fsErrorText } from '../util/dirs.js';
import { faultPoint } from '../util/fault.js';

/** Cache roots whose writes failed in this run, with the warning given. */
const failed = new Map<string, string>();

/** Whether `e` is a filesystem error (an errno code such as ENOSPC, EACCES, EROFS, ENOTDIR). */
export function isFsError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

/** Forgets the failures of an earlier run (called when a run or a report starts). */
export function resetCacheWriteFailures(): void {
  failed.clear();
}

/** Whether writes to the cache root `root` failed in this run (they are skipped from then on). */
export function cacheWritesFailed(root: string): boolean {
  return failed.has(resolve(root));
}

/**
 * Records that a write to the cache root `root` failed with `e`: the first time for that root, one
 * warning line through `log`; never again for it in this run.
 */
export function cacheWriteFailed(root: string, e: unknown, log: (line: string) => void): void {
  const abs = resolve(root);
  if (failed.has(abs)) return;
  const line = `warning: cache: cannot write in ${abs}: ${fsErrorText(e)}; going on without caching (nothing more is written there in this run; the results are the same)`;
  failed.set(abs, line);
  log(line);
}

/**
 * Runs the write `write` into the cache root `root`: skipped (false) when the root already failed in
 * this run; a filesystem error it throws is reported once (`cacheWriteFailed`) and gives false;
 * any other error is thrown. True when written. `SKILLRET_FAULT_AT=cache-write:<CODE>` makes every
 * write fail with that code (util/fault.ts).
 */
export function cacheWrite(root: string, log: (line: string) => void, write: () => void): boolean {
  if (cacheWritesFailed(root)) return false;
  try {
    write();
    return true;
  } catch (e) {
    if (!isFsError(e)) throw e;
    cacheWriteFailed(root, e, log);
    return false;
  }
}

/** The fault point of cache writes (called inside each write, after its temporary file is open). */
export function cacheWriteFault(): void {
  faultPoint('cache-write');
}
