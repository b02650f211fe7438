/**
 * Library verb: score a run file (TREC or official JSON) against qrels (a TREC qrels file, a SkillRet
 * qrels JSONL file, or a dataset folder) with trec_eval semantics. Same validation and errors as
 * `skillret-eval score`, which renders what this returns.
 */
import { appendFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { UserError, where } from '../core/errors.js';
import type { GateReport } from '../analysis/gates.js';
import { failureLines, junitXml, renderScoreMarkdown } from '../report/gates.js';
import { writeFileAtomic } from '../util/atomic.js';
import { fsErrorText } from '../util/dirs.js';
import { readJudgedFiles } from '../formats/judged-files.js';
import { readRunFile } from '../formats/run-file.js';
import { type Evaluation, evaluateTables } from '../metrics/evaluate.js';
import { defaultMeasures, measureKey, parseMeasures } from '../metrics/measures.js';
import { roundHalfEven } from '../util/python-round.js';
import { type JudgedRun, tablesFromMaps } from '../metrics/tables.js';

export interface ScoreRunOptions {
  /** TREC qrels file, SkillRet qrels JSONL file, or dataset folder (`<dir>/qrels/<split>.jsonl` ...). */
  qrels: string;
  /** TREC run file (`qid Q0 docid rank score tag`) or official JSON `{qid: {docid: score}}` / result file. */
  run: string;
  /** Cutoffs of the default measures (NDCG, Recall, Completeness, MAP, Precision, MRR); default 5, 10, 15. Ignored when `measures` is given. */
  k?: readonly number[];
  /** Explicit measures in output order, e.g. `['NDCG@10', 'Recall@20']` (trec_eval names like `ndcg_cut_10` work too; `recip_rank`: MRR over the whole ranking, key `recip_rank`). */
  measures?: readonly string[];
  /** Split of a dataset folder and of an official result file's `retrieval` (default `test`). */
  split?: string;
  /**
   * An expect file (`--expect`): expectations on this run's metrics (pipeline/expect.ts), checked
   * before the files are read. `run:` may be left out, or be the run file's name or its path as given.
   */
  expect?: string;
  /** A file to write the gates to as JUnit XML (`--junit`); checked before any work like an `--out` path. */
  junit?: string;
  /** A Markdown file the measures and the gate table are appended to, with `expect` (the CLI passes $GITHUB_STEP_SUMMARY). */
  stepSummary?: string;
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
  /** The regression gate, with `expect`: every expectation checked (undefined without). */
  gates?: GateReport;
  /** One line per failed gate; empty when every gate passed or there is none. */
  gateFailures: string[];
}

export const DEFAULT_KS: readonly number[] = [5, 10, 15];

/** Loads qrels (a file or a dataset folder) and the run; also returns queries the folder had without gold. */
async function loadJudged(o: ScoreRunOptions, split: string): Promise<{ judged: JudgedRun; withoutGold: string[] }> {
  let isDir: boolean;
  try {
    isDir = statSync(o.qrels).isDirectory();
  } catch {
    throw new UserError(`${where(o.qrels)}qrels not found (expected a qrels file or a dataset folder)`);
  }
  if (isDir) {
    const { loadGold } = await import('../data/dataset.js'); // only for a folder: keeps scoring files' start-up small
    const g = await loadGold(o.qrels, split);
    return { judged: tablesFromMaps(g.qrels, await readRunFile(o.run, { split })), withoutGold: g.queriesWithoutGold };
  }
  return { judged: await readJudgedFiles(o.qrels, o.run, { split }), withoutGold: [] };
}

/** Scores one run file; throws a UserError (one line naming the file, line and field) on bad input. */
export async function scoreRun(o: ScoreRunOptions): Promise<ScoreResult> {
  const split = o.split ?? 'test';
  const measures = o.measures !== undefined && o.measures.length > 0 ? parseMeasures(o.measures) : defaultMeasures(o.k ?? DEFAULT_KS);
  const label = basename(o.run);
  // The expect file's machinery (the config schema, the gate statistics) loads only with --expect / --junit: scoring files starts small.
  const gating = o.expect !== undefined || o.junit !== undefined ? await import('./score-gates.js') : undefined;
  const expectations = gating?.checkGateFiles(o, label, measures.map(measureKey));
  const { judged, withoutGold } = await loadJudged(o, split);
  const evaluation = evaluateTables(judged, measures);
  const metrics: Record<string, number> = {};
  for (const m of evaluation.measures) metrics[measureKey(m)] = roundHalfEven(evaluation.aggregate[measureKey(m)]!, 5);
  const gates = expectations !== undefined ? gating!.scoreGates(expectations, label, evaluation.aggregate) : undefined;
  const write = (path: string, data: string, how: (p: string, d: string) => void) => {
    try {
      how(path, data);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new UserError(`${path}: ${typeof err.code === 'string' ? fsErrorText(err) : String(e)}`);
    }
  };
  if (o.junit !== undefined) write(o.junit, junitXml(gates, 'score'), writeFileAtomic);
  if (o.stepSummary !== undefined && gates) write(o.stepSummary, renderScoreMarkdown(label, metrics, gates), appendFileSync);
  return { queries: evaluation.counts.evaluated, metrics, evaluation, queriesWithoutGold: withoutGold, ...(gates ? { gates } : {}), gateFailures: gates ? failureLines(gates) : [] };
}
