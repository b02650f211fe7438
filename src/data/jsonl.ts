/**
 * Streaming JSON Lines reader, reading files the way the official SkillRet evaluation does
 * (`[json.loads(line) for line in open(path, encoding='utf-8') if line.strip()]`), while hashing the
 * raw bytes (SHA-256) and counting them.
 *
 * Decisions (each one matches Python's reader unless said otherwise):
 * - Streamed in chunks; a line is only assembled once its terminator is seen. No line-length cap
 *   (the real skills file has lines over 100 KB; memory is bounded by the longest line, not the file).
 * - Line terminators are Python's universal newlines: `\n`, `\r\n` and a lone `\r`. Line numbers are
 *   1-based and count every terminator, so they match an editor and Python's `enumerate(f, 1)`.
 * - Blank lines (empty after Python's `str.strip()`, see text.ts) are skipped but still counted.
 * - A UTF-8 BOM at the very start of the file is skipped (it is still hashed). Python's reader would
 *   reject it ("Unexpected UTF-8 BOM"); we accept it because it carries no data. A BOM anywhere else
 *   is ordinary text and makes that line malformed JSON.
 * - Invalid UTF-8 is an error naming the line (Python raises UnicodeDecodeError); bytes are never
 *   replaced by U+FFFD, so no text is silently changed. Valid encoded U+FFFD characters pass through.
 * - JSON is parsed with JSON.parse. Python's json also accepts the bare tokens `NaN`, `Infinity` and
 *   `-Infinity`; a line that fails JSON.parse only because of them is re-parsed with those tokens (outside
 *   strings) read as `null`, so a file written by Python's json.dumps still loads.
 * - Every line must hold a JSON object; anything else is an error naming the line.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { requireFile } from '../util/files.js';
import { UserError, where } from '../core/errors.js';
import { pyStrip } from './text.js';

/** One non-blank line of a JSONL file. */
export interface JsonlRecord {
  /** 1-based line number in the file. */
  line: number;
  value: Record<string, unknown>;
  /** Byte offset of the line in the file (after a leading BOM on line 1) and its length in bytes, terminator excluded. */
  offset: number;
  length: number;
}

/** What streaming a whole file found out about it. */
export interface JsonlSummary {
  /** SHA-256 of the raw file bytes (BOM and line endings included), lower-case hex. */
  sha256: string;
  /** Number of bytes in the file. */
  bytes: number;
  /** Number of records (non-blank lines). */
  records: number;
}

const LF = 0x0a;
const CR = 0x0d;

/** Shortens and escapes a parser message so the error stays one printable line. */
function oneLine(s: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const esc = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return esc.length > max ? esc.slice(0, max) + '…' : esc;
}

/**
 * Replaces the bare tokens NaN, Infinity and -Infinity outside JSON strings by `null`.
 * Returns undefined when there were none.
 */
function replacePythonNonFinite(text: string): string | undefined {
  let out = '';
  let last = 0;
  let inString = false;
  let changed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    let len = 0;
    if (text.startsWith('NaN', i)) len = 3;
    else if (text.startsWith('Infinity', i)) len = 8;
    else if (text.startsWith('-Infinity', i)) len = 9;
    if (len > 0) {
      out += text.slice(last, i) + 'null';
      last = i + len;
      i += len - 1;
      changed = true;
    }
  }
  return changed ? out + text.slice(last) : undefined;
}

/** Parses one decoded line, or throws a UserError naming file:line. */
export function parseJsonlLine(file: string, line: number, text: string): Record<string, unknown> {
  return parseLine(file, line, text);
}

