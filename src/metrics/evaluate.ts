/**
 * Scores a run against qrels: per-query values first (trec_eval `-q`), then the mean as a fold
 * (`aggregate`), plus counts of everything that was skipped or is worth a warning.
 *
 * Rules (trec_eval defaults, docs/protocol.md §6):
 * - A query is evaluated when it is in both the qrels and the run. A query of the run that is empty
 *   (ran, retrieved nothing) is evaluated and scores 0 everywhere.
 * - A qrels query absent from the run is skipped (not averaged as 0): `counts.missingFromRun`.
 * - A qrels query whose judgements are all <= 0 (or that has none) is evaluated like any other and
 *   scores 0 everywhere, as trec_eval 10.0 and the official code's pytrec_eval do: `counts.noRelevant`
 *   (test/fixtures/trec_eval/nonpositive.*). Whether a query without gold is in the qrels at all is
 *   the evaluation policy's choice (data/dataset.ts, `evaluation:`).
 * - A run query absent from the qrels is ignored: `counts.notInQrels`.
 * - Each ranking is re-ordered by trec_eval's rule (rank.ts); a doc id twice in one evaluated
 *   ranking, or a non-finite score, is a UserError (trec_eval refuses duplicates too).
 * - A doc id equal to its query id is scored like any other document (trec_eval does; BEIR would
 *   drop it silently) and reported in `counts.queryIdAsDoc` so it is never silent (docs/protocol.md §7 rule 9).
 */
import { UserError } from '../core/errors.js';
import { plural } from '../util/plural.js';
import type { Qrels, Run } from '../core/types.js';
import { completeness } from './completeness.js';
import { hit } from './hit.js';
import { judged } from './judged.js';
import { averagePrecision } from './map.js';
import { type Measure, type MeasureName, measureKey } from './measures.js';
import { reciprocalRank } from './mrr.js';
import { ndcg } from './ndcg.js';
import { precision } from './precision.js';
import { compareUtf8, trecOrderRows } from './rank.js';
import { recall } from './recall.js';
import { type MeasureFn, type RankedGrades, RELEVANCE_LEVEL } from './relevance.js';
import { type JudgedRun, tablesFromMaps } from './tables.js';

/** The function behind each measure name. */
export const MEASURE_FNS: Readonly<Record<MeasureName, MeasureFn>> = {
  NDCG: ndcg,
  MAP: averagePrecision,
  Recall: recall,
  Precision: precision,
  Completeness: completeness,
  MRR: reciprocalRank,
  Hit: hit,
  Judged: judged,
};

export interface EvaluationCounts {
  /** Queries in both qrels and run: the denominator of every mean. */
  evaluated: number;
  /** All queries in the qrels, including those without a relevant document. */
  qrelsQueries: number;
  /** Qrels queries absent from the run, in qrels order: skipped. */
  missingFromRun: string[];
  /** Run queries absent from the qrels, in run order: ignored. */
  notInQrels: string[];
  /** Evaluated queries whose ranking is empty (they score 0). */
  emptyRankings: number;
  /** Evaluated qrels queries with no grade >= 1, in qrels order (they score 0, as in trec_eval). */
  noRelevant: string[];
  /** For each cutoff k used (as a string, ascending; recip_rank has none): evaluated queries with more relevant documents than k. */
  moreGoldThanK: Record<string, number>;
  /** Evaluated queries whose ranking contains a doc id equal to the query id (scored normally). */
  queryIdAsDoc: string[];
}

export interface Evaluation {
  measures: Measure[];
  /** Query id -> measure key -> value, only for evaluated queries, in qrels order. */
  perQuery: Map<string, Record<string, number>>;
  /** Measure key -> mean over evaluated queries (unrounded), in `measures` order. */
  aggregate: Record<string, number>;
  counts: EvaluationCounts;
}

/**
 * The means of `columns` values over queries, summed in trec_eval's order (query ids ascending by
 * UTF-8 bytes) and divided by the number of queries: `value(i, j)` is query `qids[i]`'s value of
 * column j. NaN for every column when there is no query.
 */
function meansInTrecOrder(qids: readonly string[], columns: number, value: (i: number, j: number) => number): Float64Array {
  const order = qids.map((_, i) => i).sort((a, b) => compareUtf8(qids[a]!, qids[b]!));
  const sums = new Float64Array(columns);
  for (const i of order) for (let j = 0; j < columns; j++) sums[j]! += value(i, j);
  for (let j = 0; j < columns; j++) sums[j] = qids.length === 0 ? Number.NaN : sums[j]! / qids.length;
  return sums;
}

