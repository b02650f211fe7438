/**
 * MRR@k (per query: reciprocal rank cut at k): 1 / rank of the first relevant document when that
 * rank is <= k, else 0. trec_eval's `recip_rank` is the same without the cut.
 */
import { type RankedGrades, RELEVANCE_LEVEL } from './relevance.js';

export function reciprocalRank(g: RankedGrades, k: number): number {
  const n = Math.min(k, g.length);
  const grades = g.grades;
  for (let i = 0; i < n; i++) if (grades[i]! >= RELEVANCE_LEVEL) return 1 / (i + 1);
  return 0;
}
