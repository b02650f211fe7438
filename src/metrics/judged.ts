/**
 * Judged@k as ir_measures' `Judged@k` (providers/judged_provider.py): the fraction of the top
 * min(k, length) documents of the ranking that have a judgement for the query in the qrels, of any
 * grade (0 and negative grades count as judged; only documents absent from the qrels do not). When
 * fewer than k documents were returned the denominator is the ranking's length, as in ir_measures
 * (trec_eval's `unj@k` divides by k instead: 1 − unj@k = Judged@k only when the ranking has k or more
 * documents and no grade is negative). An empty ranking scores 0 (ir_measures would divide by zero).
 * A low value marks a run whose top k the judgements do not cover: possible false negatives.
 */
import type { RankedGrades } from './relevance.js';

export function judged(g: RankedGrades, k: number): number {
  const n = Math.min(k, g.length);
  if (n === 0) return 0;
  const marks = g.judged;
  let c = 0;
  for (let i = 0; i < n; i++) c += marks[i]!;
  return c / n;
}
