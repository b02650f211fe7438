/**
 * Runs one experiment end to end: dataset → first stages → rerankers →
 * evaluation → attribution. Pure orchestration: every algorithm lives in its
 * own module; writing files is `results.ts`, rendering is `report/`.
 */
import { dirname } from 'node:path';
import type { Query, Run } from '../core/types.js';
import type { Config } from './config.js';
import { isModelReranker } from './config.js';
import type { StageContext } from '../core/context.js';
import { binaryGold, loadDataset, type Dataset } from '../data/dataset.js';
import { readSkillIdsFile, type SkillFilter } from '../data/skill-filter.js';
import { ensureHubDataset, SKILLRET_RELEASES } from '../data/hub.js';
import { JsonlDocStore, StoreTextMap, fileDocSource } from '../data/doc-store.js';
import { evaluate, type Evaluation } from '../metrics/evaluate.js';
import { experimentMeasures, measureKey, type Measure } from '../metrics/measures.js';
import type { DocStore, FirstStageOutput, StageInfo } from '../core/stages.js';
import { runFirstStage } from './first-stage.js';
import { rerankerKind, retrieverKind } from './registry.js';
import { oracleFirstStage } from '../rerank/oracle.js';
import type { Reranker } from '../rerank/types.js';
import { attribution, type Attribution } from '../significance/attribution.js';
import { overlapAtK } from '../retrieval/dense/indexes/hnsw-audit.js';
import { stopwatch } from './manifest.js';
import { assertAllowedOffline } from '../remote/endpoint.js';
import { offlineFromEnv } from '../util/paths.js';
import { firstStageWithStrategy, rerankWithStrategy, strategyOf } from './query-strategy.js';
import { operatingPoints, type OperatingPoints } from '../operating-points/points.js';
import { CorpusTokenCounts, TokenCountCache } from '../operating-points/token-cache.js';
import { SkillTokenCounts } from '../operating-points/skill-tokens.js';
import { strategyBaseline, type StrategyBaseline } from './strategy-pairs.js';
import { faultPoint } from '../util/fault.js';
import { plural } from '../util/plural.js';
import { tuneFusion, type FusionTuning } from './fusion-tuning.js';
import type { RetrieverConfig } from './registry.js';

export interface StageRecord {
  kind: 'retrieval' | 'rerank';
  id: string;
  /** For rerank stages: which first stage it reranked. */
  over?: string;
  params: Record<string, unknown>;
  info: StageInfo;
  seconds: number;
}

/** HNSW vs exact top-k: how much the approximation changed. */
export interface ApproximationAudit {
  overlap: Record<string, number>;
  /** approximate − exact, per metric key. */
  delta: Record<string, number>;
  exact: Record<string, number>;
}

export interface RerankOnOff {
  depth: number;
  /** The pool was the official oracle pool (missing gold put in place of the lowest non-gold). */
  oracle: boolean;
  /** The first stage's evaluation (the "off" side), also when no `none` run is configured. */
  base: Evaluation;
  /** First-stage Recall@depth and Completeness@depth over the pool reranked: the ceiling any reranker over it can reach. */
  ceiling: Record<string, number>;
  attribution: Attribution;
}

export interface RunResult {
  retriever: string;
  reranker: string;
  run: Run;
  evaluation: Evaluation;
  approximation?: ApproximationAudit;
  onOff?: RerankOnOff;
  /** A query-strategy run against its `whole` twin (src/pipeline/strategy-pairs.ts), paired per query. */
  vsWhole?: { baseline: StrategyBaseline; attribution: Attribution };
  /** Injection operating points (top-K, threshold, token budget) from the run and the SKILL.md token counts. */
  operatingPoints: OperatingPoints;
  /**
   * With graded gold (a grade above 1): the run's means with every relevant judgement at 1, the
   * gold the official Hub path evaluates with (data/dataset.ts `binaryGold`). Absent otherwise.
   */
  binaryGold?: Record<string, number>;
}

export interface ExperimentResult {
  config: Config;
  dataset: Dataset;
  measures: Measure[];
  runs: RunResult[];
  stages: StageRecord[];
  timings: Record<string, number>;
  /** The process's peak resident memory (MiB) when each timed step ended, same keys as `timings`: where the peak was reached. */
  peakRssMib: Record<string, number>;
  /** Fusions tuned on another split (`tune:`), in config order; absent when none is. */
  tuning?: FusionTuning[];
}

