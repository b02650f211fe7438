/**
 * Precision@k as trec_eval's `P` (m_P.c): relevant documents in the top k / k, also when fewer than
 * k documents were returned (missing ranks count as non-relevant).
 */
import { type RankedGrades, relevantInTopK } from './relevance.js';

export function precision(g: RankedGrades, k: number): number {
  return relevantInTopK(g, k) / k;
}
