/**
 * One first stage of a config, run over a split the config may not evaluate (`mine-negatives`): the
 * config with its dataset's split replaced, only the chosen retriever and the retrievers it reads
 * (a fusion's `inputs`, transitively) kept, in config order, and no reranker; each run as `run` runs
 * it (its kind, its query strategy, its caches). `depth` raises the `top_k` of every kept retriever
 * to at least that depth (a fusion only ranks what its inputs retrieved).
 */
import { dirname } from 'node:path';
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import type { DocStore, FirstStageOutput } from '../core/stages.js';
import type { Run } from '../core/types.js';
import type { Dataset } from '../data/dataset.js';
import { JsonlDocStore, fileDocSource } from '../data/doc-store.js';
import type { Config, RetrieverConfig } from './config.js';
import { checkRemoteOffline, loadConfiguredDataset, resolveDataset } from './experiment.js';
import { runFirstStage } from './first-stage.js';
import { firstStageWithStrategy, strategyOf } from './query-strategy.js';

/** The ids a retriever entry reads (a fusion's `inputs`). */
function inputsOf(r: RetrieverConfig): string[] {
  const inputs = (r as { inputs?: unknown }).inputs;
  return Array.isArray(inputs) ? inputs.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * The config reduced to what one first stage needs, over `split`: the retriever `id` and those it
 * reads (config order), `top_k` raised to `depth`, no reranker. A UserError names an unknown id and the ids there are.
 */
export function firstStageConfig(config: Config, id: string, split: string, depth?: number): Config {
  const byId = new Map(config.retrievers.map((r) => [r.id, r]));
  if (!byId.has(id)) throw new UserError(`--retriever: ${JSON.stringify(id)} is not a retriever of ${config.file} (its retrievers: ${config.retrievers.map((r) => r.id).join(', ')})`);
  const needed = new Set<string>();
  const visit = (x: string) => {
    if (needed.has(x) || !byId.has(x)) return;
    needed.add(x);
    for (const i of inputsOf(byId.get(x)!)) visit(i);
  };
  visit(id);
  const retrievers = config.retrievers.filter((r) => needed.has(r.id)).map((r) => (depth !== undefined && r.top_k < depth ? { ...r, top_k: depth } : r));
  return { ...config, dataset: { ...config.dataset, split }, retrievers, rerankers: [] };
}

export interface SplitFirstStage {
  dataset: Dataset;
  /** The corpus with the config's document text (fields and separator). */
  docs: DocStore;
  retriever: RetrieverConfig;
  /** Its run: every query of the split, each list in rank order, cut to top_k. */
  run: Run;
  info: FirstStageOutput['info'];
}

/** Runs the last retriever of a `firstStageConfig` (and, first, those it reads) over its split. */
export async function runSplitFirstStage(ctx: StageContext, config: Config): Promise<SplitFirstStage> {
  checkRemoteOffline(ctx, config);
  const dir = await resolveDataset(ctx, config);
  const dataset = await loadConfiguredDataset(config, dir, ctx.useCache ? ctx.cacheDir : undefined, ctx.log);
  const docs: DocStore = new JsonlDocStore(fileDocSource(dataset.skillRecords, config.dataset.text.fields, config.dataset.text.separator));
  const done = new Map<string, FirstStageOutput>();
  const configDir = dirname(config.file);
  for (const r of config.retrievers) {
    ctx.log(`retrieval: ${r.id} (${r.type}) over ${dataset.split}`);
    const strategy = strategyOf('query' in r ? r.query : undefined);
    done.set(r.id, await firstStageWithStrategy(strategy, dataset.queries, r.top_k, (qs) => runFirstStage(ctx, r, { docs, queries: qs, configDir, earlier: done })));
  }
  const retriever = config.retrievers[config.retrievers.length - 1]!;
  const out = done.get(retriever.id)!;
  return { dataset, docs, retriever, run: out.run, info: out.info };
}
