/** `type: remote`: a reranker served by TEI /rerank or a Cohere-style /rerank (src/rerank/remote.ts). */
import { z } from 'zod';
import { createRemoteReranker } from '../../rerank/remote.js';
import { defineReranker } from '../../rerank/types.js';
import { rerankerCounterpart } from '../kind-config/reranker-counterpart.js';
import { depthSchema, describeReranker, endpointFromConfig, endpointSchema, idSchema, scorePrecisionSchema } from '../kind-config/config-parts.js';
import { rerankerQuerySchema } from '../kind-config/query-config.js';

export const remoteReranker = defineReranker({
  type: 'remote',
  schema: z.strictObject({
    id: idSchema,
    type: z.literal('remote'),
    model: z.string().min(1),
    depth: depthSchema,
    oracle: z.boolean().default(false),
    score_precision: scorePrecisionSchema.optional(),
    endpoint: endpointSchema(['tei', 'cohere']),
    query: rerankerQuerySchema.optional(),
  }),
  describe: describeReranker,
  paperCounterpart: (r) => rerankerCounterpart(r, { remote: true }),
  endpoints: (r) => [{ url: r.endpoint.url, key: `rerankers.${r.id}.endpoint.url`, path: ['endpoint', 'url'] }],
  load: (ctx, r) => createRemoteReranker(ctx, {
      id: r.id,
      type: 'remote',
      model: r.model,
      depth: r.depth,
      endpoint: endpointFromConfig(r.endpoint),
      ...(r.score_precision !== undefined ? { scorePrecision: r.score_precision } : {}),
    }),
});
