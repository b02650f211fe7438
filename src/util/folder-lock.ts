/**
 * An exclusive lock file naming its holder (`{pid, host, started_at, what}`), created with O_EXCL
 * so two processes never both hold it. A lock whose holder is a process of this host that no
 * longer exists (or has this process's pid but predates it) is stale (the run was killed): it is
 * taken over and reported. A live holder, or a
 * holder on another host (which cannot be checked from here), is refused with its details and the
 * file to remove.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
  /** What the holder is doing (e.g. the config file of the run). */
  what: string;
}

export type LockResult =
  | { ok: true; release: () => void; staleTakenOver?: LockHolder }
  | { ok: false; holder: LockHolder | null; reason: string };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string') return { pid: h.pid, host: h.host, started_at: String(h.started_at ?? '?'), what: String(h.what ?? '?') };
  } catch {
    /* unreadable or half-written: treated below */
  }
  return null;
}

function tryCreate(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, JSON.stringify(holder) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Takes the lock at `path` (two attempts: the second after removing a stale lock). */
export function acquireLock(path: string, what: string, now: () => Date = () => new Date()): LockResult {
  const me: LockHolder = { pid: process.pid, host: hostname(), started_at: now().toISOString(), what };
  let staleTakenOver: LockHolder | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path, me)) {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const h = readHolder(path);
        if (h && h.pid === me.pid && h.host === me.host) rmSync(path, { force: true });
      };
      return staleTakenOver ? { ok: true, release, staleTakenOver } : { ok: true, release };
    }
    const holder = readHolder(path);
    if (holder === null) return { ok: false, holder: null, reason: 'unreadable lock file' };
    if (holder.host !== me.host) return { ok: false, holder, reason: 'held on another host' };
    if (holder.pid === me.pid) {
      // Our own pid: this process took it (still held), or a killed process that had the same pid
      // (containers reuse low pids) took it before this process started (stale).
      const startedMs = Date.parse(holder.started_at);
      const myStartMs = Date.now() - process.uptime() * 1000;
      if (!(startedMs < myStartMs - 1000)) return { ok: false, holder, reason: 'held by this process' };
    } else if (alive(holder.pid)) {
      return { ok: false, holder, reason: 'held by a running process' };
    }
    // Stale: its process is gone (killed). Move it aside (atomic, so of two processes that both saw
    // it stale only one gets it), check it is the one read, remove it and try once more.
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue;
    }
    const moved = readHolder(aside);
    if (moved && (moved.pid !== holder.pid || moved.started_at !== holder.started_at)) {
      // Another process took the lock in between: give it back and stop.
      try {
        linkSync(aside, path);
      } catch {
        /* someone holds a newer lock already */
      }
      rmSync(aside, { force: true });
      return { ok: false, holder: moved, reason: 'taken by another process meanwhile' };
    }
    rmSync(aside, { force: true });
    staleTakenOver = holder;
  }
  return { ok: false, holder: readHolder(path), reason: 'taken by another process meanwhile' };
}
