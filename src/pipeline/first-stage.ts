/**
 * First-stage orchestration: runs one retriever entry through its kind (registry.ts) and makes
 * the run complete: every evaluated query present (a query with no hits has an empty list),
 * each list cut to the entry's top_k in trec order.
 */
import type { StageContext } from '../core/context.js';
import type { FirstStageInput, FirstStageOutput } from '../core/stages.js';
import type { Query, Run } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';
import { retrieverKind, type RetrieverConfig } from './registry.js';

/** Keeps the top `k` of each query by trec order and makes sure every query is present. */
export function completeRun(run: Run, queries: readonly Query[], k: number): Run {
  const out: Run = new Map();
  for (const q of queries) out.set(q.id, trecOrder(run.get(q.id) ?? []).slice(0, k));
  return out;
}

export async function runFirstStage(ctx: StageContext, r: RetrieverConfig, input: FirstStageInput): Promise<FirstStageOutput> {
  const out = await retrieverKind(r.type).run(ctx, r, input);
  return {
    run: completeRun(out.run, input.queries, r.top_k),
    ...(out.exactRun ? { exactRun: completeRun(out.exactRun, input.queries, r.top_k) } : {}),
    info: out.info,
  };
}
