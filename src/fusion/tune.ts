/**
 * Grid search of a fusion's parameters (a `type: fusion` retriever's `tune:` block): the grid's
 * points in a fixed order, and the choice of the best point by a score each point is given.
 *
 * Grid order: the method's own parameter outermost (RRF: `rrf_k`; CombSUM/CombMNZ: `norm`), in the
 * order listed, then `weights` in the order listed. A parameter the grid does not list keeps the
 * entry's value (one value).
 *
 * Choice: the highest score; among points with exactly the same score (a double compared with ===,
 * as two points that rank every query alike give), the earliest in grid order. A NaN score never
 * wins over a number.
 */
import type { FusionMethod, FusionSpec } from './fuse.js';
import type { NormMethod } from './normalize.js';

/** The values to try, per parameter (each list non-empty). */
export interface FusionGrid {
  rrfK: readonly number[];
  norm: readonly NormMethod[];
  weights: readonly (readonly number[])[];
}

/** Every point of the grid as a fusion spec, in grid order (see the module comment). */
export function fusionGridPoints(method: FusionMethod, topK: number, grid: FusionGrid): FusionSpec[] {
  const out: FusionSpec[] = [];
  if (method === 'rrf') {
    for (const rrfK of grid.rrfK) for (const weights of grid.weights) out.push({ method, rrfK, weights: [...weights], topK });
  } else {
    for (const norm of grid.norm) for (const weights of grid.weights) out.push({ method, norm, weights: [...weights], topK });
  }
  return out;
}

/** The index of the best of `scores` by the module's rule (highest; ties: the earliest), or -1 for none. */
export function bestPoint(scores: readonly number[]): number {
  let best = -1;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (Number.isNaN(s)) continue;
    if (best < 0 || s > scores[best]!) best = i;
  }
  return best;
}

/** Scores every point with `score` (in grid order) and picks the best. */
export function searchGrid<P>(points: readonly P[], score: (p: P) => number): { scores: number[]; best: number } {
  const scores = points.map(score);
  return { scores, best: bestPoint(scores) };
}
