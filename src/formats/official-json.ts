/**
 * The official SkillRet JSON shapes of a run:
 * - a run dict `{query_id: {skill_id: score}}`, and
 * - a result file `{"metrics": ..., "retrieval": {"<split>": {query_id: {skill_id: score}}}}`, of
 *   which only `retrieval[split]` is read (default split `test`).
 * A file is a result file when its top level has a `retrieval` object and either a `metrics` key or
 * only objects under `retrieval` (in a run dict, a query named "retrieval" maps to numbers).
 * Scores must be finite JSON numbers; a query mapping to `{}` is an empty ranking. Errors name the
 * file and the key path (`retrieval.test["q-1"]["s-9"]`). The whole file is parsed at once (runs are
 * small: 4,392 queries x 20 entries); as with Python's json, a key repeated inside one object keeps
 * its last value.
 */
import { readBoundedSync } from '../util/files.js';
import { UserError, where } from '../core/errors.js';
import type { Run, ScoredDoc } from '../core/types.js';
import { roundHalfEven } from '../util/python-round.js';
import { SpelledRun } from './spelled-run.js';

export interface OfficialJsonOptions {
  /** Split to read from a result file's `retrieval` (default `test`); ignored for a run dict. */
  split?: string;
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  return 'an object';
}

/** Whether a parsed top-level value is the result-file shape (see the module comment). */
export function isResultFile(top: JsonObject): boolean {
  if (!Object.hasOwn(top, 'retrieval')) return false;
  const r = top['retrieval'];
  if (!isObject(r)) return false;
  if (Object.hasOwn(top, 'metrics')) return true;
  const values = Object.values(r);
  return values.length > 0 && values.every(isObject);
}

/** Converts a `{query_id: {skill_id: score}}` object to a Run; `path` prefixes key paths in errors. */
export function runFromJson(file: string, dict: unknown, path = ''): Run {
  if (!isObject(dict)) throw new UserError(`${where(file, undefined, path || '(top level)')}expected an object {query_id: {skill_id: score}}, got ${describe(dict)}`);
  const run: Run = new Map();
  for (const [qid, docs] of Object.entries(dict)) {
    const qpath = `${path}[${JSON.stringify(qid)}]`;
    if (!isObject(docs)) throw new UserError(`${where(file, undefined, qpath)}expected an object {skill_id: score}, got ${describe(docs)}`);
    const list: ScoredDoc[] = [];
    for (const [docId, score] of Object.entries(docs)) {
      if (typeof score !== 'number' || !Number.isFinite(score)) {
        throw new UserError(`${where(file, undefined, `${qpath}[${JSON.stringify(docId)}]`)}score must be a finite number, got ${describe(score)}`);
      }
      list.push({ docId, score });
    }
    run.set(qid, list);
  }
  return run;
}

/** Largest official JSON file read (bytes): the JSON text must fit one JavaScript string anyway. */
export const MAX_JSON_RUN_BYTES = 512 << 20;

/** Reads an official JSON run or result file (see the module comment). */
export async function readOfficialJson(file: string, opts: OfficialJsonOptions = {}): Promise<Run> {
  const bytes = readBoundedSync(file, 'run file', MAX_JSON_RUN_BYTES);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // also drops a leading BOM
  } catch {
    throw new UserError(`${where(file)}invalid UTF-8 byte sequence (the file must be UTF-8)`);
  }
  let top: unknown;
  try {
    top = JSON.parse(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const hint = /\b(NaN|-?Infinity)\b/.test(text) ? ' (NaN and Infinity are not valid scores)' : '';
    throw new UserError(`${where(file)}malformed JSON: ${msg.slice(0, 200)}${hint}`);
  }
  if (!isObject(top)) throw new UserError(`${where(file)}expected a JSON object, got ${describe(top)}`);
  if (!isResultFile(top)) return runFromJson(file, top);
  const split = opts.split ?? 'test';
  const retrieval = top['retrieval'] as JsonObject;
  if (!Object.hasOwn(retrieval, split)) {
    const have = Object.keys(retrieval);
    throw new UserError(`${where(file, undefined, 'retrieval')}no split ${JSON.stringify(split)} (has: ${have.length ? have.join(', ') : 'none'})`);
  }
  return runFromJson(file, retrieval[split], `retrieval.${split}`);
}

