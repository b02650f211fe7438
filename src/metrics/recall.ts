/**
 * Recall@k as trec_eval's `recall` (m_recall.c): relevant documents in the top k / all relevant
 * documents of the query (grade >= 1). 0 when the query has no relevant document.
 */
import { type RankedGrades, relevantInTopK } from './relevance.js';

export function recall(g: RankedGrades, k: number): number {
  if (g.numRel === 0) return 0;
  return relevantInTopK(g, k) / g.numRel;
}
