/**
 * Loading a reranker in tests the way a config entry is loaded: through its kind
 * (src/pipeline/registry.ts `rerankerKind`), from a spec in the library's camelCase shape.
 */
import type { StageContext } from '../../src/core/context.js';
import { rerankerKind } from '../../src/pipeline/registry.js';
import type { Reranker, RerankerSpec } from '../../src/rerank/types.js';
import type { Qwen3Template } from '../../src/models/qwen3-template.js';

export type TestRerankerSpec = RerankerSpec & { template?: Qwen3Template; instruction?: string };

/** The config entry of `spec` (keys as the YAML spells them). */
export function entryOf(spec: TestRerankerSpec): Record<string, unknown> & { id: string; type: string; depth: number } {
  const { maxTokens, batchSize, scorePrecision, ...rest } = spec;
  return {
    ...rest,
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(batchSize !== undefined ? { batch_size: batchSize } : {}),
    ...(scorePrecision !== undefined ? { score_precision: scorePrecision } : {}),
  };
}

/** Loads the reranker `spec` asks for through its kind (model paths are absolute or preset names). */
export function createReranker(ctx: StageContext, spec: TestRerankerSpec): Promise<Reranker> {
  return rerankerKind(spec.type).load(ctx, entryOf(spec), process.cwd());
}
