/**
 * The rank a document would take among scored candidates, by trec_eval's rule (score desc, ties
 * by doc id descending in UTF-8 byte order), 1-based.
 */
import { compareUtf8 } from '../metrics/rank.js';

/**
 * Rank of `docId` scored `score` among `scores` (the other entries keep their scores; an entry
 * for `docId` itself in `scores` is ignored).
 */
export function rankAmong(scores: ReadonlyMap<string, number>, docId: string, score: number): number {
  let better = 0;
  for (const [id, s] of scores) {
    if (id === docId) continue;
    if (s > score || (s === score && compareUtf8(id, docId) > 0)) better++;
  }
  return better + 1;
}

/** Rank of `docId` with its own score in `scores`; null when it is not among them. */
export function rankOf(scores: ReadonlyMap<string, number>, docId: string): number | null {
  const s = scores.get(docId);
  return s === undefined ? null : rankAmong(scores, docId, s);
}
