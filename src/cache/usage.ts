/**
 * What the cache root holds, kind by kind (`cache info`), and removing entries (`cache prune`).
 *
 * Each file under the root belongs to at most one kind (kinds.ts): a flat kind's files lie directly
 * in its folder, a grouped kind's in its group folders, a download kind's anywhere under its folder,
 * and `file-sha256.json` (the file hash memo of earlier versions) counts with `file-sha256`. An
 * entry is a file named `<key>.<ext>` of its kind (for a download, each file); the other files of a
 * kind (an HNSW entry's graph file, a reranker group's `key.json`, temporary files, files of
 * earlier formats) count in its files and bytes. Files under the root that belong to no kind are
 * never touched.
 *
 * Prune removes whole units: an entry with the files that share its key (the HNSW graph beside its
 * entry), or a single other file; with `olderThanDays`, only units whose newest file was written
 * more than that many days ago (entries are rewritten when recomputed, so their time is when they
 * were last computed). Temporary files younger than an hour are never removed (a run may be
 * writing them). The results history is pruned only when asked by name (`history`).
 */
import { readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DOWNLOAD_FOLDERS, HISTORY_FOLDER, LEGACY_FILES, STORE_KINDS, type CacheKindLayout } from './kinds.js';

export type KindCategory = 'cache' | 'download' | 'history';

export interface KindUsage {
  kind: string;
  category: KindCategory;
  /** Its folder under the root ('/'-separated). */
  folder: string;
  what: string;
  entries: number;
  files: number;
  bytes: number;
}

export interface CacheUsage {
  root: string;
  kinds: KindUsage[];
  total: { entries: number; files: number; bytes: number };
}

interface AreaFile {
  path: string;
  bytes: number;
  mtimeMs: number;
  entry: boolean;
  /** Files of one unit are removed together. */
  unit: string;
  tmp: boolean;
}

interface Area {
  kind: string;
  category: KindCategory;
  folder: string;
  what: string;
  files: AreaFile[];
  /** Group folders (removed when a prune empties them). */
  dirs: string[];
}

function listDir(dir: string): { name: string; dir: boolean }[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}

function fileOf(path: string, unit: string, entry: boolean): AreaFile | null {
  try {
    const st = statSync(path);
    return { path, bytes: st.size, mtimeMs: st.mtimeMs, entry, unit, tmp: basename(path).endsWith('.tmp') };
  } catch {
    return null;
  }
}

const KEYED = /^([0-9a-f]{64})\./;

/** The files of one folder of a store kind. */
function storeFiles(kind: CacheKindLayout, dir: string): AreaFile[] {
  const out: AreaFile[] = [];
  for (const e of listDir(dir)) {
    if (e.dir) continue;
    const m = KEYED.exec(e.name);
    const entry = m !== null && e.name === `${m[1]}.${kind.ext}`;
    const f = fileOf(join(dir, e.name), join(dir, m ? m[1]! : e.name), entry);
    if (f) out.push(f);
  }
  return out;
}

function allFiles(dir: string, out: AreaFile[], dirs: string[]): void {
  for (const e of listDir(dir)) {
    const p = join(dir, e.name);
    if (e.dir) {
      allFiles(p, out, dirs);
      dirs.push(p);
    } else {
      const f = fileOf(p, p, true);
      if (f) out.push(f);
    }
  }
}

const kindFolders = new Set(STORE_KINDS.map((k) => k.folder));

function storeArea(root: string, kind: CacheKindLayout): Area {
  const base = join(root, ...kind.folder.split('/'));
  const files: AreaFile[] = [];
  const dirs: string[] = [];
  if (!kind.grouped) files.push(...storeFiles(kind, base));
  else {
    const suffix = kind.grouped.suffix;
    for (const e of listDir(base)) {
      if (!e.dir || !e.name.endsWith(suffix) || kindFolders.has(`${kind.folder}/${e.name}`)) continue;
      const dir = join(base, e.name);
      files.push(...storeFiles(kind, dir));
      dirs.push(dir);
    }
  }
  for (const l of LEGACY_FILES) {
    if (l.kind !== kind.name) continue;
    const f = fileOf(join(root, l.file), join(root, l.file), false);
    if (f) files.push(f);
  }
  return { kind: kind.name, category: 'cache', folder: kind.folder, what: kind.what, files, dirs };
}

