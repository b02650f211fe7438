import { statSync } from 'node:fs';
import { UserError, where } from '../core/errors.js';

/** Throws a one-line UserError unless `path` is a readable regular file (or FIFO). */
export function requireFile(path: string): void {
  let ok = false;
  try {
    const st = statSync(path);
    ok = st.isFile() || st.isFIFO();
  } catch {
    throw new UserError(`${where(path)}file not found`);
  }
  if (!ok) throw new UserError(`${where(path)}not a file`);
}
