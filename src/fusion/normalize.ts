/**
 * Per-query score normalisation of one input run before CombSUM/CombMNZ (ranx `norm`):
 * `min-max`, `z` (z-score, population standard deviation), `rank` or `none`. Only the documents an
 * input returned for a query take part (its top_k candidates), so the statistics are per query
 * and per input.
 *
 * Degenerate lists, defined here:
 * - min-max when every score is equal (this includes a single document): every document gets 1.
 *   Each is the best of its list, and presence in a list must count for something; ranx would
 *   give 0 and thereby silence the whole input for that query.
 * - z when every score is equal (standard deviation 0, this includes a single document): every
 *   document gets 0, i.e. the mean, which is also what a document absent from the input gets.
 * - An empty list stays empty.
 *
 * `rank` (defined here; not a ranx method): a list of n documents in trec order (score descending,
 * ties by doc id descending) gives the document at rank r (1-based) the score 1 − (r − 1)/n, so the
 * first gets 1 and the last 1/n; equal scores get distinct ranks by that tie rule, and a document
 * absent from the input gets 0 (below every ranked one).
 */
import type { ScoredDoc } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';

export const NORM_METHODS = ['min-max', 'z', 'rank', 'none'] as const;
export type NormMethod = (typeof NORM_METHODS)[number];

/** Returns the documents with normalised scores, in the input order. Pure; the input is not modified. */
export function normalizeScores(docs: readonly ScoredDoc[], method: NormMethod): ScoredDoc[] {
  if (method === 'none' || docs.length === 0) return docs.map((d) => ({ docId: d.docId, score: d.score }));
  if (method === 'rank') {
    const n = docs.length;
    const rankOf = new Map<ScoredDoc, number>();
    trecOrder(docs).forEach((d, i) => rankOf.set(d, i + 1));
    return docs.map((d) => ({ docId: d.docId, score: 1 - (rankOf.get(d)! - 1) / n }));
  }
  if (method === 'min-max') {
    let min = Infinity;
    let max = -Infinity;
    for (const d of docs) {
      if (d.score < min) min = d.score;
      if (d.score > max) max = d.score;
    }
    const span = max - min;
    return docs.map((d) => ({ docId: d.docId, score: span > 0 ? (d.score - min) / span : 1 }));
  }
  let sum = 0;
  for (const d of docs) sum += d.score;
  const mean = sum / docs.length;
  let sq = 0;
  for (const d of docs) sq += (d.score - mean) * (d.score - mean);
  const std = Math.sqrt(sq / docs.length);
  return docs.map((d) => ({ docId: d.docId, score: std > 0 ? (d.score - mean) / std : 0 }));
}
