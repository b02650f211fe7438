/**
 * Folder creation and checks without unbounded loops: `makeDirs` walks up to the nearest existing
 * ancestor (at most one step per path component) and creates the missing folders one by one, so a
 * path where `mkdir` can never succeed (inside /proc, under a file) fails at once instead of
 * spinning (Node's recursive mkdir loops for ever there). `writableDirProblem` says in words why a
 * folder cannot be written, probing with a real file.
 */
import { accessSync, constants, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * `n` random bytes in hex, for unique temporary names. Web Crypto (a global, loaded on first use),
 * so importing this module does not load node:crypto: `score` starts up without it.
 */
export function randomHex(n: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(n))).toString('hex');
}

/** A filesystem error in words (the code and the OS message), never a stack. */
export function fsErrorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string') {
    const why: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'operation not permitted',
      ENOTDIR: 'a path component is a file, not a folder',
      EROFS: 'read-only file system',
      ENOSPC: 'no space left on the device',
      EDQUOT: 'disk quota exceeded',
      EEXIST: 'already exists',
      ENOENT: 'no such file or folder',
      EIO: 'input/output error',
      EISDIR: 'is a folder',
      ENAMETOOLONG: 'name too long',
      ELOOP: 'too many symbolic links',
    };
    return `${why[err.code] ?? err.message} (${err.code})`;
  }
  return e instanceof Error ? e.message : String(e);
}

function statOrNull(p: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Creates `path` and its missing parents; throws the filesystem error of the first step that fails. */
export function makeDirs(path: string): void {
  const missing: string[] = [];
  let p = resolve(path);
  // One step per path component at most: dirname() shortens the path until the root.
  for (;;) {
    const st = statOrNull(p);
    if (st) {
      if (!st.isDirectory()) throw Object.assign(new Error(`${p} is not a folder`), { code: 'ENOTDIR', path: p });
      break;
    }
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw e;
    }
  }
}

/** The nearest existing folder at or above `path` that is not a file (a file there: ENOTDIR), without creating anything. */
function nearestFolder(path: string): string {
  let p = resolve(path);
  for (;;) {
    const st = statOrNull(p);
    if (st) {
      if (!st.isDirectory()) throw Object.assign(new Error(`${p} is not a folder`), { code: 'ENOTDIR', path: p });
      return p;
    }
    const up = dirname(p);
    if (up === p) return p;
    p = up;
  }
}

/**
 * Why `dir` cannot be used as a folder to write in (created if missing), or null. The check
 * creates and removes a small probe file, so permissions, read-only mounts and full disks show.
 * `probe: false`: only look (nothing is created): the nearest existing folder must be writable.
 */
export function writableDirProblem(dir: string, o: { probe?: boolean } = {}): string | null {
  const abs = resolve(dir);
  try {
    const st = statOrNull(abs);
    if (st && !st.isDirectory()) return `${abs} is a file, not a folder`;
    if (o.probe === false) {
      accessSync(nearestFolder(abs), constants.W_OK | constants.X_OK);
      return null;
    }
    makeDirs(abs);
    accessSync(abs, constants.W_OK | constants.X_OK);
    const probe = join(abs, `.skillret-probe-${process.pid}-${randomHex(4)}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return null;
  } catch (e) {
    const p = (e as NodeJS.ErrnoException).path;
    return `cannot write in ${abs}: ${fsErrorText(e)}${p && resolve(p) !== abs ? ` at ${p}` : ''}`;
  }
}

/** Why an existing `path` is not a folder, or null when it is one or does not exist. */
export function notADirProblem(path: string): string | null {
  try {
    const st = statOrNull(resolve(path));
    return st && !st.isDirectory() ? `${resolve(path)} is a file, not a folder` : null;
  } catch (e) {
    return `${resolve(path)}: ${fsErrorText(e)}`;
  }
}
