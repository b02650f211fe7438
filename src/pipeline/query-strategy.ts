/**
 * A query strategy around any first stage or reranker (src/query/): the stage runs on segment
 * queries exactly as on whole queries (same caches: embeddings and reranker scores are keyed by
 * text), then the segment results are fused back into one ranking per query.
 *
 * First stage: each segment retrieves its top_k; the segment lists are fused (rrf | max | mean,
 * src/query/fuse-segments.ts) and cut to top_k. Reranker: the pool is the query's (the first
 * `depth` first-stage candidates); every (segment, candidate) pair is scored and a candidate's
 * score is the max or mean over the query's segments.
 */
import type { Query, Run } from '../core/types.js';
import type { StageContext } from '../core/context.js';
import type { FirstStageOutput } from '../core/stages.js';
import { aggregateScores, fuseSegmentRun } from '../query/fuse-segments.js';
import { segmentCounts, segmentQueries, strategyLabel, type QueryStrategy } from '../query/strategy.js';
import { rerankRun, type RerankInfo } from '../rerank/rerank.js';
import type { Reranker } from '../rerank/types.js';
import { DEFAULT_RRF_K } from '../fusion/fuse.js';
import type { RerankerQueryConfig, RetrieverQueryConfig } from './kind-config/query-config.js';

/** The strategy a `query:` mapping asks for (absent: whole). */
export function strategyOf(q: RetrieverQueryConfig | RerankerQueryConfig | undefined): QueryStrategy {
  if (!q || q.strategy === 'whole') return { strategy: 'whole' };
  const rrfK = ('rrf_k' in q ? q.rrf_k : undefined) ?? DEFAULT_RRF_K;
  return q.strategy === 'sentences' ? { strategy: 'sentences', fuse: q.fuse, rrfK } : { strategy: 'windows', size: q.size, stride: q.stride, fuse: q.fuse, rrfK };
}

/** The manifest record of a strategy: its parameters and the segment counts. */
function strategyInfo(s: QueryStrategy, counts: ReturnType<typeof segmentCounts>): Record<string, unknown> {
  return { ...s, label: strategyLabel(s), ...counts };
}

/** Runs `stage` on the segments of `queries` and fuses per query. `whole`: `stage(queries)` untouched. */
export async function firstStageWithStrategy(
  s: QueryStrategy,
  queries: readonly Query[],
  topK: number,
  stage: (queries: readonly Query[]) => Promise<FirstStageOutput>,
): Promise<FirstStageOutput> {
  if (s.strategy === 'whole') return stage(queries);
  const seg = segmentQueries(queries, s);
  const out = await stage(seg.segments);
  const spec = { fuse: s.fuse, rrfK: s.rrfK, topK };
  return {
    run: fuseSegmentRun(out.run, seg.byQuery, spec),
    ...(out.exactRun ? { exactRun: fuseSegmentRun(out.exactRun, seg.byQuery, spec) } : {}),
    info: { ...out.info, query_strategy: strategyInfo(s, segmentCounts(seg)) },
  };
}

/** Reranks with a strategy (`fuse` must be max or mean for a reranker). */
export async function rerankWithStrategy(
  ctx: StageContext,
  reranker: Reranker,
  s: QueryStrategy,
  firstStage: Run,
  queryText: Map<string, string>,
  docText: ReadonlyMap<string, string>,
  depth: number,
): Promise<{ run: Run; info: RerankInfo & { query_strategy?: Record<string, unknown> } }> {
  if (s.strategy === 'whole') return rerankRun(ctx, reranker, firstStage, queryText, docText, depth);
  if (s.fuse === 'rrf') throw new Error('a reranker aggregates segment scores by max or mean');
  const how = s.fuse;
  const queries = [...firstStage.keys()].map((id) => ({ id, text: queryText.get(id) ?? '' }));
  const seg = segmentQueries(queries, s);
  const segRun: Run = new Map();
  const segText = new Map<string, string>();
  for (const q of seg.segments) {
    segRun.set(q.id, firstStage.get(seg.owner.get(q.id)!) ?? []);
    segText.set(q.id, q.text);
  }
  const out = await rerankRun(ctx, reranker, segRun, segText, docText, depth);
  const run: Run = new Map();
  for (const [qid, segIds] of seg.byQuery) {
    const perDoc = new Map<string, number[]>();
    for (const sid of segIds) for (const d of out.run.get(sid) ?? []) perDoc.set(d.docId, [...(perDoc.get(d.docId) ?? []), d.score]);
    run.set(qid, [...perDoc].map(([docId, scores]) => ({ docId, score: aggregateScores(scores, how) })));
  }
  return { run, info: { ...out.info, query_strategy: strategyInfo(s, segmentCounts(seg)) } };
}
