/**
 * What every fusion method shares: the query ids of a set of runs and the cut of a fused score
 * map to the top k by trec_eval order (score descending, ties by doc id descending).
 */
import type { Run, ScoredDoc } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';

/** Query ids of all runs: the first run's order, then ids first seen in later runs. */
export function queryIds(runs: readonly Run[]): string[] {
  const ids = new Set<string>();
  for (const run of runs) for (const qid of run.keys()) ids.add(qid);
  return [...ids];
}

/** The top `k` of fused scores by trec order. */
export function fusedTopK(scores: ReadonlyMap<string, number>, k: number): ScoredDoc[] {
  return trecOrder([...scores].map(([docId, score]) => ({ docId, score }))).slice(0, k);
}
