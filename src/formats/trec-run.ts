/**
 * TREC run files: `qid Q0 docid rank score tag`, one retrieved document per line.
 *
 * Reading (streamed): columns split on ASCII spaces/tabs, exactly 6 per non-blank line; the Q0,
 * rank and tag columns are ignored (trec_eval re-ranks by score, then doc id); the score must be a
 * finite decimal number; a doc id twice for one query is an error naming both lines (trec_eval
 * refuses duplicates). Queries keep their first-appearance order; lines of one query need not be
 * contiguous. A doc id equal to its query id is kept as an ordinary document (`evaluate` reports it).
 *
 * Writing: queries in the given order (else sorted by id, UTF-8 byte order), documents in trec_eval
 * order, ranks from 1, the score as JavaScript's `String(score)`: the shortest decimal that reads
 * back as the same double, so writing is deterministic and reading back is exact. A query with an
 * empty ranking writes no line: the format cannot express it (keep the query list elsewhere).
 */
import { UserError, where } from '../core/errors.js';
import type { Run } from '../core/types.js';
import { compareUtf8 } from '../metrics/rank.js';
import { type QueryTable, runFromTable } from '../metrics/tables.js';
import { QueryRows } from './query-rows.js';
import { SpelledRun } from './spelled-run.js';
import { batchColumn, type ColumnBatch, ColumnInterner, MAX_COLUMNS, parseDecimal, scanColumnBatches } from './trec-columns.js';

/** A decimal number as written by any TREC tool (no hex, no inf/nan). */
const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** Parses a score column; undefined when it is not a finite decimal number. */
export function parseScore(s: string): number | undefined {
  if (!DECIMAL.test(s)) return undefined;
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

function quote(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

/** Reads the rows of a TREC run file (see the module comment) into `rows`, doc ids interned by `docIds`. */
function addRunLines(path: string, b: ColumnBatch, rows: QueryRows, docIds: ColumnInterner): void {
  const { buf, start, end } = b;
  for (let j = 0; j < b.n; j++) {
    const base = j * MAX_COLUMNS;
    if (b.count[j] !== 6) {
      throw new UserError(`${where(path, b.line[j])}expected 6 columns (qid Q0 docid rank score tag), got ${b.count[j]!}`);
    }
    rows.enter(b, j);
    const score = parseDecimal(buf, start[base + 4]!, end[base + 4]!, b);
    if (!Number.isFinite(score)) {
      throw new UserError(`${where(path, b.line[j], 'score')}not a finite number: ${quote(batchColumn(b, j, 4))}`);
    }
    const doc = docIds.id(buf, start[base + 2]!, end[base + 2]!);
    const first = rows.add(doc, score, b.line[j]!);
    if (first !== 0) {
      throw new UserError(`${where(path, b.line[j], 'docid')}${quote(docIds.strings[doc]!)} appears twice for query ${quote(rows.qid)} (first at line ${first})`);
    }
  }
}

/**
 * Reads a TREC run file (see the module comment), byte by byte (trec-columns.ts), as a table
 * (metrics/tables.ts) whose documents are ids of `docIds` (share one interner with the qrels to
 * evaluate the tables together).
 */
export async function readTrecRunTable(path: string, docIds: ColumnInterner): Promise<QueryTable> {
  const rows = new QueryRows();
  await scanColumnBatches(path, (b) => addRunLines(path, b, rows, docIds));
  return rows.table();
}

/** Reads a TREC run file (see the module comment). */
export async function readTrecRun(path: string): Promise<Run> {
  const docIds = new ColumnInterner();
  return runFromTable(await readTrecRunTable(path, docIds), docIds.strings);
}

const TREC_SPACE = /[ \t\n\r\f\v]/;

function checkToken(value: string, what: string): void {
  if (value === '' || TREC_SPACE.test(value)) {
    throw new UserError(`TREC run: ${what} ${quote(value)} is empty or contains whitespace, which the format cannot hold`);
  }
}

/** Query ids in writing order: `queryOrder` first (those in the run), then the rest sorted by id. */
function orderQueries(run: Run, queryOrder: readonly string[] | undefined): string[] {
  if (queryOrder === undefined) return [...run.keys()].sort(compareUtf8);
  const out: string[] = [];
  const done = new Set<string>();
  for (const q of queryOrder) {
    if (run.has(q) && !done.has(q)) {
      out.push(q);
      done.add(q);
    }
  }
  const rest = [...run.keys()].filter((q) => !done.has(q)).sort(compareUtf8);
  return out.concat(rest);
}

/**
 * Formats a run as TREC text (see the module comment). `tag` must match /^\S+$/; query and doc ids
 * must be non-empty and free of whitespace; scores must be finite. Throws UserError otherwise.
 * Queries of the run missing from `queryOrder` are written after the listed ones, sorted by id.
 * `spelled` is the run's spelling when other writers share it (spelled-run.ts).
 */
export function formatTrecRun(run: Run, tag: string, queryOrder?: readonly string[], spelled: SpelledRun = new SpelledRun(run)): string {
  if (!/^\S+$/.test(tag)) throw new UserError(`TREC run: tag ${quote(tag)} must be non-empty and without whitespace`);
  const parts: string[] = [];
  // doc id → the number of the last query it was in: an id met before needs no second check, and
  // one met in this very query is a duplicate (one map for both).
  const seenIn = new Map<string, number>();
  const tail = ` ${tag}\n`;
  let n = 0;
  for (const qid of orderQueries(run, queryOrder)) {
    checkToken(qid, 'query id');
    n++;
    const { docs, scores } = spelled.get(qid);
    const head = `${qid} Q0 `;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      const last = seenIn.get(d.docId);
      if (last === undefined) checkToken(d.docId, `query ${quote(qid)}: doc id`);
      else if (last === n) throw new UserError(`TREC run: query ${quote(qid)}: doc ${quote(d.docId)} appears more than once`);
      seenIn.set(d.docId, n);
      if (!Number.isFinite(d.score)) {
        throw new UserError(`TREC run: query ${quote(qid)}: doc ${quote(d.docId)}: score is not a finite number (${String(d.score)})`);
      }
      parts.push(`${head}${d.docId} ${i + 1} ${scores[i]!}${tail}`);
    }
  }
  return parts.join('');
}