/** The dataset folder of a config's split (default: the evaluated one): its path, or the hub split in the cache (downloaded when missing). */
export async function resolveDataset(ctx: StageContext, config: Config, split: string = config.dataset.split): Promise<string> {
  const ds = config.dataset;
  if (ds.path !== undefined) return ds.path;
  const hub = ds.hub!;
  const release = SKILLRET_RELEASES.find((r) => r.repo === hub.repo && r.revision === hub.revision);
  const expected = hub.verify && release ? release.files[split] : undefined;
  return ensureHubDataset({
    repo: hub.repo,
    revision: hub.revision,
    split,
    ...(hub.endpoint !== undefined ? { endpoint: hub.endpoint } : {}),
    cacheDir: ctx.cacheDir,
    offline: ctx.offline,
    ...(expected ? { expectedSha256: expected } : {}),
  });
}

/** The config's `dataset.skill_filter` as data/skill-filter.ts takes it (an ids file is read here). */
function skillFilterFromConfig(f: NonNullable<Config['dataset']['skill_filter']>): SkillFilter {
  if ('ids_file' in f) return readSkillIdsFile(f.ids_file);
  return { kind: 'field', field: f.field, values: 'equals' in f ? [f.equals] : f.in };
}

/**
 * The dataset a config asks for, from its (resolved) folder: gold source, filters, evaluation
 * policy; `indexCacheDir`: the cache root of the skills-file index (`log`: where a damaged one is reported).
 */
export function loadConfiguredDataset(config: Config, datasetDir: string, indexCacheDir?: string, log?: (line: string) => void): Promise<Dataset> {
  return loadDataset({
    path: datasetDir,
    ...(indexCacheDir !== undefined ? { indexCacheDir } : {}),
    ...(log !== undefined ? { cacheLog: log } : {}),
    split: config.dataset.split,
    skillMdField: config.dataset.skill_md_field,
    evaluation: config.evaluation,
    textOnDemand: true,
    ...(config.dataset.unknown_gold !== undefined ? { unknownGold: config.dataset.unknown_gold } : {}),
    ...(config.dataset.gold !== undefined ? { gold: config.dataset.gold } : {}),
    ...(config.dataset.skill_filter !== undefined ? { skillFilter: skillFilterFromConfig(config.dataset.skill_filter) } : {}),
  });
}

/**
 * Another split of the config's dataset (the same folder or hub pin, gold source and evaluation
 * policy; no `skill_filter`: that split has its own skills file): what a fusion's `tune:` reads.
 */
export async function loadSplitDataset(ctx: StageContext, config: Config, split: string): Promise<Dataset> {
  const { skill_filter: _filter, ...dataset } = config.dataset;
  const other: Config = { ...config, dataset: { ...dataset, split } };
  return loadConfiguredDataset(other, await resolveDataset(ctx, other, split), ctx.useCache ? ctx.cacheDir : undefined, ctx.log);
}

function aggregateOf(e: Evaluation): Record<string, number> {
  return e.aggregate;
}

/** Offline, a remote server that is not on this machine is refused before any work is done. */
export function checkRemoteOffline(ctx: StageContext, config: Config): void {
  const offline = ctx.offline || offlineFromEnv();
  const endpoints = [
    ...config.retrievers.flatMap((r) => retrieverKind(r.type).endpoints?.(r) ?? []),
    ...config.rerankers.filter(isModelReranker).flatMap((r) => rerankerKind(r.type).endpoints?.(r) ?? []),
  ];
  for (const e of endpoints) assertAllowedOffline(e.url, offline, e.key);
}