/**
 * Mean of each key over the queries of `perQuery` (a fold, so any subset can be re-aggregated).
 * Values are summed in trec_eval's order (query ids ascending by UTF-8 bytes) and divided by the
 * number of queries, so the mean does not depend on map order and matches trec_eval's `all` line bit
 * for bit. An empty map gives NaN for every key (the mean of nothing is undefined). A key missing
 * from a query's record is an error.
 */
export function aggregate(
  perQuery: ReadonlyMap<string, Readonly<Record<string, number>>>,
  keys: readonly string[],
): Record<string, number> {
  const qids = [...perQuery.keys()];
  const recs = [...perQuery.values()];
  const means = meansInTrecOrder(qids, keys.length, (i, j) => {
    const v = recs[i]![keys[j]!];
    if (v === undefined) throw new Error(`aggregate: query ${qids[i]!} has no value for ${keys[j]!}`);
    return v;
  });
  const out: Record<string, number> = {};
  for (let j = 0; j < keys.length; j++) out[keys[j]!] = means[j]!;
  return out;
}

/**
 * Evaluates `run` against `qrels` on `measures` (see the module comment for the rules). Throws a
 * UserError when no query is in both (like trec_eval), on duplicate doc ids and non-finite scores.
 */
export function evaluate(qrels: Qrels, run: Run, measures: readonly Measure[]): Evaluation {
  return evaluateTables(tablesFromMaps(qrels, run), measures);
}

/** Sorts `a[0 .. n)` descending (insertion sort while short: `n` is a query's relevant count). */
function sortDescending(a: Float64Array, n: number): void {
  if (n > 32) {
    a.subarray(0, n).sort().reverse();
    return;
  }
  for (let i = 1; i < n; i++) {
    const v = a[i]!;
    let p = i;
    while (p > 0 && a[p - 1]! < v) {
      a[p] = a[p - 1]!;
      p--;
    }
    a[p] = v;
  }
}

/**
 * `evaluate` on the typed-array form (tables.ts): the one evaluator. Per evaluated query: the
 * duplicate and finite checks, the ranking in trec_eval order, its grades, then every measure.
 */
export function evaluateTables(t: JudgedRun, measures: readonly Measure[]): Evaluation {
  if (measures.length === 0) throw new UserError('no measures to compute');
  const { docIds, qrels, run } = t;
  const keys = measures.map(measureKey);
  const fns: MeasureFn[] = measures.map((m) => MEASURE_FNS[m.name]);
  const cutoffs = measures.map((m) => m.k);
  // the cutoffs `moreGoldThanK` counts for (recip_rank has none)
  const ks = [...new Set(cutoffs)].filter((k) => Number.isFinite(k)).sort((a, b) => a - b);
  const moreGold = new Int32Array(ks.length);
  const nm = measures.length;

  const runIndex = new Map<string, number>();
  run.qids.forEach((q, i) => runIndex.set(q, i));
  const missingFromRun: string[] = [];
  const noRelevant: string[] = [];
  const queryIdAsDoc: string[] = [];
  let emptyRankings = 0;

  const evaluated: string[] = [];
  const values = new Float64Array(Math.max(1, qrels.qids.length) * nm);
  /** grade of each document for the current query (0 elsewhere), and a per-query stamp for the duplicate check */
  const gradeOf = new Float64Array(docIds.length);
  const judgedOf = new Uint8Array(docIds.length);
  const seen = new Int32Array(docIds.length);
  let longest = 0;
  for (let q = 0; q < run.qids.length; q++) longest = Math.max(longest, run.offs[q + 1]! - run.offs[q]!);
  let widest = 0;
  for (let q = 0; q < qrels.qids.length; q++) widest = Math.max(widest, qrels.offs[q + 1]! - qrels.offs[q]!);
  const g: RankedGrades = { grades: new Float64Array(longest), judged: new Uint8Array(longest), length: 0, numRel: 0, ideal: new Float64Array(widest), idealLength: 0 };
  const order = new Int32Array(longest);

  for (let qq = 0; qq < qrels.qids.length; qq++) {
    const qid = qrels.qids[qq]!;
    const rq = runIndex.get(qid);
    if (rq === undefined) {
      missingFromRun.push(qid);
      continue;
    }
    const r0 = run.offs[rq]!;
    const n = run.offs[rq + 1]! - r0;
    checkRanking(qid, t, r0, n, seen, evaluated.length + 1);
    gradeRanking(g, t, qq, r0, n, order, gradeOf, judgedOf);
    // trec_eval 10.0 evaluates a judged query without a relevant document like any other: zeros.
    if (g.numRel === 0) noRelevant.push(qid);
    const at = evaluated.length * nm;
    for (let m = 0; m < nm; m++) values[at + m] = fns[m]!(g, cutoffs[m]!);
    evaluated.push(qid);
    if (n === 0) emptyRankings++;
    if (listsItself(qid, t, r0, n)) queryIdAsDoc.push(qid);
    for (let i = 0; i < ks.length; i++) if (g.numRel > ks[i]!) moreGold[i]!++;
  }

  const qrelsIds = new Set(qrels.qids);
  const notInQrels = run.qids.filter((q) => !qrelsIds.has(q));

  if (evaluated.length === 0) {
    throw new UserError(
      `no query is both in the run (${plural(run.qids.length, 'query', 'queries')}) and in the qrels (${plural(qrels.qids.length, 'query', 'queries')}): wrong split or files?`,
    );
  }
  const means = meansInTrecOrder(evaluated, nm, (i, j) => values[i * nm + j]!);
  const aggregateOut: Record<string, number> = {};
  for (let j = 0; j < nm; j++) aggregateOut[keys[j]!] = means[j]!;
  const moreGoldThanK: Record<string, number> = {};
  ks.forEach((k, i) => (moreGoldThanK[String(k)] = moreGold[i]!));

  let perQuery: Map<string, Record<string, number>> | undefined;
  return {
    measures: [...measures],
    // built on first use: `score` prints only the means
    get perQuery(): Map<string, Record<string, number>> {
      if (perQuery === undefined) {
        perQuery = new Map();
        for (let i = 0; i < evaluated.length; i++) {
          const rec: Record<string, number> = {};
          for (let j = 0; j < nm; j++) rec[keys[j]!] = values[i * nm + j]!;
          perQuery.set(evaluated[i]!, rec);
        }
      }
      return perQuery;
    },
    aggregate: aggregateOut,
    counts: {
      evaluated: evaluated.length,
      qrelsQueries: qrels.qids.length,
      missingFromRun,
      notInQrels,
      emptyRankings,
      noRelevant,
      moreGoldThanK,
      queryIdAsDoc,
    },
  };
}

