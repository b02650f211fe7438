/**
 * The report value of an experiment: everything a report shows, computed once, after the pipeline
 * ran and before anything is written. The pipeline's result already holds each run's evaluation,
 * the reranker on/off attribution, the approximation audit, the strategy comparisons and the
 * injection operating points; `analyze` adds what is derived across runs and data: the query slices
 * of every run (with the on/off comparison inside each group) and the published-vs-measured pairing
 * with its verdicts. The renderers (src/report/: results-folder.ts, summary.ts) only format a
 * `Report`; none of them computes.
 */
import { SKILLRET_RELEASES, type SkillretRelease } from '../data/hub.js';
import type { CategoryRule } from '../metrics/query-slices.js';
import type { Tolerances } from '../metrics/verdict.js';
import { mainKey, measureKey, measureOfKey } from '../metrics/measures.js';
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import { paperReport, type PaperReport } from '../paper/published-vs-measured.js';
import { runSlices, type RunSlices } from './run-slices.js';
import { perQueryRecords, type RunRecords } from './per-query-records.js';
import { rerankMatrix, type RerankMatrix } from './rerank-matrix.js';
import { experimentNotes, type Text } from './notes.js';
import { stageCost, type StageCost } from './stage-cost.js';
import { queryInfos, skillInfos } from './explorer.js';
import type { QueryInfo, SkillInfo } from '../formats/explorer-files.js';
import { leaderboard, runLeaderboardSettings, type Leaderboard } from './leaderboard.js';
import { expectationsOf, type Expectation } from '../pipeline/expect.js';
import { evaluateGates, type GateReport } from './gates.js';
import { siblingReport, type SiblingReport } from './siblings.js';

export interface Report {
  /** The pipeline's result: config, dataset, measures, runs (evaluations, on/off, audit, …), stages, timings. */
  result: ExperimentResult;
  /** The main metric of tables and slice comparisons: NDCG@10, or NDCG at the first k. */
  primaryKey: string;
  /** The k of the compact tables (on/off, audit, strategies, terminal): the main metric's. */
  shownK: number;
  /** NDCG, Recall and Completeness at `shownK`: the columns of the compact tables. */
  shownKeys: string[];
  /** The category rule of the major/sub slices. */
  categoryRule: CategoryRule;
  /** Per run (run order): its slices. */
  slices: RunSlices[];
  /** The pinned releases the dataset was checked against. */
  releases: readonly SkillretRelease[];
  /** Published vs measured with verdicts; undefined when the dataset is not a pinned release. */
  paper: PaperReport | undefined;
  tolerances: Tolerances;
  /** Per run (run order): its per-query records, what per-query.jsonl holds. */
  records: RunRecords[];
  /** The rerank matrix (paper Table 10's shape) of the main metric, when some reranker group has several depths or an oracle pool. */
  rerankMatrix: RerankMatrix | undefined;
  /** What a reader must know to read the numbers (notes.ts). */
  notes: Text[];
  /** Each stage's cost, typed (stage-cost.ts). */
  cost: StageCost[];
  /** Every run against the first and against the column's best (leaderboard.ts), with the config's seed and iterations. */
  leaderboard: Leaderboard;
  /** The explorer's queries and skills (explorer.ts): what queries.jsonl and skills.jsonl hold. */
  queries: QueryInfo[];
  skills: SkillInfo[];
  /** The regression gate (gates.ts): every expectation checked; undefined when there is none. */
  gates: GateReport | undefined;
  /** Sibling families and the family-level view of each run (`analysis.siblings`); absent when not asked for. */
  siblings?: SiblingReport;
}

export interface AnalyzeOptions {
  /** Pinned releases the dataset is matched against (default: the SkillRet releases). */
  releases?: readonly SkillretRelease[];
  /** The expectations to check (default: the config's `expect:`); `run --expect FILE` adds the file's. */
  expectations?: readonly Expectation[];
}

/** The primary key of an experiment's tables: the main metric of its measures (metrics/measures.ts `mainKey`). */
export function primaryKeyOf(res: ExperimentResult): string {
  return mainKey(res.measures.map(measureKey));
}

export function analyze(res: ExperimentResult, o: AnalyzeOptions = {}): Report {
  const releases = o.releases ?? SKILLRET_RELEASES;
  const tolerances: Tolerances = { ok: res.config.report.ok_within, close: res.config.report.close_within };
  const categoryRule = res.config.report.category_rule;
  const primaryKey = primaryKeyOf(res);
  const shownK = measureOfKey(primaryKey)?.k ?? res.config.k[0]!;
  const slices = runSlices(
    res.dataset,
    res.runs.map((r: RunResult) => ({ retriever: r.retriever, reranker: r.reranker, evaluation: r.evaluation, ...(r.onOff ? { base: r.onOff.base } : {}) })),
    { rule: categoryRule, keys: res.measures.map(measureKey), primaryKey, seed: res.config.stats.seed, iterations: res.config.stats.iterations },
  );
  const records = res.runs.map((r) => perQueryRecords(res, r, res.config.output));
  const settings = runLeaderboardSettings(res.config.stats);
  const board = leaderboard(records, settings);
  const paper = paperReport(res, releases, tolerances);
  const expectations = o.expectations ?? expectationsOf((res.config.expect ?? []).map((entry, index) => ({ index, entry })), (i) => `expect[${i}]`);
  const gates =
    expectations.length > 0
      ? evaluateGates(
          expectations,
          res.runs.map((r, i) => ({ label: records[i]!.label, means: r.evaluation.aggregate, records: records[i]! })),
          settings,
        )
      : undefined;
  const siblings = siblingReport(res);
  const skills = skillInfos(res);
  // The explorer shows each listed skill's family (only with the analysis asked for: skills.jsonl is unchanged otherwise).
  if (siblings) for (const s of skills) { const f = siblings.familyOf.get(s.id); if (f !== undefined) s.family = f; }
  return {
    gates, result: res, primaryKey, shownK, shownKeys: ['NDCG', 'Recall', 'Completeness'].map((n) => `${n}@${shownK}`), categoryRule, slices, releases, paper, tolerances, records, leaderboard: board, rerankMatrix: rerankMatrix(res, `NDCG@${shownK}`), notes: experimentNotes(res, { pinnedRelease: paper !== undefined }), cost: res.stages.map(stageCost), queries: queryInfos(res), skills, ...(siblings ? { siblings } : {}) };
}
