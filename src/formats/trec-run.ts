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
import type { Run, ScoredDoc } from '../core/types.js';
import { compareUtf8, trecOrder } from '../metrics/rank.js';
import { writeFileAtomic } from '../util/atomic.js';
import { column, ColumnInterner, parseDecimal, sameBytes, scanColumns } from './trec-columns.js';

/** A decimal number as written by any TREC tool (no hex, no inf/nan). */
const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** Parses a score column; undefined when it is not a finite decimal number. */
export function parseScore(s: string): number | undefined {
  if (!DECIMAL.test(s)) return undefined;
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

/** Rankings up to this long are checked for duplicates pairwise. */
const SHORT_RANKING = 64;

function quote(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 80 ? j.slice(0, 80) + '…"' : j;
}

/** Reads a TREC run file (see the module comment), byte by byte (trec-columns.ts). */
export async function readTrecRun(path: string): Promise<Run> {
  const run: Run = new Map();
  /** qid -> line of each document, in document order (for duplicate errors). */
  const linesOf = new Map<string, number[]>();
  // The current query (lines of one query are usually contiguous): its id, bytes and doc-id set.
  let qid = '';
  let qBytes: Buffer = Buffer.alloc(0);
  let docs: ScoredDoc[] = [];
  let lines: number[] = [];
  // Duplicate check of the current query: pairwise while its ranking is short (doc ids are interned,
  // so mostly one pointer comparison each), a Set once it is longer than SHORT_RANKING.
  let ids: Set<string> | undefined;
  const isDuplicate = (docId: string): boolean => {
    if (ids !== undefined) return ids.has(docId);
    for (let j = 0; j < docs.length; j++) if (docs[j]!.docId === docId) return true;
    return false;
  };
  const docIds = new ColumnInterner();
  await scanColumns(path, (l) => {
    if (l.count !== 6) {
      throw new UserError(`${where(path, l.line)}expected 6 columns (qid Q0 docid rank score tag), got ${l.count}`);
    }
    if (!sameBytes(l, 0, qBytes, 0, qBytes.length)) {
      qid = column(l, 0);
      qBytes = Buffer.from(l.buf.subarray(l.start[0]!, l.end[0]!)); // a copy: the chunk is reused
      ids = undefined;
      const known = run.get(qid);
      if (known === undefined) {
        docs = [];
        lines = [];
        run.set(qid, docs);
        linesOf.set(qid, lines);
      } else {
        docs = known;
        lines = linesOf.get(qid)!;
        if (docs.length > SHORT_RANKING) ids = new Set(docs.map((d) => d.docId));
      }
    }
    const score = parseDecimal(l.buf, l.start[4]!, l.end[4]!);
    if (!Number.isFinite(score)) throw new UserError(`${where(path, l.line, 'score')}not a finite number: ${quote(column(l, 4))}`);
    const docId = docIds.get(l, 2);
    if (isDuplicate(docId)) {
      const first = lines[docs.findIndex((d) => d.docId === docId)]!;
      throw new UserError(`${where(path, l.line, 'docid')}${quote(docId)} appears twice for query ${quote(qid)} (first at line ${first})`);
    }
    lines.push(l.line);
    docs.push({ docId, score });
    if (ids !== undefined) ids.add(docId);
    else if (docs.length > SHORT_RANKING) ids = new Set(docs.map((d) => d.docId));
  });
  return run;
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
 */
export function formatTrecRun(run: Run, tag: string, queryOrder?: readonly string[]): string {
  if (!/^\S+$/.test(tag)) throw new UserError(`TREC run: tag ${quote(tag)} must be non-empty and without whitespace`);
  const parts: string[] = [];
  for (const qid of orderQueries(run, queryOrder)) {
    checkToken(qid, 'query id');
    const ranked: ScoredDoc[] = trecOrder(run.get(qid)!);
    const ids = new Set<string>();
    for (let i = 0; i < ranked.length; i++) {
      const d = ranked[i]!;
      checkToken(d.docId, `query ${quote(qid)}: doc id`);
      if (!Number.isFinite(d.score)) {
        throw new UserError(`TREC run: query ${quote(qid)}: doc ${quote(d.docId)}: score is not a finite number (${String(d.score)})`);
      }
      if (ids.has(d.docId)) {
        throw new UserError(`TREC run: query ${quote(qid)}: doc ${quote(d.docId)} appears more than once`);
      }
      ids.add(d.docId);
      parts.push(`${qid} Q0 ${d.docId} ${i + 1} ${String(d.score)} ${tag}\n`);
    }
  }
  return parts.join('');
}

/** Writes `formatTrecRun(run, tag, queryOrder)` to `path` atomically. */
export function writeTrecRun(path: string, run: Run, tag: string, queryOrder?: readonly string[]): void {
  writeFileAtomic(path, formatTrecRun(run, tag, queryOrder));
}
