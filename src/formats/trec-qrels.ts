/**
 * TREC qrels files: `qid iter docid rel`, one judgement per line.
 *
 * Reading (streamed): columns split on ASCII spaces/tabs, exactly 4 per non-blank line; `iter` is
 * ignored; `rel` must be an integer (negative and 0 = judged non-relevant, >= 1 relevant); the same
 * (qid, docid) twice is an error naming both lines (trec_eval refuses it too). Queries keep their
 * first-appearance order, documents their line order.
 *
 * Writing: queries in the given order (else sorted by id, UTF-8 byte order), documents sorted by id,
 * iter 0. Deterministic.
 */
import { UserError, where } from '../core/errors.js';
import type { Qrels } from '../core/types.js';
import { compareUtf8 } from '../metrics/rank.js';
import { readLineBatches, splitColumns } from './lines.js';

const INTEGER = /^[+-]?[0-9]+$/;

function quote(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

/** Reads a TREC qrels file (see the module comment). */
export async function readTrecQrels(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  const lines = new Map<string, Map<string, number>>();
  for await (const batch of readLineBatches(path)) for (const { line, text } of batch) {
    const cols = splitColumns(text);
    if (cols.length === 0) continue;
    if (cols.length !== 4) {
      throw new UserError(`${where(path, line)}expected 4 columns (qid iter docid rel), got ${cols.length}`);
    }
    const [qid, , docId, relText] = cols as [string, string, string, string];
    const rel = INTEGER.test(relText) ? Number(relText) : Number.NaN;
    if (!Number.isSafeInteger(rel)) throw new UserError(`${where(path, line, 'rel')}not an integer: ${quote(relText)}`);
    let judged = qrels.get(qid);
    let at = lines.get(qid);
    if (judged === undefined || at === undefined) {
      judged = new Map();
      at = new Map();
      qrels.set(qid, judged);
      lines.set(qid, at);
    }
    const first = at.get(docId);
    if (first !== undefined) {
      throw new UserError(`${where(path, line, 'docid')}${quote(docId)} judged twice for query ${quote(qid)} (first at line ${first})`);
    }
    at.set(docId, line);
    judged.set(docId, rel === 0 ? 0 : rel); // no -0
  }
  return qrels;
}

/**
 * Formats qrels as TREC text (see the module comment). Ids must be non-empty without whitespace and
 * grades integers; throws UserError otherwise.
 */
export function formatTrecQrels(qrels: Qrels, queryOrder?: readonly string[]): string {
  const order: string[] = [];
  if (queryOrder !== undefined) {
    const done = new Set<string>();
    for (const q of queryOrder) {
      if (qrels.has(q) && !done.has(q)) {
        order.push(q);
        done.add(q);
      }
    }
    order.push(...[...qrels.keys()].filter((q) => !done.has(q)).sort(compareUtf8));
  } else {
    order.push(...[...qrels.keys()].sort(compareUtf8));
  }
  const bad = /^$|[ \t\n\r\f\v]/;
  const parts: string[] = [];
  for (const qid of order) {
    if (bad.test(qid)) throw new UserError(`TREC qrels: query id ${quote(qid)} is empty or contains whitespace`);
    const judged = qrels.get(qid)!;
    for (const docId of [...judged.keys()].sort(compareUtf8)) {
      if (bad.test(docId)) throw new UserError(`TREC qrels: query ${quote(qid)}: doc id ${quote(docId)} is empty or contains whitespace`);
      const rel = judged.get(docId)!;
      if (!Number.isSafeInteger(rel)) throw new UserError(`TREC qrels: query ${quote(qid)}: doc ${quote(docId)}: grade ${String(rel)} is not an integer`);
      parts.push(`${qid} 0 ${docId} ${rel}\n`);
    }
  }
  return parts.join('');
}