function parseLine(file: string, line: number, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const alt = /NaN|Infinity/.test(text) ? replacePythonNonFinite(text) : undefined;
    let ok = false;
    if (alt !== undefined) {
      try {
        value = JSON.parse(alt);
        ok = true;
      } catch {
        /* report the original message */
      }
    }
    if (!ok) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new UserError(`${where(file, line)}malformed JSON (${oneLine(msg)})`);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new UserError(`${where(file, line)}expected a JSON object, got ${kind}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Streams the records of a JSONL file, one per non-blank line. The generator's return value
 * (what `next()` gives with `done: true`) is the file's summary: SHA-256 of the raw bytes, byte
 * count and record count. Stopping early (break) leaves the summary unknown.
 *
 * @param chunkSize read size in bytes (tests use small values to exercise chunk boundaries)
 */
export async function* readJsonl(path: string, chunkSize = 1 << 20): AsyncGenerator<JsonlRecord, JsonlSummary> {
  requireFile(path);

  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let bytes = 0;
  let records = 0;
  let lineNo = 0;
  /** Pieces of the current, not yet terminated, line. */
  let pieces: Buffer[] = [];
  /** The previous chunk ended with CR: a LF at the start of the next chunk belongs to it. */
  let pendingCR = false;
  /** Byte offset where the current line starts. */
  let lineStart = 0;

  const finishLine = (buf: Buffer): JsonlRecord | undefined => {
    lineNo++;
    let offset = lineStart;
    // Line 1 starts at byte 0, so this strips exactly a BOM at the start of the file.
    if (lineNo === 1 && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      buf = buf.subarray(3);
      offset += 3;
    }
    let text: string;
    try {
      text = decoder.decode(buf);
    } catch {
      throw new UserError(`${where(path, lineNo)}invalid UTF-8 byte sequence (the file must be UTF-8)`);
    }
    if (pyStrip(text) === '') return undefined;
    records++;
    return { line: lineNo, value: parseLine(path, lineNo, text), offset, length: buf.length };
  };

  const stream = createReadStream(path, { highWaterMark: chunkSize });
  try {
    for await (const raw of stream) {
      const chunk = raw as Buffer;
      hash.update(chunk);
      const base = bytes;
      bytes += chunk.length;
      let pos = 0;
      if (pendingCR && chunk.length > 0) {
        if (chunk[0] === LF) {
          pos = 1;
          lineStart = base + 1;
        }
        pendingCR = false;
      }
      // Next LF / CR positions are cached so each chunk is scanned once (not once per line).
      let nextLF = chunk.indexOf(LF, pos);
      let nextCR = chunk.indexOf(CR, pos);
      while (pos < chunk.length) {
        if (nextLF !== -1 && nextLF < pos) nextLF = chunk.indexOf(LF, pos);
        if (nextCR !== -1 && nextCR < pos) nextCR = chunk.indexOf(CR, pos);
        let end: number;
        if (nextLF === -1) end = nextCR;
        else if (nextCR === -1) end = nextLF;
        else end = Math.min(nextLF, nextCR);
        if (end === -1) {
          pieces.push(chunk.subarray(pos));
          break;
        }
        pieces.push(chunk.subarray(pos, end));
        const lineBuf = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
        pieces = [];
        let next = end + 1;
        if (chunk[end] === CR) {
          if (end + 1 < chunk.length) {
            if (chunk[end + 1] === LF) next = end + 2;
          } else {
            pendingCR = true;
          }
        }
        pos = next;
        const rec = finishLine(lineBuf);
        lineStart = base + next;
        if (rec) yield rec;
      }
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${where(path)}cannot read file (${code ?? (e instanceof Error ? e.message : String(e))})`);
  } finally {
    stream.destroy();
  }
  if (pieces.length > 0) {
    const rest = Buffer.concat(pieces);
    pieces = [];
    if (rest.length > 0) {
      const rec = finishLine(rest);
      if (rec) yield rec;
    }
  }
  return { sha256: hash.digest('hex'), bytes, records };
}

/**
 * Reads a whole JSONL file, calling `onRecord` for each record in file order, and returns the
 * file's SHA-256, byte count and record count (all computed in the same single pass).
 */
export async function readJsonlFile(
  path: string,
  onRecord: (value: Record<string, unknown>, line: number, offset: number, length: number) => void,
  chunkSize?: number,
): Promise<JsonlSummary> {
  const it = readJsonl(path, chunkSize);
  for (;;) {
    const r = await it.next();
    if (r.done) return r.value;
    onRecord(r.value.value, r.value.line, r.value.offset, r.value.length);
  }
}
