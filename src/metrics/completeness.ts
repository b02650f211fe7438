/**
 * Completeness@k (SkillRet): 1 when every relevant document of the query is in the top k (Recall@k
 * is exactly 1), else 0. A query with more relevant documents than k can never score 1; a query with
 * no relevant document scores 0.
 */
import type { ScoredDoc } from '../core/types.js';
import { countRelevant, relevantInTopK } from './relevance.js';

export function completeness(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  const numRel = countRelevant(judged);
  if (numRel === 0) return 0;
  return relevantInTopK(ranked, judged, k) === numRel ? 1 : 0;
}
