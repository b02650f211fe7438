/**
 * MAP@k (per query: AP@k) exactly as trec_eval's `map_cut` (m_map_cut.c): the sum, over relevant
 * documents at rank r <= k, of (relevant within the top r) / r, divided by ALL relevant documents of
 * the query (not min(k, R)). 0 when the query has no relevant document.
 */
import type { ScoredDoc } from '../core/types.js';
import { countRelevant, isRelevant } from './relevance.js';

export function averagePrecision(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  const numRel = countRelevant(judged);
  if (numRel === 0) return 0;
  let relSoFar = 0;
  let sum = 0;
  const n = Math.min(k, ranked.length);
  for (let i = 0; i < n; i++) {
    if (isRelevant(judged.get(ranked[i]!.docId))) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return sum / numRel;
}
