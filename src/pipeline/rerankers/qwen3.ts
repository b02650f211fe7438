/** `type: qwen3`: a causal LM asked "yes" or "no" per (query, document) (src/rerank/qwen3.ts; template in src/models/qwen3-template.ts). */
import { z } from 'zod';
import { QWEN3_TEMPLATES } from '../../models/qwen3-template.js';
import { createReranker } from '../../rerank/rerank.js';
import { defineReranker } from '../../rerank/types.js';
import { describeReranker, modelRerankerKeys, modelRerankerResources, modelRerankerSpec } from '../kind-config/config-parts.js';

export const qwen3Reranker = defineReranker({
  type: 'qwen3',
  schema: z.strictObject({
    ...modelRerankerKeys,
    type: z.literal('qwen3'),
    instruction: z.string().optional(),
    template: z.enum(QWEN3_TEMPLATES).optional(),
  }),
  describe: describeReranker,
  resources: modelRerankerResources('qwen3'),
  load: (ctx, r, configDir) =>
    createReranker(ctx, {
      ...modelRerankerSpec(r, configDir),
      type: 'qwen3',
      ...(r.instruction !== undefined ? { instruction: r.instruction } : {}),
      ...(r.template !== undefined ? { template: r.template } : {}),
    }),
});
