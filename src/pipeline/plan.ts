/**
 * The run matrix of an experiment: every retriever × reranker pair, with the
 * folder each writes to. `--dry-run` prints `formatPlan`.
 */
import { join } from 'node:path';
import type { Config, RerankerConfig, RetrieverConfig } from './config.js';
import { isModelReranker } from './config.js';
import { rerankerKind, retrieverKind } from './registry.js';
import { experimentMeasures, measureKey } from '../metrics/measures.js';
import type { ExpectTargets } from './expect.js';

export interface PlannedRun {
  retriever: RetrieverConfig;
  reranker: RerankerConfig;
  /** `<output>/<retriever id>/<reranker id>` */
  dir: string;
}

export function planRuns(config: Config): PlannedRun[] {
  const runs: PlannedRun[] = [];
  for (const retriever of config.retrievers)
    for (const reranker of config.rerankers) runs.push({ retriever, reranker, dir: join(config.output, retriever.id, reranker.id) });
  return runs;
}

/** What an expectation of this experiment may name: its run ids (`<retriever>/<reranker>`, run order) and metric keys. */
export function experimentTargets(config: Config): ExpectTargets {
  return { runs: planRuns(config).map((p) => `${p.retriever.id}/${p.reranker.id}`), metrics: experimentMeasures(config.k, config.measures ?? []).map(measureKey) };
}

function describeReranker(r: RerankerConfig): string {
  return isModelReranker(r) ? rerankerKind(r.type).describe(r) : 'none (first-stage order)';
}

/** Human-readable expanded plan (for `run --dry-run`). */
export function formatPlan(config: Config, opts: { cacheDir: string; offline: boolean; useCache: boolean }): string {
  const runs = planRuns(config);
  const lines: string[] = [];
  lines.push(`experiment: ${config.name}`);
  lines.push(`config: ${config.file}`);
  const ds = config.dataset;
  lines.push(
    `dataset: ${ds.path ?? `hub ${ds.hub!.repo}@${ds.hub!.revision}`} split=${ds.split} skill_md_field=${ds.skill_md_field} unknown_gold=${ds.unknown_gold ?? 'policy default'}${ds.gold ? ` gold=${ds.gold}` : ''}${ds.skill_filter ? ` skill_filter=${JSON.stringify(ds.skill_filter)}` : ''}`,
    `evaluation: ${config.evaluation}`,
  );
  lines.push(`document text: ${ds.text.fields.join(` ${JSON.stringify(ds.text.separator)} `)}`);
  lines.push(`k: ${config.k.join(', ')}`);
  lines.push('retrievers:');
  for (const r of config.retrievers) lines.push(`  - ${r.id}: ${retrieverKind(r.type).describe(r)}`);
  lines.push('rerankers:');
  for (const r of config.rerankers) lines.push(`  - ${r.id}: ${describeReranker(r)}`);
  lines.push(`runs (${runs.length}):`);
  for (const p of runs) lines.push(`  - ${p.retriever.id} × ${p.reranker.id} → ${p.dir}`);
  lines.push(`stats: seed=${config.stats.seed} iterations=${config.stats.iterations}`);
  lines.push(`output: ${config.output}`);
  lines.push(`cache: ${opts.useCache ? opts.cacheDir : 'disabled (--no-cache)'}${opts.offline ? ', offline' : ''}`);
  return lines.join('\n') + '\n';
}