export async function runExperiment(ctx: StageContext, config: Config): Promise<ExperimentResult> {
  const timings: Record<string, number> = {};
  const peakRssMib: Record<string, number> = {};
  /** Records a timed step: its seconds, and the peak memory so far. */
  const mark = (step: string, seconds: number): void => {
    timings[step] = seconds;
    peakRssMib[step] = Math.round(process.resourceUsage().maxRSS / 1024);
  };
  const stages: StageRecord[] = [];
  const configDir = dirname(config.file);
  const measures = experimentMeasures(config.k, config.measures);
  const keys = measures.map(measureKey);
  checkRemoteOffline(ctx, config);

  let t = stopwatch();
  const datasetDir = await resolveDataset(ctx, config);
  const dataset = await loadConfiguredDataset(config, datasetDir, ctx.useCache ? ctx.cacheDir : undefined, ctx.log);
  mark('load_dataset', t());
  faultPoint('loading');
  ctx.log(
    `dataset: ${plural(dataset.skills.length, 'skill')}, ${plural(dataset.queries.length, 'query', 'queries')} with gold` +
      (dataset.stats.queriesWithoutGold.length ? `, ${dataset.stats.queriesWithoutGold.length} without gold skipped` : '') +
      (dataset.stats.droppedGoldPairs ? `, ${plural(dataset.stats.droppedGoldPairs, 'gold pair')} dropped (not in corpus)` : '') +
      (dataset.stats.skillsFilteredOut ? `, ${plural(dataset.stats.skillsFilteredOut, 'skill')} outside skill_filter` : '') +
      (dataset.stats.goldDisagreement?.length ? `; qrels and skill_ids disagree on ${plural(dataset.stats.goldDisagreement.length, 'query', 'queries')}` : ''),
  );

  t = stopwatch();
  // The corpus as ids and record offsets; texts are re-read from the skills file when a stage needs them.
  const docs: DocStore = new JsonlDocStore(fileDocSource(dataset.skillRecords, config.dataset.text.fields, config.dataset.text.separator));
  const docText = new StoreTextMap(docs);
  const queries: Query[] = dataset.queries;
  const queryText = new Map(queries.map((q) => [q.id, q.text]));
  mark('build_documents', t());

  // Injection operating points: cl100k_base tokens of each injected skill's SKILL.md text, each
  // skill read and counted once (on worker threads when a run brings many new ones).
  const tokenCounts = TokenCountCache.open(ctx.cacheDir, ctx.useCache, ctx.log);
  const skillIds = dataset.skills.map((s) => s.id);
  const skillsFile = dataset.files.find((f) => f.role === 'skills')!;
  const skillTokens = new SkillTokenCounts({
    ids: skillIds,
    skillMd: (i) => dataset.skills[i]!.skillMd,
    ...(docs.source ? { source: docs.source } : {}),
    cache: tokenCounts,
    corpus: CorpusTokenCounts.open(ctx.cacheDir, ctx.useCache, { skillsSha256: skillsFile.sha256, skillMdField: config.dataset.skill_md_field, ids: skillIds }, ctx.log),
  });
  const injection = async (run: Run) => {
    await skillTokens.prepare(run);
    const points = operatingPoints(run, dataset.qrels, (id) => skillTokens.get(id), config.operating_points.completeness);
    tokenCounts.save();
    skillTokens.save();
    return points;
  };

  // First stages.
  const firstStages = new Map<string, FirstStageOutput>();
  const ran: RetrieverConfig[] = [];
  const tuning: FusionTuning[] = [];
  for (const entry of config.retrievers) {
    let r = entry;
    if (r.type === 'fusion' && r.tune) {
      t = stopwatch();
      const tuned = await tuneFusion(ctx, config, r, ran, configDir, (split) => loadSplitDataset(ctx, config, split));
      r = tuned.entry;
      tuning.push(tuned.tuning);
      mark(`tuning:${r.id}`, t());
    }
    ran.push(r);
    ctx.log(`retrieval: ${r.id} (${r.type})`);
    t = stopwatch();
    const strategy = strategyOf('query' in r ? r.query : undefined);
    const out = await firstStageWithStrategy(strategy, queries, r.top_k, (qs) => runFirstStage(ctx, r, { docs, queries: qs, configDir, earlier: firstStages }));
    const seconds = t();
    firstStages.set(r.id, out);
    // Its skills' token counts start now, on worker threads, and are awaited by `injection`
    // (a failure there surfaces when it counts them again).
    skillTokens.prepare(out.run).catch(() => undefined);
    const { id: _id, ...params } = r;
    stages.push({ kind: 'retrieval', id: r.id, params, info: out.info, seconds });
    mark(`retrieval:${r.id}`, seconds);
  }

  // Evaluate first stages (also the base of every on/off comparison).
  const baseEval = new Map<string, Evaluation>();
  for (const r of config.retrievers) baseEval.set(r.id, evaluate(dataset.qrels, firstStages.get(r.id)!.run, measures));

  const runs: RunResult[] = [];
  const modelRerankers = config.rerankers.filter(isModelReranker);
  for (const r of config.retrievers) {
    const fs = firstStages.get(r.id)!;
    const ev = baseEval.get(r.id)!;
    let approximation: ApproximationAudit | undefined;
    if (fs.exactRun) {
      const exactEval = evaluate(dataset.qrels, fs.exactRun, measures);
      const ks = [...new Set([...config.k, r.top_k])].sort((a, b) => a - b);
      const delta: Record<string, number> = {};
      for (const k of keys) delta[k] = (ev.aggregate[k] ?? 0) - (exactEval.aggregate[k] ?? 0);
      approximation = { overlap: overlapAtK(fs.run, fs.exactRun, ks), delta, exact: aggregateOf(exactEval) };
    }
    if (config.rerankers.some((x) => x.id === 'none')) {
      runs.push({ retriever: r.id, reranker: 'none', run: fs.run, evaluation: ev, operatingPoints: await injection(fs.run), ...(approximation ? { approximation } : {}) });
    }
  }

  // Entries of one group (a depth list) share one loaded model.
  const loaded = new Map<string, Reranker>();
  for (const [ri, rr] of modelRerankers.entries()) {
    t = stopwatch();
    let reranker = loaded.get(rr.group);
    if (!reranker) {
      reranker = await rerankerKind(rr.type).load(ctx, rr, configDir);
      loaded.set(rr.group, reranker);
      mark(`load_reranker:${rr.group}`, t());
    }
    for (const r of config.retrievers) {
      ctx.log(`rerank: ${rr.id} over ${r.id} (top ${rr.depth}${rr.oracle ? ', oracle pool' : ''})`);
      t = stopwatch();
      const fs = firstStages.get(r.id)!;
      const oracle = rr.oracle ? oracleFirstStage(fs.run, dataset.qrels, docText, rr.depth) : undefined;
      const pooled = oracle?.run ?? fs.run;
      const out0 = await rerankWithStrategy(ctx, reranker, strategyOf(rr.query), pooled, queryText, docText, rr.depth);
      const out = oracle ? { ...out0, info: { ...out0.info, oracle: { goldInserted: oracle.inserted, queriesChanged: oracle.queriesChanged } } } : out0;
      const seconds = t();
      const run = new Map([...queries].map((q) => [q.id, out.run.get(q.id) ?? []]));
      const { id: _id, ...params } = rr;
      stages.push({ kind: 'rerank', id: rr.id, over: r.id, params: { ...params, resolved: reranker.describe() }, info: out.info, seconds });
      mark(`rerank:${rr.id}:${r.id}`, seconds);
      const evaluation = evaluate(dataset.qrels, run, measures);
      const ceilingMeasures: Measure[] = [
        { name: 'Recall', k: rr.depth },
        { name: 'Completeness', k: rr.depth },
      ];
      const ceiling = evaluate(dataset.qrels, pooled, ceilingMeasures).aggregate;
      ctx.log(`on/off significance: ${r.id}/${rr.id} vs ${r.id}/none (${plural(config.stats.iterations, 'iteration')} × ${plural(keys.length, 'metric')})`);
      t = stopwatch();
      const attr = attribution(baseEval.get(r.id)!.perQuery, evaluation.perQuery, keys, {
        seed: config.stats.seed,
        iterations: config.stats.iterations,
      });
      mark(`significance:${rr.id}:${r.id}`, t());
      runs.push({
        retriever: r.id,
        reranker: rr.id,
        run,
        evaluation,
        operatingPoints: await injection(run),
        onOff: { depth: rr.depth, oracle: rr.oracle, base: baseEval.get(r.id)!, ceiling, attribution: attr },
      });
    }
    if (!modelRerankers.slice(ri + 1).some((x) => x.group === rr.group)) {
      await reranker.dispose?.();
      loaded.delete(rr.group);
    }
  }

  // Order runs as the plan does: retriever-major, rerankers in config order.
  const order = (x: RunResult) =>
    config.retrievers.findIndex((r) => r.id === x.retriever) * 1000 + config.rerankers.findIndex((r) => r.id === x.reranker);
  runs.sort((a, b) => order(a) - order(b));

  // Graded gold: what the official Hub path (every gold skill at relevance 1) gives, beside the default.
  if (dataset.stats.grades.maxGrade > 1) {
    const binary = binaryGold(dataset.qrels);
    for (const run of runs) run.binaryGold = evaluate(binary, run.run, measures).aggregate;
  }

  // Query strategies against their whole twins.
  for (const run of runs) {
    const r = config.retrievers.find((x) => x.id === run.retriever)!;
    const rr = config.rerankers.find((x) => x.id === run.reranker)!;
    const baseline = strategyBaseline(r, rr, config.retrievers, config.rerankers);
    const base = baseline && runs.find((x) => x.retriever === baseline.retriever && x.reranker === baseline.reranker);
    if (!baseline || !base) continue;
    ctx.log(`strategy significance: ${run.retriever}/${run.reranker} vs ${baseline.retriever}/${baseline.reranker}`);
    t = stopwatch();
    run.vsWhole = {
      baseline,
      attribution: attribution(base.evaluation.perQuery, run.evaluation.perQuery, keys, { seed: config.stats.seed, iterations: config.stats.iterations }),
    };
    mark(`significance:strategy:${run.retriever}:${run.reranker}`, t());
  }
  return { config, dataset, measures, runs, stages, timings, peakRssMib, ...(tuning.length ? { tuning } : {}) };
}
