/**
 * A byte-level reader of whitespace-separated TREC files (runs, qrels): it reads the file in large
 * chunks and hands each non-blank line to a callback as byte offsets of its columns, without
 * decoding the line, splitting it into strings or allocating per line. The caller decodes only the
 * columns it keeps (`column`, `batchColumn`, `ColumnInterner`, `ColumnTracker`) and parses numbers straight from the bytes
 * (`parseDecimal`, `parseInteger`).
 *
 * Same rules as the line reader (lines.ts): strict UTF-8 (an invalid byte sequence is an error naming
 * its line, checked before that line is handed over), `\n` or `\r\n` terminators, a UTF-8 BOM at the
 * very start skipped, 1-based line numbers, columns separated by runs of ASCII space, tab, `\r`,
 * `\f`, `\v` (as trec_eval splits them); blank lines are skipped.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { UserError, where } from '../core/errors.js';
import { requireFile } from '../util/files.js';

/** Columns recorded per line; a line may have more (`count` says how many). */
export const MAX_COLUMNS = 8;

/** One non-blank line as the scanner sees it; reused from line to line (copy what you keep). */
export interface ColumnLine {
  /** Bytes holding the line (a chunk of the file: only the offsets below belong to this line). */
  buf: Buffer;
  /** 1-based line number. */
  line: number;
  /** Number of columns on the line (may exceed MAX_COLUMNS; only the first MAX_COLUMNS are recorded). */
  count: number;
  /** Start offset in `buf` of column i (i < min(count, MAX_COLUMNS)). */
  start: Int32Array;
  /** End offset (exclusive) in `buf` of column i. */
  end: Int32Array;
  /** Whether the line is pure ASCII (columns can then be decoded as Latin-1). */
  ascii: boolean;
}

/**
 * Consecutive non-blank lines of one read chunk, as parallel typed arrays (what `scanColumnBatches`
 * hands over; reused from batch to batch). Line `j` (0 <= j < n) has number `line[j]`, `count[j]`
 * columns, and column `i` (i < min(count[j], MAX_COLUMNS)) at `buf[start[j * MAX_COLUMNS + i],
 * end[j * MAX_COLUMNS + i])`; `ascii[j]` is 1 when the line is pure ASCII.
 */
export interface ColumnBatch {
  buf: Buffer;
  n: number;
  line: Int32Array;
  count: Int32Array;
  ascii: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  /** Bytes of `buf` holding the chunk's complete lines (those the batch's offsets point into). */
  size: number;
  /** `buf[0, size)` decoded as Latin-1, made on first use by `chunkText` (one per chunk). */
  text: string | undefined;
}

/**
 * The chunk of a batch as a Latin-1 string (one character per byte, so byte offsets are string
 * offsets), decoded once per chunk: `parseDecimal` slices the numbers it hands to `Number()` from it
 * instead of decoding each one from the bytes.
 */
export function chunkText(b: ColumnBatch): string {
  return (b.text ??= b.buf.toString('latin1', 0, b.size));
}

const LF = 0x0a;
const CHUNK = 4 << 20;
/** Lines per batch (bounds the batch arrays whatever the chunk holds). */
const BATCH_LINES = 4096;

/** Column `i` of the line as a string. */
export function column(l: ColumnLine, i: number): string {
  return l.buf.toString(l.ascii ? 'latin1' : 'utf8', l.start[i]!, l.end[i]!);
}

/** Column `i` of line `j` of a batch as a string. */
export function batchColumn(b: ColumnBatch, j: number, i: number): string {
  const c = j * MAX_COLUMNS + i;
  return b.buf.toString(b.ascii[j] === 1 ? 'latin1' : 'utf8', b.start[c]!, b.end[c]!);
}

/**
 * Interns columns: the same bytes always get the same small integer id (0, 1, 2, ... in order of
 * first appearance) and the same string object (`strings[id]`, decoded once: Latin-1 when the
 * bytes are ASCII, else UTF-8). A run names a few thousand documents on tens of thousands of lines,
 * so this keeps one string per document instead of one per line (less memory and garbage
 * collection, and Map lookups reuse the string's cached hash). An open-addressing table keyed by
 * the FNV-1a hash of the bytes, which are kept in an arena for the comparison.
 */
export class ColumnInterner {
  /** The string of each id. */
  readonly strings: string[] = [];
  private table = new Int32Array(1024); // slot -> id + 1 (0: empty)
  private hashes = new Int32Array(512); // id -> hash
  private offsets = new Int32Array(513); // id -> start in arena; id + 1 -> end
  private arena = new Uint8Array(1 << 14);

