/**
 * What counts as relevant (trec_eval's default `-l 1`: grade >= 1), and what a per-query measure
 * sees: the grades of a ranking in trec_eval order plus the query's relevant count and ideal gains.
 * Grades <= 0 (including negative "judged but unusable" grades) are non-relevant and carry no gain;
 * documents absent from the judgements are non-relevant too (grade 0 here).
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

/**
 * One query as the measures see it: `grades[i]` is the grade of the document at rank i + 1 of the
 * ranking in trec_eval order (0 when unjudged), for i < `length`; `judged[i]` is 1 when that
 * document has a judgement of any grade for the query (0, negative included), else 0; `numRel` the
 * query's relevant documents; `ideal[0 .. idealLength)` the query's grades > 0 sorted descending (the
 * ideal ranking's gains). The arrays may be longer than the lengths (scratch space reused from query
 * to query).
 */
export interface RankedGrades {
  grades: Float64Array;
  judged: Uint8Array;
  length: number;
  numRel: number;
  ideal: Float64Array;
  idealLength: number;
}

/** The `RankedGrades` of a ranking already in trec_eval order and the query's judgements. */
export function rankedGrades(ranked: readonly ScoredDoc[], judged: ReadonlyMap<string, number>): RankedGrades {
  const grades = Float64Array.from(ranked, (d) => judged.get(d.docId) ?? 0);
  const marks = Uint8Array.from(ranked, (d) => (judged.has(d.docId) ? 1 : 0));
  const ideal = Float64Array.from([...judged.values()].filter((g) => g > 0)).sort().reverse();
  return { grades, judged: marks, length: grades.length, numRel: countRelevant(judged), ideal, idealLength: ideal.length };
}

/** Number of relevant documents among the first min(k, length) ranks. */
export function relevantInTopK(g: RankedGrades, k: number): number {
  const n = Math.min(k, g.length);
  const grades = g.grades;
  let hits = 0;
  for (let i = 0; i < n; i++) if (grades[i]! >= RELEVANCE_LEVEL) hits++;
  return hits;
}

/** A per-query measure at cutoff `k` (see `RankedGrades`). Returns a value in [0, 1]. */
export type MeasureFn = (g: RankedGrades, k: number) => number;
