import { renameSync, writeFileSync, openSync, fsyncSync, closeSync, rmSync } from 'node:fs';
import { makeDirs, randomHex } from './dirs.js';
import { dirname, basename, join } from 'node:path';

/** Temporary sibling path for an atomic write (same folder, so rename is atomic). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomHex(4)}.tmp`);
}

/**
 * Writes `data` to `path` atomically: write a temporary sibling, fsync, rename.
 * A crash leaves either the old file or the new one, never a half-written file.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  writeFileAtomicWith(path, (fd) => writeFileSync(fd, data));
}

/** `writeFileAtomic` whose bytes `write` puts into the open temporary file (a file written in pieces). */
export function writeFileAtomicWith(path: string, write: (fd: number) => void): void {
  makeDirs(dirname(path));
  const tmp = tempPathFor(path);
  try {
    const fd = openSync(tmp, 'w');
    try {
      write(fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** JSON with 2-space indent and a trailing newline, written atomically. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}
