/**
 * `type: dense` with an `endpoint:`: the model is served (TEI, vLLM, OpenAI-compatible) and
 * `model` is a name for the server, the presets and the cache, never a path
 * (src/retrieval/dense/remote-retriever.ts).
 */
import type { StageContext } from '../../core/context.js';
import type { FirstStageInput, FirstStageOutput } from '../../core/stages.js';
import { remoteDenseRetrieve } from '../../retrieval/dense/remote-retriever.js';
import { endpointFromConfig, type EndpointYaml } from '../config-parts.js';
import { indexSpec, type DenseConfig } from './dense.js';

export async function remoteDenseRun(
  ctx: StageContext,
  r: DenseConfig & { endpoint: EndpointYaml<'openai' | 'tei'> },
  { docs, queries }: FirstStageInput,
): Promise<FirstStageOutput> {
  const out = await remoteDenseRetrieve(
    ctx,
    {
      id: r.id,
      model: r.model,
      endpoint: endpointFromConfig(r.endpoint),
      ...(r.query_prefix !== undefined ? { queryPrefix: r.query_prefix } : {}),
      ...(r.doc_prefix !== undefined ? { docPrefix: r.doc_prefix } : {}),
      ...(r.normalize !== undefined ? { normalize: r.normalize } : {}),
      ...(r.batch_size !== undefined ? { batchSize: r.batch_size } : {}),
      ...(r.threads !== undefined ? { threads: r.threads } : {}),
      ...(r.pooling !== undefined ? { pooling: r.pooling } : {}),
      ...(r.dtype !== undefined ? { dtype: r.dtype } : {}),
      ...(r.max_tokens !== undefined ? { maxTokens: r.max_tokens } : {}),
      topK: r.top_k,
      index: indexSpec(r),
    },
    docs,
    queries.map((q) => ({ id: q.id, text: q.text })),
  );
  return {
    run: out.run,
    ...(out.exactRun ? { exactRun: out.exactRun } : {}),
    info: { type: 'dense', remote: true, ...(out.info as unknown as Record<string, unknown>) },
  };
}
