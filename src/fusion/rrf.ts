/**
 * Reciprocal Rank Fusion (Cormack, Clarke & Büttcher 2009; ranx `rrf`):
 *   score(d) = Σ_i w_i / (k + rank_i(d))
 * over the inputs i that returned d for the query, rank_i from trec_eval order (score
 * descending, ties by doc id descending), 1-based. An input that did not return d contributes
 * nothing. Sums are taken in input order, so the result is deterministic.
 */
import type { Run } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';
import { fusedTopK, queryIds } from './candidates.js';

export interface RrfOptions {
  /** The RRF constant (60 in the paper and in ranx). */
  k: number;
  /** One weight per input (default: all 1). */
  weights?: readonly number[];
  /** Documents kept per query, by trec order of the fused score. */
  topK: number;
}

export function rrf(runs: readonly Run[], o: RrfOptions): Run {
  const out: Run = new Map();
  for (const qid of queryIds(runs)) {
    const acc = new Map<string, number>();
    runs.forEach((run, i) => {
      const w = o.weights?.[i] ?? 1;
      const seen = new Set<string>();
      let rank = 0;
      for (const d of trecOrder(run.get(qid) ?? [])) {
        if (seen.has(d.docId)) continue; // a duplicate keeps its best rank only
        seen.add(d.docId);
        rank++;
        acc.set(d.docId, (acc.get(d.docId) ?? 0) + w / (o.k + rank));
      }
    });
    out.set(qid, fusedTopK(acc, o.topK));
  }
  return out;
}
