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
import { column, ColumnInterner, parseInteger, sameBytes, scanColumns } from './trec-columns.js';

function quote(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

/** Reads a TREC qrels file (see the module comment), byte by byte (trec-columns.ts). */
export async function readTrecQrels(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  /** qid -> line of each judgement, in map order (for duplicate errors). */
  const linesOf = new Map<string, number[]>();
  let qBytes: Buffer = Buffer.alloc(0);
  let qid = '';
  let judged = new Map<string, number>();
  let lines: number[] = [];
  const docIds = new ColumnInterner();
  await scanColumns(path, (l) => {
    if (l.count !== 4) {
      throw new UserError(`${where(path, l.line)}expected 4 columns (qid iter docid rel), got ${l.count}`);
    }
    const rel = parseInteger(l.buf, l.start[3]!, l.end[3]!);
    if (Number.isNaN(rel)) throw new UserError(`${where(path, l.line, 'rel')}not an integer: ${quote(column(l, 3))}`);
    if (!sameBytes(l, 0, qBytes, 0, qBytes.length)) {
      qid = column(l, 0);
      qBytes = Buffer.from(l.buf.subarray(l.start[0]!, l.end[0]!));
      const known = qrels.get(qid);
      if (known === undefined) {
        judged = new Map();
        lines = [];
        qrels.set(qid, judged);
        linesOf.set(qid, lines);
      } else {
        judged = known;
        lines = linesOf.get(qid)!;
      }
    }
    const docId = docIds.get(l, 2);
    if (judged.has(docId)) {
      const first = lines[[...judged.keys()].indexOf(docId)]!;
      throw new UserError(`${where(path, l.line, 'docid')}${quote(docId)} judged twice for query ${quote(qid)} (first at line ${first})`);
    }
    lines.push(l.line);
    judged.set(docId, rel === 0 ? 0 : rel); // no -0
  });
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
