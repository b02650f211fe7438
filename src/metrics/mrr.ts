/**
 * MRR@k (per query: reciprocal rank cut at k): 1 / rank of the first relevant document when that
 * rank is <= k, else 0. trec_eval's `recip_rank` is the same without the cut.
 */
import type { ScoredDoc } from '../core/types.js';
import { isRelevant } from './relevance.js';

export function reciprocalRank(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  const n = Math.min(k, ranked.length);
  for (let i = 0; i < n; i++) {
    if (isRelevant(judged.get(ranked[i]!.docId))) return 1 / (i + 1);
  }
  return 0;
}
