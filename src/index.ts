/**
 * The library entry point (`import … from 'skillret-eval'`): the main verbs of the CLI as typed
 * functions with the same validation and the same errors. Bad input throws a `UserError` whose
 * message is the one line the CLI would print; anything else is a bug.
 */
export { UserError, isUserError } from './core/errors.js';

export { loadConfig, parseConfig } from './pipeline/config.js';
export type { Config, RetrieverConfig, RerankerConfig } from './pipeline/config.js';

export { runExperiment, planExperiment } from './api/run.js';
export { registerRerankerKind, registerRetrieverKind } from './pipeline/registry.js';
export { defineFirstStage } from './core/stages.js';
export type { CorpusScorer, FirstStageInput, FirstStageKind, FirstStageOutput, PaperCounterpart, RerankerKind } from './core/stages.js';
export { defineReranker } from './rerank/types.js';
export type { Reranker, RerankPair } from './rerank/types.js';
export type { RunExperimentOptions, ExperimentReport, ExperimentRun } from './api/run.js';

export { scoreRun } from './api/score.js';
export type { ScoreRunOptions, ScoreResult } from './api/score.js';

export { compare } from './api/compare.js';
export { leaderboardOf, listHistory, rebuildHistory, recordRuns, removeHistory, type HistoryFilter, type Leaderboard, type LeaderboardOptions } from './api/history.js';
export type { HistoryEntry } from './history/store.js';
export type { CompareOptions, Comparison } from './api/compare.js';
export type { SystemRow, VersusBaseline, PairwiseMatrix, ComparisonSettings } from './significance/systems.js';
export type { QueryDelta } from './significance/attribution.js';

export { cacheInfo, pruneCacheEntries } from './api/cache.js';
export type { CacheUsage, KindUsage, PruneCacheOptions, PruneResult } from './api/cache.js';

export { explainMask, explainRun } from './api/explain.js';
export type { ExplainMaskOptions, ExplainRunOptions, ExplainResult, ExplainSelection, MaskPaper, MaskResult } from './api/explain.js';

export { mineNegatives } from './api/mine-negatives.js';
export type { MineNegativesOptions, MineNegativesResult } from './api/mine-negatives.js';
export { auditLeakage } from './api/audit-leakage.js';
export type { AuditLeakageOptions, AuditLeakageResult } from './api/audit-leakage.js';

export { initProject } from './api/init.js';
export type { InitOptions, InitResult } from './api/init.js';

export type { Evaluation, EvaluationCounts } from './metrics/evaluate.js';
export type { Measure, MeasureName } from './metrics/measures.js';
