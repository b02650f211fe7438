/**
 * Plain definitions of the TREC readers (formats/trec-columns.ts, trec-run.ts, trec-qrels.ts), for
 * differential tests: the line reader (lines.ts: decode each line, split on a regex) and Maps keyed
 * by the decoded strings, with the same checks and messages in the same order. No byte offsets, no
 * interning, no typed arrays: what the byte-level readers must equal at any size.
 */
import { UserError, where } from '../../src/core/errors.js';
import type { Qrels, Run } from '../../src/core/types.js';
import { readLineBatches, splitColumns } from '../../src/formats/lines.js';
import { mulberry32 } from './mulberry32.js';

/** A decimal number as written by any TREC tool (no hex, no inf/nan): the grammar of parseDecimal. */
export const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** parseDecimal's definition: the double Number() gives for a text of the decimal grammar, else NaN. */
export function plainDecimal(text: string): number {
  return DECIMAL.test(text) ? Number(text) : Number.NaN;
}

/** parseInteger's definition: Number() of `[+-]?[0-9]+` when that is a safe integer, else NaN. */
export function plainInteger(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) return Number.NaN;
  const v = Number(text);
  return Number.isSafeInteger(v) ? v : Number.NaN;
}

/** Every non-blank line of the file as [line number, columns] (the line reader's view). */
export async function plainColumns(path: string): Promise<Array<[number, string[]]>> {
  const out: Array<[number, string[]]> = [];
  for await (const batch of readLineBatches(path)) {
    for (const { line, text } of batch) {
      const cols = splitColumns(text);
      if (cols.length > 0) out.push([line, cols]);
    }
  }
  return out;
}

function quote(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

/** readTrecRun's definition: queries in first-appearance order, documents in line order. */
export async function plainTrecRun(path: string): Promise<Run> {
  const run: Run = new Map();
  const lineOf = new Map<string, Map<string, number>>();
  for (const [line, cols] of await plainColumns(path)) {
    if (cols.length !== 6) throw new UserError(`${where(path, line)}expected 6 columns (qid Q0 docid rank score tag), got ${cols.length}`);
    const [qid, , docId, , s] = cols as [string, string, string, string, string];
    const score = plainDecimal(s);
    if (!Number.isFinite(score)) throw new UserError(`${where(path, line, 'score')}not a finite number: ${quote(s)}`);
    let seen = lineOf.get(qid);
    if (seen === undefined) {
      lineOf.set(qid, (seen = new Map()));
      run.set(qid, []);
    }
    const first = seen.get(docId);
    if (first !== undefined) throw new UserError(`${where(path, line, 'docid')}${quote(docId)} appears twice for query ${quote(qid)} (first at line ${first})`);
    seen.set(docId, line);
    run.get(qid)!.push({ docId, score });
  }
  return run;
}

/** readTrecQrels's definition: queries in first-appearance order, judgements in line order, no -0. */
export async function plainTrecQrels(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  const lineOf = new Map<string, Map<string, number>>();
  for (const [line, cols] of await plainColumns(path)) {
    if (cols.length !== 4) throw new UserError(`${where(path, line)}expected 4 columns (qid iter docid rel), got ${cols.length}`);
    const [qid, , docId, r] = cols as [string, string, string, string];
    const rel = plainInteger(r);
    if (Number.isNaN(rel)) throw new UserError(`${where(path, line, 'rel')}not an integer: ${quote(r)}`);
    let seen = lineOf.get(qid);
    if (seen === undefined) {
      lineOf.set(qid, (seen = new Map()));
      qrels.set(qid, new Map());
    }
    const first = seen.get(docId);
    if (first !== undefined) throw new UserError(`${where(path, line, 'docid')}${quote(docId)} judged twice for query ${quote(qid)} (first at line ${first})`);
    seen.set(docId, line);
    qrels.get(qid)!.set(docId, rel === 0 ? 0 : rel);
  }
  return qrels;
}

/** The result of an async reader, or the message it threw (to compare outcomes, errors included). */
export async function outcome<T>(f: () => Promise<T>): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await f() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e) };
  }
}

/** A deterministic stream from a generated seed (for large, boundary-sized files). */
export const prng = mulberry32;

/** ± d around p (positive values only): the sizes next to a capacity. */
export function around(p: number, d = 2): number[] {
  return Array.from({ length: 2 * d + 1 }, (_, i) => p - d + i).filter((x) => x > 0);
}

/** A deterministic doc id for index i: UUID-shaped, short, long (the arena grows), non-ASCII. */
export function makeId(seed: number, i: number, shape: number): string {
  const h = (Math.imul(i + 1, 0x9e3779b1) ^ seed) >>> 0;
  const hex = h.toString(16).padStart(8, '0');
  switch (shape) {
    case 0:
      return `${hex}-${(i & 0xffff).toString(16).padStart(4, '0')}-4a1b-8c2d-${(seed >>> 0).toString(16).padStart(12, '0')}`;
    case 1:
      return `d${i}`;
    case 2:
      return `${hex.repeat(1 + (i % 9))}/${i}`;
    default:
      return `ß-${i}-é${String.fromCodePoint(0x4e00 + (h % 500))}${i % 7 === 0 ? '🙂' : ''}`;
  }
}
