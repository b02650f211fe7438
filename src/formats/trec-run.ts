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
import { batchColumn, type ColumnBatch, ColumnInterner, ColumnTracker, MAX_COLUMNS, parseDecimal, scanColumnBatches } from './trec-columns.js';

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

/** One query of a run being read: its ranking, and the line and interned id of each document. */
interface QueryLines {
  qid: string;
  docs: ScoredDoc[];
  lines: number[];
  ids: number[];
}

/**
 * Builds a run from the batches of a TREC run file (see the module comment). Duplicate check: the
 * documents are interned to ids, and `mark[id]` holds 1 + the index of the query whose lines are
 * being read when that query listed the document; a query that comes back after another re-marks
 * its documents first.
 */
class RunBuilder {
  readonly run: Run = new Map();
  private readonly queries: QueryLines[] = [];
  private readonly byQid = new Map<string, number>();
  private readonly docIds = new ColumnInterner();
  private mark = new Int32Array(1024);
  private cur: QueryLines | undefined;
  private curIndex = -1;
  private readonly qid = new ColumnTracker();

  constructor(private readonly path: string) {}

  add(b: ColumnBatch): void {
    const { buf, start, end } = b;
    for (let j = 0; j < b.n; j++) {
      const base = j * MAX_COLUMNS;
      if (b.count[j] !== 6) {
        throw new UserError(`${where(this.path, b.line[j])}expected 6 columns (qid Q0 docid rank score tag), got ${b.count[j]!}`);
      }
      if (this.qid.changed(b, j, 0)) this.enter(b, j);
      const score = parseDecimal(buf, start[base + 4]!, end[base + 4]!);
      if (!Number.isFinite(score)) {
        throw new UserError(`${where(this.path, b.line[j], 'score')}not a finite number: ${quote(batchColumn(b, j, 4))}`);
      }
      const id = this.docIds.id(buf, start[base + 2]!, end[base + 2]!);
      if (id >= this.mark.length) {
        const m = new Int32Array(this.mark.length * 2);
        m.set(this.mark);
        this.mark = m;
      }
      const q = this.cur!;
      const docId = this.docIds.strings[id]!;
      if (this.mark[id] === this.curIndex + 1) {
        const first = q.lines[q.ids.indexOf(id)]!;
        throw new UserError(`${where(this.path, b.line[j], 'docid')}${quote(docId)} appears twice for query ${quote(q.qid)} (first at line ${first})`);
      }
      this.mark[id] = this.curIndex + 1;
      q.docs.push({ docId, score });
      q.lines.push(b.line[j]!);
      q.ids.push(id);
    }
  }

  /** Makes the query of line `j` current. */
  private enter(b: ColumnBatch, j: number): void {
    const qid = batchColumn(b, j, 0);
    const known = this.byQid.get(qid);
    if (known === undefined) {
      this.curIndex = this.queries.length;
      this.cur = { qid, docs: [], lines: [], ids: [] };
      this.queries.push(this.cur);
      this.byQid.set(qid, this.curIndex);
      this.run.set(qid, this.cur.docs);
    } else {
      this.curIndex = known;
      this.cur = this.queries[known]!;
      for (const id of this.cur.ids) this.mark[id] = known + 1; // ids seen are all < mark.length
    }
  }
}

/** Reads a TREC run file (see the module comment), byte by byte (trec-columns.ts). */
export async function readTrecRun(path: string): Promise<Run> {
  const builder = new RunBuilder(path);
  await scanColumnBatches(path, (b) => builder.add(b));
  return builder.run;
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
