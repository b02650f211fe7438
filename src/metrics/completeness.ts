/**
 * Completeness@k (SkillRet): 1 when every relevant document of the query is in the top k (Recall@k
 * is exactly 1), else 0. A query with more relevant documents than k can never score 1; a query with
 * no relevant document scores 0.
 */
import { type RankedGrades, relevantInTopK } from './relevance.js';

export function completeness(g: RankedGrades, k: number): number {
  if (g.numRel === 0) return 0;
  return relevantInTopK(g, k) === g.numRel ? 1 : 0;
}