/** The official result file's metric names, in its key order (skillret/eval.py `trec_eval`). */
export const OFFICIAL_METRICS = ['NDCG', 'MAP', 'Recall', 'Precision', 'Completeness'] as const;

/**
 * A run as the official code writes it (`write_json(..., indent=2)`):
 * `{"metrics": {"<split>": {"NDCG@5": …, …}}, "retrieval": {"<split>": {query_id: {skill_id: score}}}}`.
 * Metrics are the official fifteen (NDCG, MAP, Recall, Precision, Completeness at each k, in that
 * order), each `round(mean, 5)`; every query of `queryOrder` is listed (an empty ranking is `{}`),
 * candidates in trec_eval order. Parse both files and compare: number spellings differ
 * (Python writes `1.0` and `1e-05`, JavaScript `1` and `1e-5`).
 */
export function formatOfficialResult(
  split: string,
  aggregate: Readonly<Record<string, number>>,
  ks: readonly number[],
  run: Run,
  queryOrder: readonly string[],
  spelled: SpelledRun = new SpelledRun(run),
): string {
  const metrics: Record<string, number> = {};
  for (const m of OFFICIAL_METRICS)
    for (const k of ks) {
      const v = aggregate[`${m}@${k}`];
      if (v !== undefined) metrics[`${m}@${k}`] = roundHalfEven(v, 5);
    }
  // Written here rather than by JSON.stringify of objects: the same text (2-space indent), keys in
  // insertion order even where an id looks like an integer (an object would put those first), and
  // no object per query.
  const out: string[] = ['{\n  "metrics": {\n    ', JSON.stringify(split), ': '];
  const metricKeys = Object.keys(metrics);
  if (metricKeys.length === 0) out.push('{}');
  else out.push('{\n', metricKeys.map((k) => `      ${JSON.stringify(k)}: ${jsonNumber(metrics[k]!)}`).join(',\n'), '\n    }');
  out.push('\n  },\n  "retrieval": {\n    ', JSON.stringify(split), ': ');
  const seen = new Set<string>();
  const queries = queryOrder.filter((q) => !seen.has(q) && (seen.add(q), true));
  if (queries.length === 0) out.push('{}');
  else {
    out.push('{\n');
    // doc id → its JSON string, and the number of the last query it was seen in
    const json = new Map<string, string>();
    const seenIn = new Map<string, number>();
    queries.forEach((qid, i) => {
      if (i > 0) out.push(',\n');
      out.push('      ', JSON.stringify(qid), ': ');
      const { docs, scores } = spelled.get(qid);
      const lines: string[] = [];
      let repeated = false;
      for (let j = 0; j < docs.length; j++) {
        const d = docs[j]!;
        let key = json.get(d.docId);
        if (key === undefined) json.set(d.docId, (key = JSON.stringify(d.docId)));
        if (seenIn.get(d.docId) === i + 1) repeated = true;
        seenIn.set(d.docId, i + 1);
        lines.push(`        ${key}: ${Number.isFinite(d.score) ? scores[j]! : 'null'}`);
      }
      if (repeated) {
        // as an object would hold them: a key once, where it first came, with its last value
        const byId = new Map<string, number>();
        for (const d of docs) byId.set(d.docId, d.score);
        lines.length = 0;
        for (const [id, score] of byId) lines.push(`        ${json.get(id)!}: ${jsonNumber(score)}`);
      }
      out.push(lines.length === 0 ? '{}' : `{\n${lines.join(',\n')}\n      }`);
    });
    out.push('\n    }');
  }
  out.push('\n  }\n}\n');
  return out.join('');
}

/** A number as JSON.stringify writes it (null for a non-finite one). */
function jsonNumber(x: number): string {
  return Number.isFinite(x) ? String(x) : 'null';
}
