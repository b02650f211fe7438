/**
 * A byte-level reader of whitespace-separated TREC files (runs, qrels): it reads the file in large
 * chunks and hands each non-blank line to a callback as byte offsets of its columns, without
 * decoding the line, splitting it into strings or allocating per line. The caller decodes only the
 * columns it keeps (`column`, `sameBytes`) and parses numbers straight from the bytes
 * (`parseDecimal`, `parseInteger`).
 *
 * Same rules as the line reader (lines.ts): strict UTF-8 (an invalid byte sequence is an error naming
 * its line, checked before that line is handed over), `\n` or `\r\n` terminators, a UTF-8 BOM at the
 * very start skipped, 1-based line numbers, columns separated by runs of ASCII space, tab, `\r`,
 * `\f`, `\v` (as trec_eval splits them); blank lines are skipped.
 */
import { isUtf8 } from 'node:buffer';
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

const LF = 0x0a;
const CHUNK = 4 << 20;

/** Space, tab, \v, \f, \r: the TREC column separators (LF ends the line). */
function isSep(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d && c !== LF);
}

/** Column `i` of the line as a string. */
export function column(l: ColumnLine, i: number): string {
  return l.buf.toString(l.ascii ? 'latin1' : 'utf8', l.start[i]!, l.end[i]!);
}

/**
 * Decodes columns like {@link column}, but returns the same string object for the same bytes (pure
 * ASCII lines; other lines are decoded as usual): a run names a few thousand documents on tens of
 * thousands of lines, so this keeps one string per document instead of one per line (less memory
 * and garbage collection, and Map lookups reuse the string's cached hash). An open-addressing table
 * keyed by the FNV-1a hash of the bytes.
 */
export class ColumnInterner {
  private strings: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
  private hashes = new Int32Array(1024);
  private size = 0;

  get(l: ColumnLine, i: number): string {
    if (!l.ascii) return column(l, i);
    const b = l.buf;
    const s = l.start[i]!;
    const e = l.end[i]!;
    let h = 0x811c9dc5 | 0;
    for (let j = s; j < e; j++) h = Math.imul(h ^ b[j]!, 0x01000193);
    const mask = this.strings.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const k = this.strings[slot];
      if (k === undefined) {
        const str = b.toString('latin1', s, e);
        this.strings[slot] = str;
        this.hashes[slot] = h;
        if (++this.size * 2 > this.strings.length) this.grow();
        return str;
      }
      if (this.hashes[slot] === h && k.length === e - s) {
        let j = 0;
        while (j < k.length && k.charCodeAt(j) === b[s + j]) j++;
        if (j === k.length) return k;
      }
    }
  }

  private grow(): void {
    const strings = this.strings;
    const hashes = this.hashes;
    this.strings = new Array<string | undefined>(strings.length * 2).fill(undefined);
    this.hashes = new Int32Array(strings.length * 2);
    const mask = this.strings.length - 1;
    strings.forEach((k, i) => {
      if (k === undefined) return;
      let slot = hashes[i]! & mask;
      while (this.strings[slot] !== undefined) slot = (slot + 1) & mask;
      this.strings[slot] = k;
      this.hashes[slot] = hashes[i]!;
    });
  }
}

/** Whether column `i` of the line holds the same bytes as `other[from, to)`. */
export function sameBytes(l: ColumnLine, i: number, other: Buffer, from: number, to: number): boolean {
  const s = l.start[i]!;
  const n = l.end[i]! - s;
  if (n !== to - from) return false;
  const b = l.buf;
  for (let j = 0; j < n; j++) if (b[s + j] !== other[from + j]) return false;
  return true;
}

/** Exact powers of ten as doubles (10^0 .. 10^22 are all exactly representable). */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
const TWO_53 = 2 ** 53;

/**
 * Parses a decimal number (`[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?`, no hex, inf or nan)
 * from `buf[s, e)`. Returns NaN when the text is not such a number, else the double that `Number()`
 * gives for the text (possibly ±Infinity). Fast path (Clinger): a mantissa below 2^53 and a power of
 * ten up to 10^22 are both exact doubles, so one multiplication or division is correctly rounded;
 * anything else goes through `Number()` on the text.
 */
export function parseDecimal(buf: Buffer, s: number, e: number): number {
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
  return Number(buf.toString('latin1', s, e));
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

/**
 * Calls `onLine` for every non-blank line of the file, in order (see the module comment). The
 * `ColumnLine` passed is reused: read what is needed during the call. Errors thrown by `onLine`
 * propagate; file errors become UserErrors naming the file. `chunkBytes`: the read size (a line
 * longer than that grows the buffer).
 */
export async function scanColumns(path: string, onLine: (l: ColumnLine) => void, chunkBytes = CHUNK): Promise<void> {
  requireFile(path);
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new UserError(`${where(path)}cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  const l: ColumnLine = {
    buf: Buffer.allocUnsafe(Math.max(16, chunkBytes)),
    line: 0,
    count: 0,
    start: new Int32Array(MAX_COLUMNS),
    end: new Int32Array(MAX_COLUMNS),
    ascii: true,
  };
  try {
    let buf = l.buf;
    let have = 0; // bytes in buf
    let eof = false;
    let first = true;
    let lineNo = 0;
    while (!eof || have > 0) {
      if (!eof) {
        if (have === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, have);
          buf = l.buf = bigger;
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
      const from = 0;
      const valid = isUtf8(buf.subarray(from, to));
      const badLine = valid ? 0 : badUtf8Line(buf, from, to, lineNo + 1);
      let i = from;
      while (i < to) {
        lineNo++;
        if (lineNo === badLine) throw new UserError(`${where(path, lineNo)}invalid UTF-8 byte sequence (the file must be UTF-8)`);
        let count = 0;
        let ascii = true;
        let c = 0;
        while (i < to && (c = buf[i]!) !== LF) {
          if (isSep(c)) {
            i++;
            continue;
          }
          const s = i;
          let or = 0;
          while (i < to && (c = buf[i]!) !== LF && !isSep(c)) {
            or |= c;
            i++;
          }
          if (count < MAX_COLUMNS) {
            l.start[count] = s;
            l.end[count] = i;
          }
          count++;
          if (or & 0x80) ascii = false;
        }
        i++; // past the LF
        if (count === 0) continue;
        l.line = lineNo;
        l.count = count;
        l.ascii = ascii;
        onLine(l);
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
