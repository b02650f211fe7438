import { closeSync, openSync, readSync, statSync } from 'node:fs';
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

/**
 * The bytes of a file a command was given, read with a stated bound: a regular file or a FIFO
 * (`<(…)`), at most `maxBytes` (a longer one, or an endless device, is one line naming the file and
 * the bound, never read until memory runs out). `what` names the file in messages ("config").
 */
export function readBoundedSync(path: string, what: string, maxBytes: number): Buffer {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: cannot read the ${what} (${code === 'ENOENT' ? 'no such file' : (code ?? String(e))})`);
  }
  if (!st.isFile() && !st.isFIFO()) throw new UserError(`${path}: the ${what} is not a file (${st.isDirectory() ? 'a folder' : 'a device or socket'})`);
  if (st.isFile() && st.size > maxBytes) throw new UserError(`${path}: the ${what} is ${st.size} bytes, more than the ${maxBytes} this tool reads`);
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new UserError(`${path}: the ${what} is more than the ${maxBytes} bytes this tool reads`);
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

/** Bounds of what is read whole (bytes). */
export const MAX_CONFIG_BYTES = 16 << 20;
export const MAX_ID_FILE_BYTES = 512 << 20;
