/** `type: cross-encoder`: a (query, document) → logit model run locally (src/rerank/cross-encoder.ts). */
import { z } from 'zod';
import { createReranker } from '../../rerank/rerank.js';
import { defineReranker } from '../../rerank/types.js';
import { describeReranker, modelRerankerKeys } from '../config-parts.js';
import { resolveModelRef } from '../model-ref.js';

export const crossEncoderReranker = defineReranker({
  type: 'cross-encoder',
  schema: z.strictObject({ ...modelRerankerKeys, type: z.literal('cross-encoder') }),
  describe: describeReranker,
  load: (ctx, r, configDir) =>
    createReranker(ctx, {
      id: r.id,
      type: 'cross-encoder',
      model: resolveModelRef(r.model, configDir),
      depth: r.depth,
      ...(r.score_precision !== undefined ? { scorePrecision: r.score_precision } : {}),
      ...(r.max_tokens !== undefined ? { maxTokens: r.max_tokens } : {}),
      ...(r.batch_size !== undefined ? { batchSize: r.batch_size } : {}),
      ...(r.dtype !== undefined ? { dtype: r.dtype } : {}),
      ...(r.threads !== undefined ? { threads: r.threads } : {}),
    }),
});
