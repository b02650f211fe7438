/**
 * NDCG@k exactly as trec_eval's `ndcg_cut` (m_ndcg_cut.c): linear gain = grade, discount
 * log2(rank + 1), only grades > 0 add gain (0, negative and unjudged add nothing); the ideal DCG
 * uses all judged grades > 0 of the query sorted descending, cut at k. When the ideal DCG is 0 the
 * value is the (then 0) DCG. Sums run in the same order as trec_eval's, so results match bit for bit.
 */
import type { RankedGrades } from './relevance.js';

export function ndcg(g: RankedGrades, k: number): number {
  const grades = g.grades;
  let dcg = 0;
  const n = Math.min(k, g.length);
  for (let i = 0; i < n; i++) {
    const gain = grades[i]!;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  }
  const ideal = g.ideal;
  let idcg = 0;
  const m = Math.min(k, g.idealLength);
  for (let i = 0; i < m; i++) idcg += ideal[i]! / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : dcg;
}
