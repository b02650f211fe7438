/**
 * Library verbs of the cache root (src/cache/): what it holds kind by kind (`cacheInfo`) and
 * removing entries (`pruneCacheEntries`), with the CLI's checks and one-line errors.
 */
import { closest } from 'fastest-levenshtein';
import { UserError } from '../core/errors.js';
import { cacheKindNames, cacheUsage, pruneCache, type CacheUsage, type PruneResult } from '../cache/usage.js';

export type { CacheUsage, KindUsage, PruneResult } from '../cache/usage.js';

/** Every kind under the cache root `cacheDir` with its entries, files and bytes, and the total. */
export function cacheInfo(o: { cacheDir: string }): CacheUsage {
  return cacheUsage(o.cacheDir);
}

export interface PruneCacheOptions {
  cacheDir: string;
  /** Only these kinds (`history` only this way). */
  kinds?: readonly string[];
  /** Only entries last written more than this many days ago. */
  olderThanDays?: number;
  /** Every kind but the results history (when neither kinds nor olderThanDays narrow it, this must be said). */
  all?: boolean;
  /** Count what would be removed, remove nothing. */
  dryRun?: boolean;
  /** The clock (tests). */
  now?: number;
}

/** Removes cache entries (see cache/usage.ts); what was removed (or would be, `dryRun`). */
export function pruneCacheEntries(o: PruneCacheOptions): PruneResult {
  const names = cacheKindNames();
  for (const k of o.kinds ?? []) {
    if (!names.includes(k)) throw new UserError(`--kind: no cache kind ${JSON.stringify(k)} (did you mean ${closest(k, names)}? kinds: ${names.join(', ')})`);
  }
  if (o.olderThanDays !== undefined && (!Number.isFinite(o.olderThanDays) || o.olderThanDays < 0)) {
    throw new UserError(`--older-than: expected a number of days (0 or more), got ${String(o.olderThanDays)}`);
  }
  if (o.all && o.kinds?.length) throw new UserError('--all and --kind: give one of them (--all is every kind but the results history)');
  if (!o.all && !o.kinds?.length && o.olderThanDays === undefined) {
    throw new UserError('cache prune: say what to remove: --all (every kind but the results history), --kind <kind> or --older-than <days>');
  }
  return pruneCache(o.cacheDir, {
    ...(o.kinds?.length ? { kinds: o.kinds } : {}),
    ...(o.olderThanDays !== undefined ? { olderThanDays: o.olderThanDays } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
    ...(o.now !== undefined ? { now: o.now } : {}),
  });
}
