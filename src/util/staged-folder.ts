/**
 * Folder-level atomicity for an output folder: everything is written into a staging folder beside
 * the target (`.<name>.staging-<pid>-<random>`, same parent, so same file system) and swapped in
 * with renames when complete. A reader sees the old folder or the new one, never a mix; a failed
 * or killed run leaves the old folder as it was.
 *
 * The swap is two renames (old → `.<name>.previous-…`, staging → target) and a removal. If a run
 * is killed between them, `recoverFolder` (run under the folder's lock at the next start) moves the
 * previous folder back; left-over staging folders of killed runs are removed.
 */
import { copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { makeDirs } from './dirs.js';
import { faultPoint } from './fault.js';

const unique = () => `${process.pid}-${randomBytes(4).toString('hex')}`;

/** The lock file guarding `target` (beside it, since the folder itself is replaced). */
export function lockPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.lock`);
}

function siblings(target: string, kind: 'staging' | 'previous'): string[] {
  const parent = dirname(target);
  const prefix = `.${basename(target)}.${kind}-`;
  if (!existsSync(parent)) return [];
  return readdirSync(parent)
    .filter((e) => e.startsWith(prefix))
    .map((e) => join(parent, e));
}

/**
 * Repairs what an interrupted run left beside `target` (call it holding the lock): restores the
 * previous folder when the target is missing, removes staging folders. Returns what it did, in words.
 */
export function recoverFolder(target: string): string[] {
  const done: string[] = [];
  const previous = siblings(target, 'previous').sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!existsSync(target) && previous.length > 0) {
    renameSync(previous[0]!, target);
    previous.shift();
    done.push(`restored the previous results in ${target} (a run was killed while swapping its results in)`);
  }
  for (const p of previous) rmSync(p, { recursive: true, force: true });
  const staging = siblings(target, 'staging');
  for (const s of staging) rmSync(s, { recursive: true, force: true });
  if (staging.length > 0) done.push(`removed ${staging.length} unfinished staging folder(s) of interrupted runs beside ${target}`);
  return done;
}

/** Run folders (`<a>/<b>/` holding metrics.json) of a results folder, as `a/b`. */
export function runFolders(dir: string): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const a of readdirSync(dir, { withFileTypes: true })) {
    if (!a.isDirectory()) continue;
    for (const b of readdirSync(join(dir, a.name), { withFileTypes: true })) {
      if (b.isDirectory() && existsSync(join(dir, a.name, b.name, 'metrics.json'))) out.push(`${a.name}/${b.name}`);
    }
  }
  return out.sort();
}

export interface CommitInfo {
  /** An earlier folder was replaced. */
  replaced: boolean;
  /** Run folders (`a/b`) the earlier folder held that the new one does not (gone with the swap). */
  removedRuns: string[];
  /** Files of the earlier folder the new one lacks that were carried over (relative paths). */
  kept: string[];
  /** Files of the earlier folder the new one lacks that went with the swap (outside removed run folders). */
  dropped: string[];
}

/** Files under `dir`, relative, `/`-separated, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...filesUnder(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

export class StagedFolder {
  readonly staging: string;
  private finished = false;

  constructor(readonly target: string) {
    makeDirs(dirname(target));
    this.staging = join(dirname(target), `.${basename(target)}.staging-${unique()}`);
    makeDirs(this.staging);
  }

  /**
   * Swaps the staging folder in place of the target. Files of the earlier folder that the new one
   * lacks are carried over when `carry(relativePath)` says so (what a user put there), otherwise
   * they go and are listed; nothing inside a run folder the new results no longer have is carried.
   */
  commit(carry: (rel: string) => boolean = () => false): CommitInfo {
    if (this.finished) throw new Error('StagedFolder: already committed or aborted');
    const had = existsSync(this.target);
    const removedRuns = had ? runFolders(this.target).filter((r) => !runFolders(this.staging).includes(r)) : [];
    const kept: string[] = [];
    const dropped: string[] = [];
    if (had) {
      const fresh = new Set(filesUnder(this.staging));
      for (const rel of filesUnder(this.target)) {
        if (fresh.has(rel) || removedRuns.some((r) => rel.startsWith(`${r}/`))) continue;
        if (carry(rel)) {
          makeDirs(dirname(join(this.staging, rel)));
          copyFileSync(join(this.target, rel), join(this.staging, rel));
          kept.push(rel);
        } else dropped.push(rel);
      }
    }
    if (had) {
      const previous = join(dirname(this.target), `.${basename(this.target)}.previous-${unique()}`);
      renameSync(this.target, previous);
      faultPoint('swapping');
      renameSync(this.staging, this.target);
      this.finished = true;
      rmSync(previous, { recursive: true, force: true });
    } else {
      faultPoint('swapping');
      renameSync(this.staging, this.target);
      this.finished = true;
    }
    return { replaced: had, removedRuns, kept, dropped };
  }

  /** Drops the staging folder; the target stays as it was. */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    rmSync(this.staging, { recursive: true, force: true });
  }
}
