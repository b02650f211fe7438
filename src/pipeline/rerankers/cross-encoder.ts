/** `type: cross-encoder`: a (query, document) → logit model run locally (src/rerank/cross-encoder.ts). */
import { z } from 'zod';
import { createReranker } from '../../rerank/rerank.js';
import { defineReranker } from '../../rerank/types.js';
import { describeReranker, modelRerankerKeys, modelRerankerResources, modelRerankerSpec } from '../kind-config/config-parts.js';

export const crossEncoderReranker = defineReranker({
  type: 'cross-encoder',
  schema: z.strictObject({ ...modelRerankerKeys, type: z.literal('cross-encoder') }),
  describe: describeReranker,
  resources: modelRerankerResources('cross-encoder'),
  load: (ctx, r, configDir) => createReranker(ctx, { ...modelRerankerSpec(r, configDir), type: 'cross-encoder' }),
});
