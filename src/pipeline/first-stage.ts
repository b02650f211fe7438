/**
 * First-stage orchestration: runs one retriever entry through its kind (registry.ts) and makes
 * the run complete: every evaluated query present (a query with no hits has an empty list),
 * each list cut to the entry's top_k by score. Ties: in trec order (doc id descending), or, for a
 * kind whose lists have an order of their own (`ownOrder`: a saved run, its file's order), in that
 * order, as the official reranking keeps it when it cuts its pool (metrics/rank.ts `scoreOrder`).
 */
import type { StageContext } from '../core/context.js';
import type { FirstStageInput, FirstStageOutput } from '../core/stages.js';
import type { Query, Run } from '../core/types.js';
import { scoreOrder, trecOrder } from '../metrics/rank.js';
import { retrieverKind, type RetrieverConfig } from './registry.js';

/**
 * Keeps the top `k` of each query by score, ties in trec order or (`ownOrder`) in the list's own
 * order, and makes sure every query is present.
 */
export function completeRun(run: Run, queries: readonly Query[], k: number, ownOrder = false): Run {
  const out: Run = new Map();
  for (const q of queries) {
    const list = run.get(q.id) ?? [];
    out.set(q.id, (ownOrder ? scoreOrder(list) : trecOrder(list)).slice(0, k));
  }
  return out;
}

export async function runFirstStage(ctx: StageContext, r: RetrieverConfig, input: FirstStageInput): Promise<FirstStageOutput> {
  const kind = retrieverKind(r.type);
  const out = await kind.run(ctx, r, input);
  const own = kind.ownOrder === true;
  return {
    run: completeRun(out.run, input.queries, r.top_k, own),
    ...(out.exactRun ? { exactRun: completeRun(out.exactRun, input.queries, r.top_k, own) } : {}),
    info: out.info,
  };
}
