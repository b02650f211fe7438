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
import type { Qrels, Run, ScoredDoc } from '../core/types.js';
import { completeness } from './completeness.js';
import { averagePrecision } from './map.js';
import { type Measure, type MeasureName, measureKey } from './measures.js';
import { reciprocalRank } from './mrr.js';
import { ndcg } from './ndcg.js';
import { precision } from './precision.js';
import { compareUtf8, trecOrder } from './rank.js';
import { recall } from './recall.js';
import { countRelevant, type MeasureFn } from './relevance.js';

/** The function behind each measure name. */
export const MEASURE_FNS: Readonly<Record<MeasureName, MeasureFn>> = {
  NDCG: ndcg,
  MAP: averagePrecision,
  Recall: recall,
  Precision: precision,
  Completeness: completeness,
  MRR: reciprocalRank,
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
  /** For each cutoff k used (as a string, ascending): evaluated queries with more relevant documents than k. */
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

/** Scores one query's ranking (any order) on `measures`; keys as `measureKey`. */
export function evaluateQuery(
  qid: string,
  docs: readonly ScoredDoc[],
  judged: ReadonlyMap<string, number>,
  measures: readonly Measure[],
): Record<string, number> {
  return scoreQuery(qid, docs, judged, measures, measures.map(measureKey));
}

/** The duplicate check of one ranking: pairwise for short rankings (no allocation), else a Set. */
function checkRanking(qid: string, docs: readonly ScoredDoc[]): void {
  const dup = (d: ScoredDoc) => new UserError(`run: query ${JSON.stringify(qid)}: document ${JSON.stringify(d.docId)} appears more than once`);
  if (docs.length <= 64) {
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      for (let j = 0; j < i; j++) if (docs[j]!.docId === d.docId) throw dup(d);
    }
  } else {
    const seen = new Set<string>();
    for (const d of docs) {
      if (seen.has(d.docId)) throw dup(d);
      seen.add(d.docId);
    }
  }
  for (const d of docs) {
    if (!Number.isFinite(d.score)) {
      throw new UserError(`run: query ${JSON.stringify(qid)}: document ${JSON.stringify(d.docId)}: score is not a finite number (${String(d.score)})`);
    }
  }
}

function scoreQuery(
  qid: string,
  docs: readonly ScoredDoc[],
  judged: ReadonlyMap<string, number>,
  measures: readonly Measure[],
  keys: readonly string[],
): Record<string, number> {
  checkRanking(qid, docs);
  const ranked = trecOrder(docs);
  const out: Record<string, number> = {};
  for (let j = 0; j < measures.length; j++) {
    const m = measures[j]!;
    out[keys[j]!] = MEASURE_FNS[m.name](ranked, judged, m.k);
  }
  return out;
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
  const qids = [...perQuery.keys()].sort(compareUtf8);
  const sums = new Array<number>(keys.length).fill(0);
  for (const qid of qids) {
    const rec = perQuery.get(qid)!;
    for (let j = 0; j < keys.length; j++) {
      const v = rec[keys[j]!];
      if (v === undefined) throw new Error(`aggregate: query ${qid} has no value for ${keys[j]!}`);
      sums[j]! += v;
    }
  }
  const out: Record<string, number> = {};
  for (let j = 0; j < keys.length; j++) out[keys[j]!] = qids.length === 0 ? Number.NaN : sums[j]! / qids.length;
  return out;
}

/**
 * Evaluates `run` against `qrels` on `measures` (see the module comment for the rules). Throws a
 * UserError when no query is in both (like trec_eval), on duplicate doc ids and non-finite scores.
 */
export function evaluate(qrels: Qrels, run: Run, measures: readonly Measure[]): Evaluation {
  if (measures.length === 0) throw new UserError('no measures to compute');
  const keys = measures.map(measureKey);
  const ks = [...new Set(measures.map((m) => m.k))].sort((a, b) => a - b);
  const moreGoldThanK: Record<string, number> = {};
  for (const k of ks) moreGoldThanK[String(k)] = 0;

  const perQuery = new Map<string, Record<string, number>>();
  const missingFromRun: string[] = [];
  const noRelevant: string[] = [];
  const queryIdAsDoc: string[] = [];
  let emptyRankings = 0;

  for (const [qid, judged] of qrels) {
    const numRel = countRelevant(judged);
    const docs = run.get(qid);
    if (docs === undefined) {
      missingFromRun.push(qid);
      continue;
    }
    // trec_eval 10.0 evaluates a judged query without a relevant document like any other: zeros.
    if (numRel === 0) noRelevant.push(qid);
    perQuery.set(qid, scoreQuery(qid, docs, judged, measures, keys));
    if (docs.length === 0) emptyRankings++;
    for (const d of docs) {
      if (d.docId === qid) {
        queryIdAsDoc.push(qid);
        break;
      }
    }
    for (const k of ks) if (numRel > k) moreGoldThanK[String(k)]!++;
  }

  const notInQrels: string[] = [];
  for (const qid of run.keys()) if (!qrels.has(qid)) notInQrels.push(qid);

  if (perQuery.size === 0) {
    throw new UserError(
      `no query is both in the run (${run.size} queries) and in the qrels (${qrels.size} queries): wrong split or files?`,
    );
  }

  return {
    measures: [...measures],
    perQuery,
    aggregate: aggregate(perQuery, keys),
    counts: {
      evaluated: perQuery.size,
      qrelsQueries: qrels.size,
      missingFromRun,
      notInQrels,
      emptyRankings,
      noRelevant,
      moreGoldThanK,
      queryIdAsDoc,
    },
  };
}
