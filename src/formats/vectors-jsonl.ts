/**
 * Vectors as JSON Lines: one `{"id": "...", "vector": [0.1, ...]}` per line (other keys ignored,
 * blank lines skipped), UTF-8. Python's `json.dumps` writes NaN and ±Infinity as bare `NaN` /
 * `Infinity`: such a line is read (data/jsonl.ts) and refused for its non-finite component.
 */
import { UserError, where } from '../core/errors.js';
import { parseJsonlLine } from '../data/jsonl.js';
import { VectorRecordsBuilder, type RecordVectors } from './vector-records.js';

const strict = new TextDecoder('utf-8', { fatal: true });

export function parseVectorJsonl(bytes: Uint8Array, file: string): RecordVectors {
  let text: string;
  try {
    text = strict.decode(bytes);
  } catch {
    throw new UserError(`${where(file)}invalid UTF-8 (the file must be UTF-8 JSON Lines)`);
  }
  const b = new VectorRecordsBuilder(' (NaN, Infinity or null in the file)');
  let line = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(start, end);
    start = end + 1;
    if (raw.trim() === '') continue;
    const rec = parseJsonlLine(file, line, raw);
    b.add(where(file, line), `line ${line}`, rec['id'], rec['vector']);
  }
  return b.finish('json');
}
