/**
 * Reads the per-query.jsonl of a run folder (results contract): one JSON object per non-blank line,
 * `{"id": qid, "metrics": {key: number, …}, "gold": [ids], "retrieved": [ids]}` (other fields, such as
 * `relevance`, are ignored). Only `id` and `metrics` are required; `gold` and `retrieved`, when present,
 * must be arrays of strings. Any defect is a UserError naming file:line: field.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError, where } from '../core/errors.js';

export const PER_QUERY_FILE = 'per-query.jsonl';

export interface PerQueryFile {
  /** The file read. */
  file: string;
  /** Query id → metric key → value, in file order. */
  perQuery: Map<string, Record<string, number>>;
  /** Query id → its 1-based line number. */
  line: Map<string, number>;
  /** Metric keys of the first record, in its order. */
  firstKeys: string[];
}

/** A run folder → its per-query.jsonl; a path to a file is taken as is. */
export async function resolvePerQueryFile(path: string): Promise<string> {
  const s = await stat(path).catch(() => undefined);
  if (s === undefined) throw new UserError(`${path}: no such run folder or file`);
  if (!s.isDirectory()) return path;
  const file = join(path, PER_QUERY_FILE);
  const f = await stat(file).catch(() => undefined);
  if (f === undefined || !f.isFile()) {
    throw new UserError(`${file}: not found (a run folder holds ${PER_QUERY_FILE}, written by skillret-eval run)`);
  }
  return file;
}

function isStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function show(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? 'an object' : String(v);
}

/** Parses per-query.jsonl text (see the module comment); `file` names it in errors. */
export function parsePerQuery(text: string, file: string): PerQueryFile {
  const perQuery = new Map<string, Record<string, number>>();
  const lineOf = new Map<string, number>();
  let firstKeys: string[] | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    let raw = lines[i]!;
    if (i === 0 && raw.startsWith('\uFEFF')) raw = raw.slice(1);
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.trim() === '') continue;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch (e) {
      throw new UserError(`${where(file, n)}invalid JSON (${(e as Error).message.replace(/\s+/g, ' ')})`);
    }
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
      throw new UserError(`${where(file, n)}expected a JSON object, got ${show(rec)}`);
    }
    const r = rec as Record<string, unknown>;
    const id = r.id;
    if (typeof id !== 'string' || id === '') {
      throw new UserError(`${where(file, n, 'id')}expected a non-empty string, got ${id === undefined ? 'nothing' : show(id)}`);
    }
    const first = lineOf.get(id);
    if (first !== undefined) throw new UserError(`${where(file, n, 'id')}duplicate query id ${JSON.stringify(id)} (first on line ${first})`);
    const m = r.metrics;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) {
      throw new UserError(`${where(file, n, 'metrics')}expected an object of numbers, got ${m === undefined ? 'nothing' : show(m)}`);
    }
    const metrics = Object.create(null) as Record<string, number>;
    for (const [k, v] of Object.entries(m)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new UserError(`${where(file, n, `metrics.${k}`)}expected a finite number, got ${show(v)}`);
      }
      metrics[k] = v;
    }
    for (const field of ['gold', 'retrieved']) {
      if (r[field] !== undefined && !isStringArray(r[field])) {
        throw new UserError(`${where(file, n, field)}expected an array of strings, got ${show(r[field])}`);
      }
    }
    firstKeys ??= Object.keys(metrics);
    perQuery.set(id, metrics);
    lineOf.set(id, n);
  }
  if (firstKeys === undefined) throw new UserError(`${file}: no queries (the file is empty)`);
  return { file, perQuery, line: lineOf, firstKeys };
}

/** Reads and parses a per-query.jsonl file. */
export async function readPerQuery(file: string): Promise<PerQueryFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parsePerQuery(text, file);
}
