/**
 * Reads a run's per-query.jsonl (results contract) in full: one JSON object per non-blank line,
 * `{"id", "metrics": {key: number}, "gold": [ids], "relevance"?: {id: grade}, "retrieved": [ids],
 * "vs_none"?: {key: number}}`. `id` and `metrics` are required; the others, when present, are checked
 * for their shape. Any defect is a UserError naming file:line: field.
 *
 * `readPerQuery` is the metrics-only view (query id → metric key → value) the two-run compare uses.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError, where } from '../core/errors.js';

export const PER_QUERY_FILE = 'per-query.jsonl';

export interface PerQueryRecord {
  metrics: Record<string, number>;
  /** Relevant skill ids in judgement order (undefined: the file does not say). */
  gold?: string[];
  /** Graded judgements, written only when some grade is not 1. */
  relevance?: Record<string, number>;
  /** Ranked skill ids, best first (trec_eval order). */
  retrieved?: string[];
  /** Reranked runs: on − off per metric. */
  vsNone?: Record<string, number>;
}

export interface PerQueryRecords {
  file: string;
  /** Query id → record, in file order. */
  records: Map<string, PerQueryRecord>;
  /** Query id → its 1-based line. */
  line: Map<string, number>;
  /** Metric keys of the first record, in its order. */
  firstKeys: string[];
}

function show(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? 'an object' : String(v);
}

function numberMap(v: unknown, file: string, n: number, field: string): Record<string, number> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new UserError(`${where(file, n, field)}expected an object of numbers, got ${v === undefined ? 'nothing' : show(v)}`);
  }
  const out = Object.create(null) as Record<string, number>;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new UserError(`${where(file, n, `${field}.${k}`)}expected a finite number, got ${show(x)}`);
    out[k] = x;
  }
  return out;
}

function stringArray(v: unknown, file: string, n: number, field: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new UserError(`${where(file, n, field)}expected an array of strings, got ${show(v)}`);
  }
  return v as string[];
}

export function parsePerQueryRecords(text: string, file: string): PerQueryRecords {
  const records = new Map<string, PerQueryRecord>();
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
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) throw new UserError(`${where(file, n)}expected a JSON object, got ${show(rec)}`);
    const r = rec as Record<string, unknown>;
    const id = r.id;
    if (typeof id !== 'string' || id === '') throw new UserError(`${where(file, n, 'id')}expected a non-empty string, got ${id === undefined ? 'nothing' : show(id)}`);
    const first = lineOf.get(id);
    if (first !== undefined) throw new UserError(`${where(file, n, 'id')}duplicate query id ${JSON.stringify(id)} (first on line ${first})`);
    const out: PerQueryRecord = { metrics: numberMap(r.metrics, file, n, 'metrics') };
    if (r.gold !== undefined) out.gold = stringArray(r.gold, file, n, 'gold');
    if (r.retrieved !== undefined) out.retrieved = stringArray(r.retrieved, file, n, 'retrieved');
    if (r.relevance !== undefined) out.relevance = numberMap(r.relevance, file, n, 'relevance');
    if (r.vs_none !== undefined) out.vsNone = numberMap(r.vs_none, file, n, 'vs_none');
    firstKeys ??= Object.keys(out.metrics);
    records.set(id, out);
    lineOf.set(id, n);
  }
  if (firstKeys === undefined) throw new UserError(`${file}: no queries (the file is empty)`);
  return { file, records, line: lineOf, firstKeys };
}

export async function readPerQueryRecords(file: string): Promise<PerQueryRecords> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parsePerQueryRecords(text, file);
}

/** The metrics-only view of a per-query.jsonl: query id → metric key → value. */
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

function metricsView(r: PerQueryRecords): PerQueryFile {
  return { file: r.file, perQuery: new Map([...r.records].map(([q, rec]) => [q, rec.metrics])), line: r.line, firstKeys: r.firstKeys };
}

/** Parses per-query.jsonl text (see the module comment); `file` names it in errors. */
export function parsePerQuery(text: string, file: string): PerQueryFile {
  return metricsView(parsePerQueryRecords(text, file));
}

/** Reads and parses a per-query.jsonl file. */
export async function readPerQuery(file: string): Promise<PerQueryFile> {
  return metricsView(await readPerQueryRecords(file));
}
