/**
 * Runs and qrels as typed arrays, for evaluating large files without an object per document: every
 * document is a small integer (an index into one `docIds` list shared by the run and the qrels),
 * and the rows of query q are `offs[q] .. offs[q + 1]` of the parallel arrays. The TREC readers
 * build these directly from the bytes (formats/trec-run.ts, trec-qrels.ts); `tablesFromMaps` builds
 * them from the Map forms (`Run`, `Qrels`), so both go through one evaluator (evaluate.ts).
 */
import type { Qrels, Run, ScoredDoc } from '../core/types.js';

/** Queries (in first-appearance order) and, per query, rows of documents with one number each. */
export interface QueryTable {
  readonly qids: readonly string[];
  /** Length qids.length + 1: the rows of query q are offs[q] .. offs[q + 1]. */
  readonly offs: Int32Array;
  /** Document of each row: an index into the shared `docIds`. */
  readonly doc: Int32Array;
  /** The row's number: a run's score, a qrels grade. */
  readonly value: Float64Array;
}

/** A run and its qrels over one list of document ids. */
export interface JudgedRun {
  readonly docIds: readonly string[];
  readonly qrels: QueryTable;
  readonly run: QueryTable;
}

/** The Map form of a run table (documents of each query in row order). */
export function runFromTable(t: QueryTable, docIds: readonly string[]): Run {
  const run: Run = new Map();
  for (let q = 0; q < t.qids.length; q++) {
    const docs: ScoredDoc[] = [];
    for (let r = t.offs[q]!; r < t.offs[q + 1]!; r++) docs.push({ docId: docIds[t.doc[r]!]!, score: t.value[r]! });
    run.set(t.qids[q]!, docs);
  }
  return run;
}

/** The Map form of a qrels table (judgements of each query in row order). */
export function qrelsFromTable(t: QueryTable, docIds: readonly string[]): Qrels {
  const qrels: Qrels = new Map();
  for (let q = 0; q < t.qids.length; q++) {
    const judged = new Map<string, number>();
    for (let r = t.offs[q]!; r < t.offs[q + 1]!; r++) judged.set(docIds[t.doc[r]!]!, t.value[r]!);
    qrels.set(t.qids[q]!, judged);
  }
  return qrels;
}

/** Tables of the Map forms, in their map order (documents interned by string). */
export function tablesFromMaps(qrels: Qrels, run: Run): JudgedRun {
  const docIds: string[] = [];
  const index = new Map<string, number>();
  const idOf = (d: string): number => {
    let i = index.get(d);
    if (i === undefined) {
      i = docIds.length;
      docIds.push(d);
      index.set(d, i);
    }
    return i;
  };
  const table = <T>(m: ReadonlyMap<string, T>, size: (v: T) => number, fill: (v: T, doc: Int32Array, value: Float64Array, at: number) => void): QueryTable => {
    const qids = [...m.keys()];
    const offs = new Int32Array(qids.length + 1);
    let n = 0;
    qids.forEach((q, i) => {
      n += size(m.get(q)!);
      offs[i + 1] = n;
    });
    const doc = new Int32Array(n);
    const value = new Float64Array(n);
    qids.forEach((q, i) => fill(m.get(q)!, doc, value, offs[i]!));
    return { qids, offs, doc, value };
  };
  const q = table(qrels, (j) => j.size, (j, doc, value, at) => {
    for (const [d, g] of j) {
      doc[at] = idOf(d);
      value[at++] = g;
    }
  });
  const r = table(run, (docs) => docs.length, (docs, doc, value, at) => {
    for (const d of docs) {
      doc[at] = idOf(d.docId);
      value[at++] = d.score;
    }
  });
  return { docIds, qrels: q, run: r };
}
