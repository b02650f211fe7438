/**
 * What counts as relevant (trec_eval's default `-l 1`: grade >= 1) and the per-measure function
 * type. Grades <= 0 (including negative "judged but unusable" grades) are non-relevant and carry no
 * gain; documents absent from the judgements are non-relevant too.
 */
import type { ScoredDoc } from '../core/types.js';

/** trec_eval's default relevance level: a document is relevant when its grade is >= 1. */
export const RELEVANCE_LEVEL = 1;

/** Whether a grade (undefined = unjudged) counts as relevant. */
export function isRelevant(grade: number | undefined): boolean {
  return grade !== undefined && grade >= RELEVANCE_LEVEL;
}

/** Number of relevant documents (grade >= 1) in a query's judgements: trec_eval's `num_rel`. */
export function countRelevant(judged: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const g of judged.values()) if (g >= RELEVANCE_LEVEL) n++;
  return n;
}

/** Number of relevant documents among the first min(k, ranked.length) of `ranked`. */
export function relevantInTopK(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number): number {
  const n = Math.min(k, ranked.length);
  let hits = 0;
  for (let i = 0; i < n; i++) if (isRelevant(judged.get(ranked[i]!.docId))) hits++;
  return hits;
}

/**
 * A per-query measure: `ranked` must already be in trec_eval order (see rank.ts), `judged` maps doc
 * id to grade for this query, `k` is the cutoff. Returns a value in [0, 1].
 */
export type MeasureFn = (ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>, k: number) => number;
