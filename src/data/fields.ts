/**
 * Typed readers for the fields of one JSONL record. Each one throws a one-line UserError
 * `file:line: field: what is wrong` when the value has the wrong type.
 */
import { UserError, where } from '../core/errors.js';

/** Where a record came from, for error messages. */
export interface RecordAt {
  file: string;
  line: number;
}

/** A short, printable description of a JSON value for an error message. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (field missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') {
    if (v === '') return 'an empty string';
    const j = JSON.stringify(v);
    return `the string ${j.length > 60 ? j.slice(0, 60) + '…"' : j}`;
  }
  if (typeof v === 'number') return `the number ${String(v)}`;
  if (typeof v === 'boolean') return `the boolean ${String(v)}`;
  return 'an object';
}

/** Quotes an id for a message (JSON string syntax, shortened). */
export function quoteId(id: string): string {
  const j = JSON.stringify(id);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

export function fail(at: RecordAt, field: string, what: string): never {
  throw new UserError(`${where(at.file, at.line, field)}${what}`);
}

/**
 * ASCII whitespace (what separates the columns of a TREC run or qrels file, so an id holding it
 * cannot be written there or read back) and the other C0 control characters and DEL.
 */
const NOT_IN_ID = /[\u0000-\u0020\u007f]/;

/**
 * A required id: a non-empty string without whitespace or control characters (a run file names
 * every skill and query by its id, in whitespace-separated columns). Checked when the dataset is
 * loaded, so a bad id is named with its file, line and field before any work.
 */
export function requireId(rec: Record<string, unknown>, key: string, at: RecordAt, label: string = key): string {
  const v = rec[key];
  if (typeof v !== 'string' || v === '') fail(at, label, `must be a non-empty string, got ${describeValue(v)}`);
  const bad = NOT_IN_ID.exec(v);
  if (bad) {
    const what = /\s/.test(bad[0]) ? 'whitespace' : 'a control character';
    fail(at, label, `${quoteId(v)} holds ${what} (U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}), which a TREC run cannot hold; ids must be one word`);
  }
  return v;
}

/** A required string (may be empty). */
export function requireString(rec: Record<string, unknown>, key: string, at: RecordAt, label: string = key): string {
  const v = rec[key];
  if (typeof v !== 'string') fail(at, label, `must be a string, got ${describeValue(v)}`);
  return v;
}

/**
 * An optional string: missing or null gives undefined (the official code reads `x.get(k) or ""`),
 * any other non-string is an error.
 */
export function optionalString(rec: Record<string, unknown>, key: string, at: RecordAt, label: string = key): string | undefined {
  const v = rec[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(at, label, `must be a string, got ${describeValue(v)}`);
  return v;
}

/** A required integer (relevance grades). */
export function requireInteger(rec: Record<string, unknown>, key: string, at: RecordAt, label: string = key): number {
  const v = rec[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) fail(at, label, `must be an integer, got ${describeValue(v)}`);
  return v;
}