  /** Number of distinct columns seen. */
  get size(): number {
    return this.strings.length;
  }

  /** The id of the bytes `buf[s, e)`. */
  id(buf: Uint8Array, s: number, e: number): number {
    let h = 0x811c9dc5 | 0;
    for (let j = s; j < e; j++) h = Math.imul(h ^ buf[j]!, 0x01000193);
    const table = this.table;
    const mask = table.length - 1;
    const n = e - s;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const k = table[slot]! - 1;
      if (k < 0) return this.add(buf, s, e, h, slot);
      if (this.hashes[k] === h) {
        const a = this.offsets[k]!;
        if (this.offsets[k + 1]! - a === n) {
          const arena = this.arena;
          let j = 0;
          while (j < n && arena[a + j] === buf[s + j]) j++;
          if (j === n) return k;
        }
      }
    }
  }

  /** Decodes like {@link column}, returning the same string object for the same bytes. */
  get(l: ColumnLine, i: number): string {
    return this.strings[this.id(l.buf, l.start[i]!, l.end[i]!)]!;
  }

  private add(buf: Uint8Array, s: number, e: number, h: number, slot: number): number {
    const id = this.strings.length;
    let or = 0;
    for (let j = s; j < e; j++) or |= buf[j]!;
    this.strings.push(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString(or & 0x80 ? 'utf8' : 'latin1', s, e));
    // Each array is grown by its own bound: `offsets` needs id + 2 entries, `hashes` id + 1.
    if (id + 2 > this.offsets.length) {
      const o = new Int32Array(Math.max(this.offsets.length * 2, id + 2));
      o.set(this.offsets);
      this.offsets = o;
    }
    if (id + 1 > this.hashes.length) {
      const hs = new Int32Array(Math.max(this.hashes.length * 2, id + 1));
      hs.set(this.hashes);
      this.hashes = hs;
    }
    const at = this.offsets[id]!;
    if (at + (e - s) > this.arena.length) {
      const a = new Uint8Array(Math.max(this.arena.length * 2, at + (e - s)));
      a.set(this.arena.subarray(0, at));
      this.arena = a;
    }
    this.arena.set(buf.subarray(s, e), at);
    this.offsets[id + 1] = at + (e - s);
    this.hashes[id] = h;
    this.table[slot] = id + 1;
    if ((id + 1) * 2 > this.table.length) this.grow();
    return id;
  }

  private grow(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.strings.length; id++) {
      let slot = this.hashes[id]! & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }
}

/**
 * Follows one column from line to line (the query id of a run or qrels file, whose lines of one
 * query are usually contiguous): `changed` tells whether a line's column differs from the previous
 * line's, comparing bytes against a copy (the chunk is reused), so no string is decoded per line.
 */
export class ColumnTracker {
  private bytes = new Uint8Array(64);
  private len = -1;

  /** Whether column `i` of batch line `j` differs from the last one seen (and remembers it when it does). */
  changed(b: ColumnBatch, j: number, i: number): boolean {
    const s = b.start[j * MAX_COLUMNS + i]!;
    const n = b.end[j * MAX_COLUMNS + i]! - s;
    const buf = b.buf;
    if (n === this.len) {
      const q = this.bytes;
      let k = 0;
      while (k < n && q[k] === buf[s + k]) k++;
      if (k === n) return false;
    }
    if (n > this.bytes.length) this.bytes = new Uint8Array(2 * n);
    this.bytes.set(buf.subarray(s, s + n));
    this.len = n;
    return true;
  }
}

/** Exact powers of ten as doubles (10^0 .. 10^22 are all exactly representable). */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
const TWO_53 = 2 ** 53;

/**
 * Parses a decimal number (`[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?`, no hex, inf or nan)
 * from `buf[s, e)`. Returns NaN when the text is not such a number, else the double that `Number()`
 * gives for the text (possibly ±Infinity). Fast path (Clinger): a mantissa below 2^53 and a power of
 * ten up to 10^22 are both exact doubles, so one multiplication or division is correctly rounded;
 * anything else goes through `Number()` on the text: sliced from `chunkText(batch)` when `buf` is
 * that batch's chunk, else decoded from the bytes.
 */
