/**
 * Fusion tuning (a `type: fusion` retriever's `tune:` block): the fusion's parameters chosen on a
 * named tuning split, then applied unchanged to the evaluated split.
 *
 * On the tuning split (loaded through `load`, which the orchestrator points at the same dataset
 * folder or hub pin; its own skills file is the corpus, as SkillRet's train and test skill pools are
 * disjoint; `dataset.skill_filter` is not applied to it), every retriever the fusion reads,
 * directly or through another fusion, is run over the tuning queries exactly as in the run (same
 * entry, query strategy and top_k; a fusion among them with its own parameters, tuned already when
 * it has a `tune:` block). Each point of the grid (src/fusion/tune.ts, grid order and tie rule
 * there) fuses those runs, is cut to the fusion's top_k as the pipeline does, and is scored by the
 * mean of `tune.metric` over the tuning queries with that split's gold. Nothing of the evaluated
 * split is read here: no query, no gold, no skill.
 */
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import type { FirstStageOutput } from '../core/stages.js';
import type { Dataset, DatasetFileInfo } from '../data/dataset.js';
import { fileDocSource, JsonlDocStore } from '../data/doc-store.js';
import { fuse, type FusionSpec } from '../fusion/fuse.js';
import { fusionGridPoints, searchGrid } from '../fusion/tune.js';
import { evaluate } from '../metrics/evaluate.js';
import { measureKey, parseMeasure } from '../metrics/measures.js';
import { plural } from '../util/plural.js';
import type { Config } from './config.js';
import { completeRun, runFirstStage } from './first-stage.js';
import { firstStageWithStrategy, strategyOf } from './query-strategy.js';
import type { RetrieverConfig } from './registry.js';
import { fusionSpec, withFusionSpec } from './retrievers/fusion.js';

/** The stated tie rule (src/fusion/tune.ts). */
export const TUNING_TIE_RULE = 'highest mean; equal means (the same double): the earliest point in grid order (rrf_k or norm as listed, then weights as listed)';

/** One point of the grid with its score on the tuning split. */
export interface TuningPoint {
  rrf_k?: number;
  norm?: string;
  weights: number[];
  /** Mean of the metric over the tuning queries. */
  score: number;
}

/** What tuning one fusion chose and why: written to the manifest (`tuning`) and the summary. */
export interface FusionTuning {
  retriever: string;
  method: string;
  split: string;
  metric: string;
  /** Tuning queries scored (evaluated queries of the split, cut to max_queries). */
  queries: number;
  skills: number;
  /** The tuning split's files (as the dataset loader reports them). */
  files: DatasetFileInfo[];
  /** Retrievers run on the tuning split, in config order. */
  ran: string[];
  /** Every point in grid order. */
  grid: TuningPoint[];
  /** Index into `grid` of the chosen point. */
  chosen: number;
  tie_rule: string;
}

type FusionEntry = Extract<RetrieverConfig, { type: 'fusion' }>;

function pointOf(spec: FusionSpec, score: number): TuningPoint {
  return spec.method === 'rrf' ? { rrf_k: spec.rrfK, weights: [...spec.weights], score } : { norm: spec.norm, weights: [...spec.weights], score };
}

/** The retrievers a fusion reads, directly or through other fusions, in config order (`entries`: the effective entries so far). */
function needed(fusion: FusionEntry, entries: readonly RetrieverConfig[]): RetrieverConfig[] {
  const want = new Set<string>();
  const visit = (ids: readonly string[]) => {
    for (const id of ids) {
      if (want.has(id)) continue;
      want.add(id);
      const e = entries.find((x) => x.id === id);
      if (e?.type === 'fusion') visit(e.inputs);
    }
  };
  visit(fusion.inputs);
  return entries.filter((e) => want.has(e.id));
}

/**
 * Tunes the fusion `entry` (with a `tune:` block): returns the entry with the chosen parameters set
 * and the record of the search. `entries`: the retrievers before it as they run (tuned fusions with
 * their chosen parameters); `load(split)`: the dataset of a split.
 */
export async function tuneFusion(
  ctx: StageContext,
  config: Config,
  entry: FusionEntry,
  entries: readonly RetrieverConfig[],
  configDir: string,
  load: (split: string) => Promise<Dataset>,
): Promise<{ entry: FusionEntry; tuning: FusionTuning }> {
  const t = entry.tune!;
  const measure = parseMeasure(t.metric);
  const key = measureKey(measure);
  const ds = await load(t.split);
  const queries = t.max_queries !== undefined ? ds.queries.slice(0, t.max_queries) : ds.queries;
  const qids = new Set(queries.map((q) => q.id));
  const qrels = new Map([...ds.qrels].filter(([q]) => qids.has(q)));
  const docs = new JsonlDocStore(fileDocSource(ds.skillRecords, config.dataset.text.fields, config.dataset.text.separator));
  ctx.log(`tuning: ${entry.id} on split ${t.split} (${plural(queries.length, 'query', 'queries')}, ${plural(docs.size, 'skill')}) by ${key}`);

  const runs = new Map<string, FirstStageOutput>();
  const order = needed(entry, entries);
  for (const r of order) {
    if (r.type === 'run' || r.type === 'embeddings')
      throw new UserError(`retrievers.${entry.id}.tune: "${r.id}" (type ${r.type}) reads files of one split only and cannot be run on the tuning split ${JSON.stringify(t.split)}`);
    ctx.log(`tuning: ${r.id} (${r.type}) on split ${t.split}`);
    const strategy = strategyOf('query' in r ? r.query : undefined);
    runs.set(r.id, await firstStageWithStrategy(strategy, queries, r.top_k, (qs) => runFirstStage(ctx, r, { docs, queries: qs, configDir, earlier: runs })));
  }

  const base = fusionSpec(entry);
  const grid = {
    rrfK: t.grid.rrf_k ?? [base.method === 'rrf' ? base.rrfK : 0],
    norm: t.grid.norm ?? [base.method === 'rrf' ? 'min-max' : base.norm],
    weights: t.grid.weights ?? [base.weights],
  };
  const points = fusionGridPoints(entry.method, entry.top_k, grid);
  const inputs = entry.inputs.map((id) => runs.get(id)!.run);
  const measures = [measure];
  const { scores, best } = searchGrid(points, (spec) => evaluate(qrels, completeRun(fuse(inputs, spec), queries, entry.top_k), measures).aggregate[key]!);
  if (best < 0) throw new UserError(`retrievers.${entry.id}.tune: no grid point could be scored on split ${JSON.stringify(t.split)} (${key} is not a number for any)`);
  const chosen = points[best]!;
  const tuning: FusionTuning = {
    retriever: entry.id,
    method: entry.method,
    split: t.split,
    metric: key,
    queries: queries.length,
    skills: docs.size,
    files: ds.files,
    ran: order.map((r) => r.id),
    grid: points.map((p, i) => pointOf(p, scores[i]!)),
    chosen: best,
    tie_rule: TUNING_TIE_RULE,
  };
  const p = tuning.grid[best]!;
  ctx.log(`tuning: ${entry.id} chose ${p.rrf_k !== undefined ? `rrf_k=${p.rrf_k}` : `norm=${p.norm}`}, weights=[${p.weights.join(', ')}] (${key} ${p.score.toFixed(4)} on ${t.split}, best of ${plural(points.length, 'point')})`);
  return { entry: withFusionSpec(entry, chosen), tuning };
}
