/**
 * Another benchmark's scores per model, as a CSV file (`compare --correlate FILE`).
 *
 * - UTF-8 (a leading BOM is ignored), LF or CRLF line ends, RFC 4180 quoting (`"a, b"`, `""` inside
 *   quotes); blank lines and lines starting with `#` are skipped.
 * - The first remaining line is the header. The name column is the first whose header is `run`,
 *   `model`, `name` or `system` (case-insensitive, trimmed), else the first column. The score column
 *   is the one headed `score` (case-insensitive), else, when the file has exactly two columns, the
 *   other one (so `model,MTEB Retrieval` works); other columns are ignored.
 * - Every data line has as many fields as the header; the name is not empty and not given twice; the
 *   score is a finite decimal number (`61.2`, `0.612`, `6.1e1`; surrounding spaces allowed).
 * Bad input is one line naming file:line:column (UserError). The file is read with a bound.
 */
import { UserError } from '../core/errors.js';
import { readBoundedSync } from '../util/files.js';

/** Largest scores file read (bytes): far above any list of models. */
export const MAX_SCORES_FILE_BYTES = 4 << 20;

export const NAME_HEADERS = ['run', 'model', 'name', 'system'] as const;
export const SCORE_HEADER = 'score';

export interface BenchmarkScore {
  name: string;
  score: number;
  /** 1-based line of the file. */
  line: number;
}

export interface BenchmarkScores {
  file: string;
  /** The headers of the name and score columns, as written. */
  nameColumn: string;
  scoreColumn: string;
  rows: BenchmarkScore[];
}

interface Field {
  text: string;
  /** 1-based column of the field's first character. */
  column: number;
}

/** One CSV record starting at `text[at]`: its fields and where the next one starts. */
function readRecord(text: string, at: number, line: number, file: string): { fields: Field[]; next: number; lines: number } {
  const fields: Field[] = [];
  let i = at;
  let lines = 1;
  let lineStart = at;
  for (;;) {
    const column = i - lineStart + 1;
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new UserError(`${file}:${line}:${column}: a quoted field is not closed`);
        const ch = text[i]!;
        if (ch === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (ch === '\n') {
          lines++;
          lineStart = i + 1;
        }
        value += ch;
        i++;
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        throw new UserError(`${file}:${line + lines - 1}:${i - lineStart + 1}: unexpected character after a quoted field`);
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        if (text[i] === '"') throw new UserError(`${file}:${line}:${i - lineStart + 1}: a quote inside an unquoted field (quote the whole field and double the quote)`);
        value += text[i];
        i++;
      }
    }
    fields.push({ text: value, column });
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else if (text[i] === '\n' || text[i] === '\r') i++;
    return { fields, next: i, lines };
  }
}

/** Parses the text of a scores file (see the module comment); `file` names it in messages. */
export function parseBenchmarkScores(text: string, file: string): BenchmarkScores {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records: { fields: Field[]; line: number }[] = [];
  let line = 1;
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\n', at);
    const raw = text.slice(at, end < 0 ? text.length : end).replace(/\r$/, '');
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) {
      at = end < 0 ? text.length : end + 1;
      line++;
      continue;
    }
    const r = readRecord(text, at, line, file);
    records.push({ fields: r.fields, line });
    at = r.next;
    line += r.lines;
  }
  if (records.length === 0) throw new UserError(`${file}: empty (expected a header line such as "model,score" and one line per model)`);
  const header = records[0]!;
  const names = header.fields.map((f) => f.text.trim());
  const lower = names.map((h) => h.toLowerCase());
  let nameAt = lower.findIndex((h) => (NAME_HEADERS as readonly string[]).includes(h));
  if (nameAt < 0) nameAt = 0;
  let scoreAt = lower.indexOf(SCORE_HEADER);
  if (scoreAt < 0 && names.length === 2) scoreAt = 1 - nameAt;
  if (scoreAt < 0 || scoreAt === nameAt) {
    throw new UserError(
      `${file}:${header.line}:1: which column holds the score? Head it "score" (or give exactly two columns: name, score); columns: ${names.map((h) => JSON.stringify(h)).join(', ')}`,
    );
  }
  const rows: BenchmarkScore[] = [];
  const seen = new Map<string, number>();
  for (const r of records.slice(1)) {
    if (r.fields.length !== names.length) {
      // the first field too many, or the end of the last field when one is missing
      const last = r.fields[r.fields.length - 1]!;
      const column = r.fields.length > names.length ? r.fields[names.length]!.column : last.column + last.text.length;
      throw new UserError(`${file}:${r.line}:${column}: ${r.fields.length} field${r.fields.length === 1 ? '' : 's'}, the header has ${names.length}`);
    }
    const nameField = r.fields[nameAt]!;
    const scoreField = r.fields[scoreAt]!;
    const name = nameField.text.trim();
    if (name === '') throw new UserError(`${file}:${r.line}:${nameField.column}: empty ${JSON.stringify(names[nameAt])}`);
    const before = seen.get(name);
    if (before !== undefined) throw new UserError(`${file}:${r.line}:${nameField.column}: ${JSON.stringify(name)} is given twice (also line ${before})`);
    seen.set(name, r.line);
    const s = scoreField.text.trim();
    const score = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : Number.NaN;
    if (!Number.isFinite(score)) throw new UserError(`${file}:${r.line}:${scoreField.column}: ${JSON.stringify(names[scoreAt])}: expected a number, got ${JSON.stringify(scoreField.text)}`);
    rows.push({ name, score, line: r.line });
  }
  if (rows.length === 0) throw new UserError(`${file}:${header.line}: a header and no scores`);
  return { file, nameColumn: names[nameAt]!, scoreColumn: names[scoreAt]!, rows };
}

/** Reads and parses a scores file (bounded read; UserError naming the file). */
export function readBenchmarkScores(path: string): BenchmarkScores {
  const bytes = readBoundedSync(path, 'scores file (--correlate)', MAX_SCORES_FILE_BYTES);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UserError(`${path}: the scores file (--correlate) is not UTF-8 text`);
  }
  return parseBenchmarkScores(text, path);
}