export function parseDecimal(buf: Buffer, s: number, e: number, batch?: ColumnBatch): number {
  let i = s;
  let neg = false;
  if (i < e && (buf[i] === 0x2b || buf[i] === 0x2d)) neg = buf[i++] === 0x2d;
  let mant = 0;
  let digits = 0;
  let exact = true;
  let scale = 0;
  let intDigits = 0;
  while (i < e) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) break;
    intDigits++;
    if (mant !== 0 || d !== 0) {
      const m = mant * 10 + d;
      if (m >= TWO_53) exact = false;
      else mant = m;
      digits++;
    }
    if (!exact) scale++;
    i++;
  }
  let fracDigits = 0;
  if (i < e && buf[i] === 0x2e) {
    i++;
    while (i < e) {
      const d = buf[i]! - 0x30;
      if (d < 0 || d > 9) break;
      fracDigits++;
      if (exact && (mant !== 0 || d !== 0)) {
        const m = mant * 10 + d;
        if (m >= TWO_53) exact = false;
        else {
          mant = m;
          scale--;
        }
      } else if (exact) scale--; // leading zeros of the fraction
      i++;
    }
  }
  if (intDigits === 0 && fracDigits === 0) return Number.NaN;
  if (i < e && (buf[i] === 0x65 || buf[i] === 0x45)) {
    i++;
    let eneg = false;
    if (i < e && (buf[i] === 0x2b || buf[i] === 0x2d)) eneg = buf[i++] === 0x2d;
    const from = i;
    let x = 0;
    while (i < e) {
      const d = buf[i]! - 0x30;
      if (d < 0 || d > 9) break;
      if (x < 1e6) x = x * 10 + d;
      i++;
    }
    if (i === from) return Number.NaN;
    scale += eneg ? -x : x;
  }
  if (i !== e) return Number.NaN;
  if (exact && scale >= -22 && scale <= 22) {
    const v = scale >= 0 ? mant * POW10[scale]! : mant / POW10[-scale]!;
    return neg ? -v : v;
  }
  return Number(batch !== undefined ? chunkText(batch).slice(s, e) : buf.toString('latin1', s, e));
}

/** Parses `[+-]?[0-9]+` from `buf[s, e)`; NaN when it is not such an integer or not a safe integer. */
export function parseInteger(buf: Buffer, s: number, e: number): number {
  let i = s;
  let neg = false;
  if (i < e && (buf[i] === 0x2b || buf[i] === 0x2d)) neg = buf[i++] === 0x2d;
  if (i === e) return Number.NaN;
  let v = 0;
  for (; i < e; i++) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) return Number.NaN;
    v = v * 10 + d;
  }
  if (!Number.isSafeInteger(v)) return Number.NaN;
  return neg ? -v : v;
}

/** The 1-based line within `buf[from, to)` (whose first line is `firstLine`) that is not valid UTF-8. */
function badUtf8Line(buf: Buffer, from: number, to: number, firstLine: number): number {
  let line = firstLine;
  let s = from;
  while (s < to) {
    let e = buf.indexOf(LF, s);
    if (e === -1 || e > to) e = to;
    if (!isUtf8(buf.subarray(s, e))) return line;
    line++;
    s = e + 1;
  }
  return line;
}

/** Where `splitLines` stopped: the byte offset and the number of the last line it passed. */
interface SplitState {
  pos: number;
  lineNo: number;
}

/**
 * Splits the lines of `buf[st.pos, to)` (complete lines; the last may lack its LF only at the end of
 * the file) into `b`, skipping blank ones, until the batch is full or line `stopLine` (which is not
 * split) is reached. Advances `st`.
 */
function splitLines(b: ColumnBatch, buf: Buffer, to: number, st: SplitState, stopLine: number, allAscii: boolean): void {
  const start = b.start;
  const end = b.end;
  let i = st.pos;
  let lineNo = st.lineNo;
  let n = 0;
  while (i < to && n < BATCH_LINES && lineNo + 1 !== stopLine) {
    lineNo++;
    let count = 0;
    const lineStart = i;
    const base = n * MAX_COLUMNS;
    let c = 0;
    while (i < to) {
      c = buf[i]!;
      if (c > 0x20) {
        // a column: up to the next separator or LF
        const s = i;
        i++;
        while (i < to) {
          c = buf[i]!;
          if (c <= 0x20 && (c === 0x20 || (c >= 0x09 && c <= 0x0d))) break;
          i++;
        }
        if (count < MAX_COLUMNS) {
          start[base + count] = s;
          end[base + count] = i;
        }
        count++;
        continue;
      }
      if (c === LF) break;
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
        i++;
        continue;
      }
      // another control byte (below 0x20): part of a column
      const s = i;
      i++;
      while (i < to) {
        c = buf[i]!;
        if (c <= 0x20 && (c === 0x20 || (c >= 0x09 && c <= 0x0d))) break;
        i++;
      }
      if (count < MAX_COLUMNS) {
        start[base + count] = s;
        end[base + count] = i;
      }
      count++;
    }
    i++; // past the LF
    if (count === 0) continue;
    b.line[n] = lineNo;
    b.count[n] = count;
    b.ascii[n] = allAscii || isAscii(buf.subarray(lineStart, i)) ? 1 : 0;
    n++;
  }
  b.n = n;
  st.pos = i > to ? to : i;
  st.lineNo = lineNo;
}

