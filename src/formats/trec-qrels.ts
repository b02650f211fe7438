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
import { qrelsFromTable, type QueryTable } from '../metrics/tables.js';
import { QueryRows } from './query-rows.js';
import { batchColumn, type ColumnBatch, ColumnInterner, MAX_COLUMNS, parseInteger, scanColumnBatches } from './trec-columns.js';

function quote(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

/** Reads the rows of a TREC qrels file (see the module comment) into `rows`, doc ids interned by `docIds`. */
function addQrelsLines(path: string, b: ColumnBatch, rows: QueryRows, docIds: ColumnInterner): void {
  const { buf, start, end } = b;
  for (let j = 0; j < b.n; j++) {
    const base = j * MAX_COLUMNS;
    if (b.count[j] !== 4) {
      throw new UserError(`${where(path, b.line[j])}expected 4 columns (qid iter docid rel), got ${b.count[j]!}`);
    }
    const rel = parseInteger(buf, start[base + 3]!, end[base + 3]!);
    if (Number.isNaN(rel)) throw new UserError(`${where(path, b.line[j], 'rel')}not an integer: ${quote(batchColumn(b, j, 3))}`);
    rows.enter(b, j);
    const doc = docIds.id(buf, start[base + 2]!, end[base + 2]!);
    const first = rows.add(doc, rel === 0 ? 0 : rel, b.line[j]!); // no -0
    if (first !== 0) {
      throw new UserError(`${where(path, b.line[j], 'docid')}${quote(docIds.strings[doc]!)} judged twice for query ${quote(rows.qid)} (first at line ${first})`);
    }
  }
}

/**
 * Reads a TREC qrels file (see the module comment), byte by byte (trec-columns.ts), as a table
 * (metrics/tables.ts) whose documents are ids of `docIds` (share one interner with the run to
 * evaluate the tables together).
 */
export async function readTrecQrelsTable(path: string, docIds: ColumnInterner): Promise<QueryTable> {
  const rows = new QueryRows();
  await scanColumnBatches(path, (b) => addQrelsLines(path, b, rows, docIds));
  return rows.table();
}

/** Reads a TREC qrels file (see the module comment). */
export async function readTrecQrels(path: string): Promise<Qrels> {
  const docIds = new ColumnInterner();
  return qrelsFromTable(await readTrecQrelsTable(path, docIds), docIds.strings);
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
