/**
 * NDCG@k exactly as trec_eval's `ndcg_cut` (m_ndcg_cut.c): linear gain = grade, discount
 * log2(rank + 1), only grades > 0 add gain (0, negative and unjudged add nothing); the ideal DCG
 * uses all judged grades > 0 of the query sorted descending, cut at k. When the ideal DCG is 0 the
 * value is the (then 0) DCG. Sums run in the same order as trec_eval's, so results match bit for bit.
 */
import type { ScoredDoc } from '../core/types.js';

export function ndcg(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  const n = Math.min(k, ranked.length);
  for (let i = 0; i < n; i++) {
    const gain = judged.get(ranked[i]!.docId) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  }
  const gains: number[] = [];
  for (const g of judged.values()) if (g > 0) gains.push(g);
  gains.sort((a, b) => b - a);
  let idcg = 0;
  const m = Math.min(k, gains.length);
  for (let i = 0; i < m; i++) idcg += gains[i]! / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : dcg;
}
