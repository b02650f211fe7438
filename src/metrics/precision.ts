/**
 * Precision@k as trec_eval's `P` (m_P.c): relevant documents in the top k / k, also when fewer than
 * k documents were returned (missing ranks count as non-relevant).
 */
import type { ScoredDoc } from '../core/types.js';
import { relevantInTopK } from './relevance.js';

export function precision(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  return relevantInTopK(ranked, judged, k) / k;
}
