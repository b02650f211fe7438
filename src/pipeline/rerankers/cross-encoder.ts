/** `type: cross-encoder`: a (query, document) → logit model run locally (src/rerank/cross-encoder.ts). */
import { z } from 'zod';
import { createLocalReranker, type LocalScorer } from '../../rerank/rerank.js';
import { defineReranker } from '../../rerank/types.js';
import { rerankerCounterpart } from '../kind-config/reranker-counterpart.js';
import { describeReranker, modelRerankerKeys, modelRerankerResources, modelRerankerSpec } from '../kind-config/config-parts.js';

/** How a cross-encoder loads: 8 pairs per pass (scripts/bench-rerank.mjs), the model's own token limit, logits. */
export const crossEncoderScorer: LocalScorer<Record<string, never>> = {
  type: 'cross-encoder',
  batchSize: 8,
  scoreKind: 'logit',
  settings: () => ({}),
  load: async ({ maxTokens, log, ...o }) => {
    // The loader (and transformers.js) only when a cross-encoder runs.
    const { loadCrossEncoder } = await import('../../rerank/cross-encoder.js');
    void log;
    return loadCrossEncoder({ ...o, ...(maxTokens !== undefined ? { maxTokens } : {}) });
  },
};

export const crossEncoderReranker = defineReranker({
  type: 'cross-encoder',
  schema: z.strictObject({ ...modelRerankerKeys, type: z.literal('cross-encoder') }),
  describe: describeReranker,
  localModel: (r) => r.model,
  paperCounterpart: (r) => rerankerCounterpart(r, { remote: false }),
  resources: modelRerankerResources('cross-encoder'),
  load: (ctx, r, configDir) => createLocalReranker(ctx, { ...modelRerankerSpec(r, configDir), type: 'cross-encoder' }, crossEncoderScorer),
});
