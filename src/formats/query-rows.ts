/**
 * The rows of a TREC run or qrels file as they are read, one per line: the query (column 0, followed
 * byte by byte with `ColumnTracker`), an interned document id and a number, kept in typed arrays and
 * grouped by query at the end (`table`), with no object per line. Also the duplicate check: a
 * document twice for one query. `mark[doc]` holds 1 + the index of the query whose lines are being
 * read when that query listed the document; a query that comes back after another re-marks its
 * documents first (its rows are chained), so the check costs O(1) per line and O(rows of the query)
 * per return.
 */
import type { QueryTable } from '../metrics/tables.js';
import { batchColumn, type ColumnBatch, ColumnTracker } from './trec-columns.js';

function grown<T extends Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

export class QueryRows {
  /** Query ids in first-appearance order. */
  readonly qids: string[] = [];
  private readonly byQid = new Map<string, number>();
  private readonly tracker = new ColumnTracker();
  private cur = -1;
  private n = 0;
  private rowQuery = new Int32Array(1024);
  private rowDoc = new Int32Array(1024);
  private rowLine = new Int32Array(1024);
  private rowValue = new Float64Array(1024);
  /** Next row of the same query (-1: none). */
  private rowNext = new Int32Array(1024);
  private qFirst = new Int32Array(256);
  private qLast = new Int32Array(256);
  private qCount = new Int32Array(256);
  private mark = new Int32Array(1024);

  /** The current query's id. */
  get qid(): string {
    return this.qids[this.cur]!;
  }

  /** Makes the query of batch line `j` (its column 0) the current one. */
  enter(b: ColumnBatch, j: number): void {
    if (this.tracker.changed(b, j, 0)) this.switchTo(batchColumn(b, j, 0));
  }

  private switchTo(qid: string): void {
    const known = this.byQid.get(qid);
    if (known === undefined) {
      this.cur = this.qids.length;
      this.qids.push(qid);
      this.byQid.set(qid, this.cur);
      this.qFirst = grown(this.qFirst, this.cur + 1);
      this.qLast = grown(this.qLast, this.cur + 1);
      this.qCount = grown(this.qCount, this.cur + 1);
      this.qFirst[this.cur] = -1;
      this.qLast[this.cur] = -1;
      this.qCount[this.cur] = 0;
      return;
    }
    this.cur = known;
    for (let r = this.qFirst[known]!; r !== -1; r = this.rowNext[r]!) this.mark[this.rowDoc[r]!] = known + 1;
  }

  /**
   * Adds a row (document `doc`, its number, its line) to the current query. Returns 0, or, when the
   * query already lists `doc`, the line where it does (nothing is added).
   */
  add(doc: number, value: number, line: number): number {
    const q = this.cur;
    if (doc >= this.mark.length) this.mark = grown(this.mark, Math.max(doc + 1, 2 * this.mark.length));
    if (this.mark[doc] === q + 1) {
      for (let r = this.qFirst[q]!; r !== -1; r = this.rowNext[r]!) if (this.rowDoc[r] === doc) return this.rowLine[r]!;
    }
    this.mark[doc] = q + 1;
    const i = this.n++;
    if (i >= this.rowQuery.length) this.growRows(i + 1);
    this.rowQuery[i] = q;
    this.rowDoc[i] = doc;
    this.rowLine[i] = line;
    this.rowValue[i] = value;
    this.rowNext[i] = -1;
    if (this.qLast[q] === -1) this.qFirst[q] = i;
    else this.rowNext[this.qLast[q]!] = i;
    this.qLast[q] = i;
    this.qCount[q]!++;
    return 0;
  }

  private growRows(need: number): void {
    this.rowQuery = grown(this.rowQuery, need);
    this.rowDoc = grown(this.rowDoc, need);
    this.rowLine = grown(this.rowLine, need);
    this.rowValue = grown(this.rowValue, need);
    this.rowNext = grown(this.rowNext, need);
  }

  /** The rows grouped by query (queries in first-appearance order, rows of a query in line order). */
  table(): QueryTable {
    const nq = this.qids.length;
    const offs = new Int32Array(nq + 1);
    for (let q = 0; q < nq; q++) offs[q + 1] = offs[q]! + this.qCount[q]!;
    const fill = offs.slice(0, nq);
    const doc = new Int32Array(this.n);
    const value = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) {
      const at = fill[this.rowQuery[i]!]!++;
      doc[at] = this.rowDoc[i]!;
      value[at] = this.rowValue[i]!;
    }
    return { qids: this.qids, offs, doc, value };
  }
}
