/** `type: qwen3`: a causal LM asked "yes" or "no" per (query, document) (src/rerank/qwen3.ts; template in src/models/qwen3-template.ts). */
import { z } from 'zod';
import type { RerankerPreset } from '../../models/reranker-presets.js';
import { defaultInstruction, QWEN3_TEMPLATES, type Qwen3Template } from '../../models/qwen3-template.js';
import { createLocalReranker, type LocalScorer } from '../../rerank/rerank.js';
import { defineReranker } from '../../rerank/types.js';
import { rerankerCounterpart } from '../kind-config/reranker-counterpart.js';
import { describeReranker, modelRerankerKeys, modelRerankerResources, modelRerankerSpec } from '../kind-config/config-parts.js';

/** The template and instruction of a qwen3 entry: the config's, else the preset's (its instruction only with its own template), else the template's default. */
export function qwen3Settings(r: { template?: Qwen3Template; instruction?: string }, preset: RerankerPreset | undefined): { template: Qwen3Template; instruction: string } {
  const template: Qwen3Template = r.template ?? preset?.template ?? 'qwen3';
  const templateChanged = r.template !== undefined && preset?.template !== undefined && r.template !== preset.template;
  const instruction = r.instruction ?? (templateChanged ? undefined : preset?.instruction) ?? defaultInstruction(template);
  return { template, instruction };
}

/** How a qwen3 reranker loads for entry `r`: 4 pairs per pass (scripts/bench-rerank.mjs), 32,768 tokens, P(yes). */
export function qwen3Scorer(r: { template?: Qwen3Template; instruction?: string }): LocalScorer<{ template: Qwen3Template; instruction: string }> {
  return {
    type: 'qwen3',
    batchSize: 4,
    maxTokens: 32_768,
    scoreKind: 'p-yes',
    settings: (preset) => qwen3Settings(r, preset),
    load: async ({ maxTokens, ...o }, s) => {
      const { loadQwen3 } = await import('../../rerank/qwen3.js');
      return loadQwen3({ ...o, maxTokens: maxTokens ?? 32_768, ...s });
    },
  };
}

export const qwen3Reranker = defineReranker({
  type: 'qwen3',
  schema: z.strictObject({
    ...modelRerankerKeys,
    type: z.literal('qwen3'),
    instruction: z.string().optional(),
    template: z.enum(QWEN3_TEMPLATES).optional(),
  }),
  describe: describeReranker,
  localModel: (r) => r.model,
  paperCounterpart: (r) => rerankerCounterpart(r, { remote: false }),
  resources: modelRerankerResources('qwen3'),
  load: (ctx, r, configDir) => createLocalReranker(ctx, { ...modelRerankerSpec(r, configDir), type: 'qwen3' }, qwen3Scorer(r)),
});
