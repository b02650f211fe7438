/**
 * Streams the lines of a text file (TREC runs and qrels can be hundreds of MB): UTF-8, strict
 * (invalid bytes are an error naming the line, never silently replaced), `\n` or `\r\n` terminators,
 * a UTF-8 BOM at the very start skipped. Line numbers are 1-based. Also splits TREC columns.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { UserError, where } from '../core/errors.js';
import { requireFile } from '../util/files.js';

export interface TextLine {
  /** 1-based line number. */
  line: number;
  /** The line without its terminator. */
  text: string;
}

const LF = 0x0a;
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export { requireFile };

function decodeLine(file: string, line: number, buf: Buffer): string {
  if (line === 1 && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--;
  const body = buf.subarray(0, end);
  const text = body.toString('utf8');
  // toString replaces bad bytes by U+FFFD: only then is the strict decoder needed to tell them apart.
  if (text.includes('\ufffd')) {
    try {
      strictDecoder.decode(body);
    } catch {
      throw new UserError(`${where(file, line)}invalid UTF-8 byte sequence (the file must be UTF-8)`);
    }
  }
  return text;
}

/**
 * Yields the lines of the file (blank ones included), in order, a batch per read chunk (~1 MiB):
 * one await per chunk rather than per line keeps large run files cheap to read.
 */
export async function* readLineBatches(path: string): AsyncGenerator<TextLine[]> {
  requireFile(path);
  let lineNo = 0;
  let pieces: Buffer[] = [];
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  try {
    for await (const raw of stream) {
      const chunk = raw as Buffer;
      const batch: TextLine[] = [];
      let pos = 0;
      for (;;) {
        const end = chunk.indexOf(LF, pos);
        if (end === -1) {
          if (pos < chunk.length) pieces.push(chunk.subarray(pos));
          break;
        }
        pieces.push(chunk.subarray(pos, end));
        const buf = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
        pieces = [];
        lineNo++;
        batch.push({ line: lineNo, text: decodeLine(path, lineNo, buf) });
        pos = end + 1;
      }
      if (batch.length) yield batch;
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${where(path)}cannot read file (${code ?? (e instanceof Error ? e.message : String(e))})`);
  } finally {
    stream.destroy();
  }
  if (pieces.length > 0) {
    lineNo++;
    yield [{ line: lineNo, text: decodeLine(path, lineNo, Buffer.concat(pieces)) }];
  }
}

/** Yields every line of the file (blank ones included), in order. */
export async function* readLines(path: string): AsyncGenerator<TextLine> {
  for await (const batch of readLineBatches(path)) yield* batch;
}

/** Splits a TREC line into columns on ASCII spaces and tabs (as trec_eval does). */
export function splitColumns(text: string): string[] {
  const cols = text.split(COLUMN_SEP);
  if (cols[0] === '') cols.shift();
  if (cols.length > 0 && cols[cols.length - 1] === '') cols.pop();
  return cols;
}

const COLUMN_SEP = /[ \t\f\v\r]+/;

/**
 * The first character of the file that is not whitespace (a leading BOM skipped), or undefined
 * for an empty or all-blank file. Reads only as much of the file as needed.
 */
export async function firstNonBlankChar(path: string): Promise<string | undefined> {
  requireFile(path);
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 16);
    let first = true;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return undefined;
      let start = 0;
      if (first && bytesRead >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
      first = false;
      for (let i = start; i < bytesRead; i++) {
        const c = buf[i]!;
        if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c) continue;
        return String.fromCharCode(c);
      }
    }
  } finally {
    await fh.close();
  }
}
