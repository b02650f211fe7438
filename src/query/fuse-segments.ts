/**
 * Fuses the runs of a query's segments into one ranking of the query.
 *
 * - `rrf`: Reciprocal Rank Fusion over the segments (src/fusion/rrf.ts: Σ 1 / (k + rank), rank in
 *   trec order within the segment's list; a segment that did not return the document adds nothing).
 * - `max`: the best score any segment gave the document.
 * - `mean`: the mean over the query's segments that returned anything; a segment whose list lacks
 *   the document contributes its lowest returned score (the document scored at most that there).
 *   With a segment list that is complete (every candidate scored, as for a reranker pool) this is
 *   the plain mean.
 *
 * Scores of the fused list are cut to `topK` by trec order (score desc, doc id desc).
 */
import type { Run, ScoredDoc } from '../core/types.js';
import { fusedTopK } from '../fusion/candidates.js';
import { rrf } from '../fusion/rrf.js';
import type { SegmentFuse } from './strategy.js';

export interface SegmentFuseSpec {
  fuse: SegmentFuse;
  rrfK: number;
  topK: number;
}

/** Fuses the segment lists of one query. */
export function fuseSegmentLists(lists: readonly (readonly ScoredDoc[])[], spec: SegmentFuseSpec): ScoredDoc[] {
  if (spec.fuse === 'rrf') {
    const runs: Run[] = lists.map((l) => new Map([['q', [...l]]]));
    return rrf(runs, { k: spec.rrfK, topK: spec.topK }).get('q') ?? [];
  }
  const scores = new Map<string, number>();
  if (spec.fuse === 'max') {
    for (const l of lists) for (const d of l) scores.set(d.docId, Math.max(scores.get(d.docId) ?? -Infinity, d.score));
    return fusedTopK(scores, spec.topK);
  }
  const nonEmpty = lists.filter((l) => l.length > 0);
  const ids = new Set<string>();
  for (const l of nonEmpty) for (const d of l) ids.add(d.docId);
  const maps = nonEmpty.map((l) => {
    const m = new Map<string, number>();
    for (const d of l) m.set(d.docId, Math.max(m.get(d.docId) ?? -Infinity, d.score));
    let floor = Infinity;
    for (const v of m.values()) floor = Math.min(floor, v);
    return { m, floor };
  });
  for (const id of ids) {
    let sum = 0;
    for (const { m, floor } of maps) sum += m.get(id) ?? floor;
    scores.set(id, sum / maps.length);
  }
  return fusedTopK(scores, spec.topK);
}

/** Fuses a run over segment queries into a run over the queries (`byQuery`: query id → segment ids). */
export function fuseSegmentRun(segmentRun: Run, byQuery: ReadonlyMap<string, readonly string[]>, spec: SegmentFuseSpec): Run {
  const out: Run = new Map();
  for (const [qid, segIds] of byQuery) out.set(qid, fuseSegmentLists(segIds.map((s) => segmentRun.get(s) ?? []), spec));
  return out;
}

/** Aggregates one (query, document)'s segment scores for a reranker: max or mean. */
export function aggregateScores(scores: readonly number[], how: 'max' | 'mean'): number {
  if (scores.length === 0) throw new RangeError('no segment scores to aggregate');
  if (how === 'max') return Math.max(...scores);
  let s = 0;
  for (const x of scores) s += x;
  return s / scores.length;
}
