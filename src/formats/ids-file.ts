/**
 * The ids file beside a `.npy` or `.safetensors` vector file: one id per line, in row order, UTF-8
 * (a BOM skipped), `\n` or `\r\n` line ends, a final newline optional — what
 * `open(p, "w").write("\n".join(ids) + "\n")` writes. An empty line is an error (an id cannot be
 * empty, and a blank line would shift every later row).
 */
import { UserError, where } from '../core/errors.js';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export function parseIdsFile(bytes: Uint8Array, file: string): string[] {
  let text: string;
  try {
    text = strict.decode(bytes);
  } catch {
    throw new UserError(`${where(file)}invalid UTF-8 (the ids file must be UTF-8 text, one id per line)`);
  }
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l, i) => {
    const id = l.endsWith('\r') ? l.slice(0, -1) : l;
    if (id === '') throw new UserError(`${where(file, i + 1)}empty line (one id per line, in the order of the vector rows)`);
    return id;
  });
}