/**
 * Calls `onBatch` with every non-blank line of the file, in order, a batch of consecutive lines at
 * a time (see the module comment and `ColumnBatch`). The batch is reused: read what is needed
 * during the call. Errors thrown by `onBatch` propagate; file errors become UserErrors naming the
 * file. `chunkBytes`: the read size (a line longer than that grows the buffer).
 */
export async function scanColumnBatches(path: string, onBatch: (b: ColumnBatch) => void, chunkBytes = CHUNK): Promise<void> {
  requireFile(path);
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new UserError(`${where(path)}cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  const b: ColumnBatch = {
    buf: Buffer.allocUnsafe(Math.max(16, chunkBytes)),
    n: 0,
    line: new Int32Array(BATCH_LINES),
    count: new Int32Array(BATCH_LINES),
    ascii: new Uint8Array(BATCH_LINES),
    start: new Int32Array(BATCH_LINES * MAX_COLUMNS),
    end: new Int32Array(BATCH_LINES * MAX_COLUMNS),
    size: 0,
    text: undefined,
  };
  const st: SplitState = { pos: 0, lineNo: 0 };
  try {
    let buf = b.buf;
    let have = 0; // bytes in buf
    let eof = false;
    let first = true;
    while (!eof || have > 0) {
      if (!eof) {
        if (have === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, have);
          buf = b.buf = bigger;
        }
        let bytesRead: number;
        try {
          ({ bytesRead } = await fh.read(buf, have, buf.length - have, null));
        } catch (e) {
          throw new UserError(`${where(path)}cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
        }
        if (bytesRead === 0) eof = true;
        have += bytesRead;
      }
      if (first) {
        if (have < 3 && !eof) continue;
        first = false;
        if (have >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
          buf.copy(buf, 0, 3, have);
          have -= 3;
        }
      }
      // Complete lines: up to the last LF (everything at the end of the file).
      let to = have;
      if (!eof) {
        const lf = have > 0 ? buf.lastIndexOf(LF, have - 1) : -1;
        if (lf === -1) continue; // no complete line yet: read on (growing the buffer when full)
        to = lf + 1;
      }
      const valid = isUtf8(buf.subarray(0, to));
      const allAscii = valid && isAscii(buf.subarray(0, to));
      const badLine = valid ? 0 : badUtf8Line(buf, 0, to, st.lineNo + 1);
      st.pos = 0;
      b.size = to;
      b.text = undefined;
      while (st.pos < to) {
        splitLines(b, buf, to, st, badLine, allAscii);
        if (b.n > 0) onBatch(b);
        if (st.lineNo + 1 === badLine) {
          throw new UserError(`${where(path, badLine)}invalid UTF-8 byte sequence (the file must be UTF-8)`);
        }
      }
      // Keep the incomplete tail at the front of the buffer.
      if (to < have) buf.copy(buf, 0, to, have);
      have -= to;
      if (eof) break;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Calls `onLine` for every non-blank line of the file, in order (see the module comment): the
 * batches of `scanColumnBatches` one line at a time. The `ColumnLine` passed is reused: read what
 * is needed during the call. Errors thrown by `onLine` propagate; file errors become UserErrors
 * naming the file. `chunkBytes`: the read size (a line longer than that grows the buffer).
 */
export async function scanColumns(path: string, onLine: (l: ColumnLine) => void, chunkBytes = CHUNK): Promise<void> {
  const l: ColumnLine = {
    buf: Buffer.alloc(0),
    line: 0,
    count: 0,
    start: new Int32Array(MAX_COLUMNS),
    end: new Int32Array(MAX_COLUMNS),
    ascii: true,
  };
  await scanColumnBatches(
    path,
    (b) => {
      l.buf = b.buf;
      for (let j = 0; j < b.n; j++) {
        const base = j * MAX_COLUMNS;
        l.start.set(b.start.subarray(base, base + MAX_COLUMNS));
        l.end.set(b.end.subarray(base, base + MAX_COLUMNS));
        l.line = b.line[j]!;
        l.count = b.count[j]!;
        l.ascii = b.ascii[j] === 1;
        onLine(l);
      }
    },
    chunkBytes,
  );
}
