/**
 * Library verb: score a run file (TREC or official JSON) against qrels (a TREC qrels file, a SkillRet
 * qrels JSONL file, or a dataset folder) with trec_eval semantics. Same validation and errors as
 * `skillret-eval score`, which renders what this returns.
 */
import { statSync } from 'node:fs';
import { UserError, where } from '../core/errors.js';
import type { Qrels } from '../core/types.js';
import { loadGold } from '../data/dataset.js';
import { readQrelsFile } from '../formats/qrels-file.js';
import { readRunFile } from '../formats/run-file.js';
import { type Evaluation, evaluate } from '../metrics/evaluate.js';
import { defaultMeasures, measureKey, parseMeasures } from '../metrics/measures.js';
import { roundHalfEven } from '../metrics/round.js';

export interface ScoreRunOptions {
  /** TREC qrels file, SkillRet qrels JSONL file, or dataset folder (`<dir>/qrels/<split>.jsonl` ...). */
  qrels: string;
  /** TREC run file (`qid Q0 docid rank score tag`) or official JSON `{qid: {docid: score}}` / result file. */
  run: string;
  /** Cutoffs of the default measures (NDCG, Recall, Completeness, MAP, Precision, MRR); default 5, 10, 15. Ignored when `measures` is given. */
  k?: readonly number[];
  /** Explicit measures in output order, e.g. `['NDCG@10', 'Recall@20']` (trec_eval names like `ndcg_cut_10` work too). */
  measures?: readonly string[];
  /** Split of a dataset folder and of an official result file's `retrieval` (default `test`). */
  split?: string;
}

export interface ScoreResult {
  /** Queries evaluated. */
  queries: number;
  /** Measure key (`NDCG@10`) → mean over evaluated queries as a fraction, rounded like Python's round(x, 5), in measure order. */
  metrics: Record<string, number>;
  /** The full evaluation: per-query values, unrounded means, counts of skipped and flagged queries. */
  evaluation: Evaluation;
  /** Queries of a dataset folder that have no relevant judgement (dropped, as trec_eval does). */
  queriesWithoutGold: string[];
}

export const DEFAULT_KS: readonly number[] = [5, 10, 15];

/** Loads qrels from a file or a dataset folder; also returns queries the folder had without gold. */
async function loadQrels(path: string, split: string): Promise<{ qrels: Qrels; withoutGold: string[] }> {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new UserError(`${where(path)}qrels not found (expected a qrels file or a dataset folder)`);
  }
  if (isDir) {
    const g = await loadGold(path, split);
    return { qrels: g.qrels, withoutGold: g.queriesWithoutGold };
  }
  return { qrels: await readQrelsFile(path), withoutGold: [] };
}

/** Scores one run file; throws a UserError (one line naming the file, line and field) on bad input. */
export async function scoreRun(o: ScoreRunOptions): Promise<ScoreResult> {
  const split = o.split ?? 'test';
  const measures = o.measures !== undefined && o.measures.length > 0 ? parseMeasures(o.measures) : defaultMeasures(o.k ?? DEFAULT_KS);
  const { qrels, withoutGold } = await loadQrels(o.qrels, split);
  const run = await readRunFile(o.run, { split });
  const evaluation = evaluate(qrels, run, measures);
  const metrics: Record<string, number> = {};
  for (const m of evaluation.measures) metrics[measureKey(m)] = roundHalfEven(evaluation.aggregate[measureKey(m)]!, 5);
  return { queries: evaluation.counts.evaluated, metrics, evaluation, queriesWithoutGold: withoutGold };
}