/**
 * Fills `g` for qrels query `qq` and its ranking, run rows r0 .. r0 + n: the ranking in trec_eval
 * order (`order`: scratch), the grade and the judged mark at each rank, the relevant count and the
 * ideal gains. `gradeOf`, `judgedOf`: all zeros, and left so.
 */
function gradeRanking(g: RankedGrades, t: JudgedRun, qq: number, r0: number, n: number, order: Int32Array, gradeOf: Float64Array, judgedOf: Uint8Array): void {
  const { qrels, run } = t;
  const j0 = qrels.offs[qq]!;
  const j1 = qrels.offs[qq + 1]!;
  let numRel = 0;
  let idealLength = 0;
  for (let j = j0; j < j1; j++) {
    const grade = qrels.value[j]!;
    if (grade >= RELEVANCE_LEVEL) numRel++;
    if (grade > 0) g.ideal[idealLength++] = grade;
    gradeOf[qrels.doc[j]!] = grade;
    judgedOf[qrels.doc[j]!] = 1;
  }
  sortDescending(g.ideal, idealLength);
  trecOrderRows(order, r0, n, run.value, run.doc, t.docIds);
  const grades = g.grades;
  const marks = g.judged;
  for (let i = 0; i < n; i++) {
    const d = run.doc[order[i]!]!;
    grades[i] = gradeOf[d]!;
    marks[i] = judgedOf[d]!;
  }
  for (let j = j0; j < j1; j++) {
    gradeOf[qrels.doc[j]!] = 0;
    judgedOf[qrels.doc[j]!] = 0;
  }
  g.length = n;
  g.numRel = numRel;
  g.idealLength = idealLength;
}

/** Whether run rows r0 .. r0 + n list a document whose id is the query id. */
function listsItself(qid: string, t: JudgedRun, r0: number, n: number): boolean {
  for (let r = r0; r < r0 + n; r++) if (t.docIds[t.run.doc[r]!] === qid) return true;
  return false;
}

/**
 * The duplicate and finite checks of rows r0 .. r0 + n of a run table (`seen`: a per-document stamp,
 * `stamp` unique to this query): a doc id twice, or a non-finite score, is a UserError.
 */
function checkRanking(qid: string, t: JudgedRun, r0: number, n: number, seen: Int32Array, stamp: number): void {
  const { doc, value } = t.run;
  const r1 = r0 + n;
  for (let r = r0; r < r1; r++) {
    const d = doc[r]!;
    if (seen[d] === stamp) throw new UserError(`run: query ${JSON.stringify(qid)}: document ${JSON.stringify(t.docIds[d]!)} appears more than once`);
    seen[d] = stamp;
  }
  for (let r = r0; r < r1; r++) {
    if (!Number.isFinite(value[r])) {
      throw new UserError(`run: query ${JSON.stringify(qid)}: document ${JSON.stringify(t.docIds[doc[r]!]!)}: score is not a finite number (${String(value[r])})`);
    }
  }
}
