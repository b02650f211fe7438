/**
 * MAP@k (per query: AP@k) exactly as trec_eval's `map_cut` (m_map_cut.c): the sum, over relevant
 * documents at rank r <= k, of (relevant within the top r) / r, divided by ALL relevant documents of
 * the query (not min(k, R)). 0 when the query has no relevant document.
 */
import { type RankedGrades, RELEVANCE_LEVEL } from './relevance.js';

export function averagePrecision(g: RankedGrades, k: number): number {
  if (g.numRel === 0) return 0;
  const grades = g.grades;
  let relSoFar = 0;
  let sum = 0;
  const n = Math.min(k, g.length);
  for (let i = 0; i < n; i++) {
    if (grades[i]! >= RELEVANCE_LEVEL) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return sum / g.numRel;
}
