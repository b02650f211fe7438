/**
 * Writing a whole folder atomically: build it under a temporary sibling name, then rename it into place
 * (replacing an older folder, if any). Readers see either the old complete folder or the new complete one.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { makeDirs } from '../util/dirs.js';

function sibling(path: string, tag: string): string {
  return join(dirname(path), `.${basename(path)}.${tag}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Calls `fill(tmpDir)` to populate a fresh temporary folder, then moves it to `target`. If `fill` throws, the
 * temporary folder is removed and nothing changes. If another process put a folder at `target` meanwhile and
 * `isComplete(target)` holds, that folder is kept and ours discarded.
 */
export async function writeFolderAtomic(
  target: string,
  fill: (tmpDir: string) => void | Promise<void>,
  isComplete: (dir: string) => boolean = () => false,
): Promise<void> {
  makeDirs(dirname(target));
  const tmp = sibling(target, 'tmp');
  mkdirSync(tmp);
  try {
    await fill(tmp);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  let old: string | undefined;
  if (existsSync(target)) {
    old = sibling(target, 'old');
    renameSync(target, old);
  }
  try {
    renameSync(tmp, target);
  } catch (e) {
    if (existsSync(target) && isComplete(target)) {
      rmSync(tmp, { recursive: true, force: true });
    } else {
      if (old !== undefined && !existsSync(target)) renameSync(old, target);
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
  }
  if (old !== undefined) rmSync(old, { recursive: true, force: true });
}
