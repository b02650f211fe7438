/**
 * The `query:` option of a retriever (bm25, dense) or reranker entry: the long-query strategy
 * (src/query/). Absent = `{strategy: whole}`, the SkillRet protocol.
 *
 *   query: { strategy: sentences, fuse: rrf, rrf_k: 60 }           # retriever: fuse rrf | max | mean (default rrf)
 *   query: { strategy: windows, size: 3, stride: 1, fuse: max }    # reranker: fuse max | mean (default max)
 */
import { z } from 'zod';

const posInt = z.number().int().min(1);

const whole = z.strictObject({ strategy: z.literal('whole') });
const size = posInt.default(3);
const stride = posInt.default(1);

/** A window's stride may not exceed its size; rrf_k only with fuse rrf. */
function checkStrategy(q: { strategy: string; fuse?: string; rrf_k?: number; size?: number; stride?: number }, ctx: z.core.$RefinementCtx<unknown>): void {
  if (q.strategy === 'windows' && q.stride! > q.size!)
    ctx.addIssue({ code: 'custom', path: ['stride'], message: `must be at most size (${q.size}), or sentences between windows would be skipped` });
  if (q.rrf_k !== undefined && q.fuse !== 'rrf') ctx.addIssue({ code: 'custom', path: ['rrf_k'], message: `applies to fuse rrf only (this strategy fuses by ${q.fuse})` });
}

const retrieverFuse = z.enum(['rrf', 'max', 'mean']).default('rrf');
const rrfK = z.number().min(0).optional();
/** For first stages: segment runs fused by rrf (default), max or mean. */
export const retrieverQuerySchema = z
  .discriminatedUnion('strategy', [
    whole,
    z.strictObject({ strategy: z.literal('sentences'), fuse: retrieverFuse, rrf_k: rrfK }),
    z.strictObject({ strategy: z.literal('windows'), size, stride, fuse: retrieverFuse, rrf_k: rrfK }),
  ])
  .superRefine(checkStrategy);

const rerankerFuse = z.enum(['max', 'mean']).default('max');
/** For rerankers: (segment, skill) scores aggregated by max (default) or mean. */
export const rerankerQuerySchema = z
  .discriminatedUnion('strategy', [
    whole,
    z.strictObject({ strategy: z.literal('sentences'), fuse: rerankerFuse }),
    z.strictObject({ strategy: z.literal('windows'), size, stride, fuse: rerankerFuse }),
  ])
  .superRefine(checkStrategy);

export const QUERY_KEYS = ['strategy', 'fuse', 'rrf_k', 'size', 'stride'];

export type RetrieverQueryConfig = z.output<typeof retrieverQuerySchema>;
export type RerankerQueryConfig = z.output<typeof rerankerQuerySchema>;
