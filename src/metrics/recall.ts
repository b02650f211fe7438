/**
 * Recall@k as trec_eval's `recall` (m_recall.c): relevant documents in the top k / all relevant
 * documents of the query (grade >= 1). 0 when the query has no relevant document.
 */
import type { ScoredDoc } from '../core/types.js';
import { countRelevant, relevantInTopK } from './relevance.js';

export function recall(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  const numRel = countRelevant(judged);
  if (numRel === 0) return 0;
  return relevantInTopK(ranked, judged, k) / numRel;
}
