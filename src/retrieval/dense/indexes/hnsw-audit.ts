/**
 * Approximation audit: how much of the exact top-k an approximate (HNSW) run recovers.
 * overlap@k = mean over the exact run's queries of |approx top-k ∩ exact top-k| / k,
 * where both top-k lists are taken in trec order (score desc, doc id desc by bytes).
 * A query missing from the approximate run counts as 0. The denominator is k, or the length of
 * the exact list when the corpus holds fewer than k documents (identical runs always give 1).
 */
import type { Run, ScoredDoc } from '../../../core/types.js';
import { trecOrder } from '../../../metrics/rank.js';

function topIds(docs: readonly ScoredDoc[], k: number): string[] {
  return trecOrder(docs)
    .slice(0, k)
    .map((d) => d.docId);
}

export function overlapAtK(approx: Run, exact: Run, ks: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ks) {
    if (!Number.isInteger(k) || k <= 0) throw new Error(`overlapAtK: k must be a positive integer, got ${k}`);
    let sum = 0;
    let n = 0;
    for (const [qid, exactDocs] of exact) {
      const wantList = topIds(exactDocs, k);
      const want = new Set(wantList);
      const got = topIds(approx.get(qid) ?? [], k);
      let hit = 0;
      for (const id of got) if (want.has(id)) hit++;
      const denom = Math.min(k, wantList.length);
      sum += denom === 0 ? 1 : hit / denom;
      n++;
    }
    out[String(k)] = n === 0 ? 1 : sum / n;
  }
  return out;
}
