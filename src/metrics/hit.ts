/**
 * Hit@k (ir_measures `Success@k`, trec_eval `success` in m_success.c, SkillRouter's and R3-Skill's
 * Hit@1): 1 when at least one relevant document (grade >= 1) is in the top k, else 0. When fewer than
 * k documents were returned the missing ranks count as non-relevant; a query with no relevant
 * document scores 0.
 */
import { type RankedGrades, RELEVANCE_LEVEL } from './relevance.js';

export function hit(g: RankedGrades, k: number): number {
  const n = Math.min(k, g.length);
  const grades = g.grades;
  for (let i = 0; i < n; i++) if (grades[i]! >= RELEVANCE_LEVEL) return 1;
  return 0;
}