function treeArea(root: string, d: { name: string; folder: string; what: string }, category: KindCategory): Area {
  const files: AreaFile[] = [];
  const dirs: string[] = [];
  allFiles(join(root, ...d.folder.split('/')), files, dirs);
  return { kind: d.name, category, folder: d.folder, what: d.what, files, dirs };
}

function historyPresent(root: string): boolean {
  try {
    return statSync(join(root, HISTORY_FOLDER.folder)).isDirectory();
  } catch {
    return false;
  }
}

/** Every kind's area under `root` (the history only when it is there, or when `withHistory`). */
function areas(root: string, withHistory = false): Area[] {
  const out = [...STORE_KINDS.map((k) => storeArea(root, k)), ...DOWNLOAD_FOLDERS.map((d) => treeArea(root, d, 'download'))];
  if (withHistory || historyPresent(root)) out.push(treeArea(root, HISTORY_FOLDER, 'history'));
  return out;
}

/** Every kind's name, the history's included (what `cache prune --kind` takes). */
export function cacheKindNames(): string[] {
  return [...STORE_KINDS.map((k) => k.name), ...DOWNLOAD_FOLDERS.map((d) => d.name), HISTORY_FOLDER.name];
}

function sum(xs: readonly { entries: number; files: number; bytes: number }[]): { entries: number; files: number; bytes: number } {
  return xs.reduce((t, x) => ({ entries: t.entries + x.entries, files: t.files + x.files, bytes: t.bytes + x.bytes }), { entries: 0, files: 0, bytes: 0 });
}

/** What the cache root holds, kind by kind, with the total. */
export function cacheUsage(root: string): CacheUsage {
  const kinds = areas(root).map((a) => ({
    kind: a.kind,
    category: a.category,
    folder: a.folder,
    what: a.what,
    entries: a.files.filter((f) => f.entry).length,
    files: a.files.length,
    bytes: a.files.reduce((s, f) => s + f.bytes, 0),
  }));
  return { root, kinds, total: sum(kinds) };
}

export interface PruneOptions {
  /** Only these kinds (names of `cacheKindNames`); default every kind but the history. */
  kinds?: readonly string[];
  /** Only units last written more than this many days ago. */
  olderThanDays?: number;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** The clock (tests). */
  now?: number;
}

export interface PruneResult {
  root: string;
  dryRun: boolean;
  kinds: { kind: string; entries: number; files: number; bytes: number }[];
  total: { entries: number; files: number; bytes: number };
}

const HOUR = 3_600_000;

/** Removes the chosen entries (see the module comment); what was (or, dry, would be) removed. */
export function pruneCache(root: string, o: PruneOptions = {}): PruneResult {
  const now = o.now ?? Date.now();
  const wanted = o.kinds !== undefined ? new Set(o.kinds) : null;
  const chosen = areas(root, wanted?.has(HISTORY_FOLDER.name) ?? false).filter((a) => (wanted ? wanted.has(a.kind) : a.category !== 'history'));
  const cutoff = o.olderThanDays !== undefined ? now - o.olderThanDays * 24 * HOUR : Infinity;
  const result: PruneResult['kinds'] = [];
  for (const a of chosen) {
    const units = new Map<string, AreaFile[]>();
    for (const f of a.files) units.set(f.unit, [...(units.get(f.unit) ?? []), f]);
    const gone: AreaFile[] = [];
    for (const files of units.values()) {
      const newest = Math.max(...files.map((f) => f.mtimeMs));
      if (newest >= cutoff) continue;
      if (files.some((f) => f.tmp && now - f.mtimeMs < HOUR)) continue;
      gone.push(...files);
    }
    if (!o.dryRun) {
      for (const f of gone) rmSync(f.path, { force: true });
      // Group folders (deepest first) that the prune left empty.
      for (const d of [...a.dirs].sort((x, y) => y.length - x.length)) {
        try {
          if (readdirSync(d).length === 0) rmdirSync(d);
        } catch {
          /* not empty or already gone */
        }
      }
    }
    result.push({ kind: a.kind, entries: gone.filter((f) => f.entry).length, files: gone.length, bytes: gone.reduce((s, f) => s + f.bytes, 0) });
  }
  return { root, dryRun: Boolean(o.dryRun), kinds: result, total: sum(result) };
}
