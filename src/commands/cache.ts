/**
 * `skillret-eval cache info`: every kind under the cache root (api/cache.ts) with its entries,
 * files and bytes, and the total, as a table or JSON. `skillret-eval cache prune`: removes entries
 * (every kind with --all, some with --kind, old ones with --older-than; the results history only
 * with --kind history) and prints what went, kind by kind, and the bytes freed (--dry-run: what
 * would go).
 */
import { cacheInfo, pruneCacheEntries } from '../api/cache.js';
import { defaultCacheDir } from '../util/paths.js';

/** Bytes for people: B, kB, MB, GB (decimal), one decimal above a kilobyte. */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let x = n / 1000;
  let u = 0;
  while (x >= 1000 && u < units.length - 1) (x /= 1000), u++;
  return `${x.toFixed(1)} ${units[u]}`;
}

function table(rows: string[][], right: ReadonlySet<number>): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd()).join('\n') + '\n';
}

export interface CacheInfoCommandOptions {
  cacheDir?: string;
  format?: 'table' | 'json';
}

export function cacheInfoCommand(o: CacheInfoCommandOptions): string {
  const u = cacheInfo({ cacheDir: o.cacheDir ?? defaultCacheDir() });
  if (o.format === 'json') return JSON.stringify(u, null, 2) + '\n';
  const rows = [['kind', 'entries', 'files', 'bytes', 'folder', 'what']];
  for (const k of u.kinds) rows.push([k.kind, String(k.entries), String(k.files), formatBytes(k.bytes), `${k.folder}/`, k.what]);
  rows.push(['total', String(u.total.entries), String(u.total.files), formatBytes(u.total.bytes), '', '']);
  return `cache root: ${u.root}\n` + table(rows, new Set([1, 2, 3]));
}

export interface CachePruneCommandOptions {
  cacheDir?: string;
  kind?: string[];
  olderThan?: number;
  all?: boolean;
  dryRun?: boolean;
}

export function cachePruneCommand(o: CachePruneCommandOptions): string {
  const r = pruneCacheEntries({
    cacheDir: o.cacheDir ?? defaultCacheDir(),
    ...(o.kind !== undefined ? { kinds: o.kind } : {}),
    ...(o.olderThan !== undefined ? { olderThanDays: o.olderThan } : {}),
    ...(o.all ? { all: true } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
  });
  const verb = r.dryRun ? 'would remove' : 'removed';
  const lines = [`cache root: ${r.root}${r.dryRun ? ' (dry run: nothing removed)' : ''}`];
  for (const k of r.kinds) {
    if (k.files === 0) continue;
    lines.push(`  ${k.kind}: ${verb} ${k.entries} entr${k.entries === 1 ? 'y' : 'ies'} (${k.files} file${k.files === 1 ? '' : 's'}), ${formatBytes(k.bytes)}`);
  }
  if (r.total.files === 0) lines.push('  nothing to remove');
  lines.push(`${r.dryRun ? 'would free' : 'freed'} ${formatBytes(r.total.bytes)} (${r.total.bytes} bytes) in ${r.total.files} file${r.total.files === 1 ? '' : 's'}`);
  return lines.join('\n') + '\n';
}
