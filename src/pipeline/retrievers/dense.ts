/**
 * `type: dense`: an embedder and a vector index (src/retrieval/dense/). Without `endpoint` the
 * model runs locally (ONNX through transformers.js); with one it is served (remoteDenseRun below).
 */
import { z } from 'zod';
import type { StageContext } from '../../core/context.js';
import { defineFirstStage, type FirstStageInput, type FirstStageOutput } from '../../core/stages.js';
import { remoteDenseRetrieve } from '../../retrieval/dense/remote-retriever.js';
import { denseRetrieve, embedderRef, type DenseSpec } from '../../retrieval/dense/retriever.js';
import type { IndexSpec } from '../../retrieval/dense/search.js';
import { withDenseStageCache } from '../../retrieval/dense/stage-cache.js';
import { modelsDir } from '../../util/paths.js';
import { endpointFromConfig, endpointSchema, type EndpointYaml, idSchema, otherOptions, posInt } from '../kind-config/config-parts.js';
import { modelLocationProblem, resolveModelRef } from '../kind-config/model-ref.js';
import { EMBEDDER_PRESETS } from '../../models/embedder-presets.js';
import { retrieverQuerySchema } from '../kind-config/query-config.js';

const hnswSchema = z.strictObject({
  type: z.literal('hnsw'),
  M: posInt.default(32),
  ef_construction: posInt.default(200),
  ef_search: posInt.default(200),
  seed: z.number().int().min(0).default(100),
});
const exactSchema = z.strictObject({ type: z.literal('exact') });

const schema = z.strictObject({
  id: idSchema,
  type: z.literal('dense'),
  model: z.string().min(1),
  endpoint: endpointSchema(['openai', 'tei']).optional(),
  top_k: posInt.default(20),
  query_prefix: z.string().optional(),
  doc_prefix: z.string().optional(),
  pooling: z.enum(['cls', 'mean', 'last_token']).optional(),
  vector_precision: z.enum(['fp32', 'bf16', 'fp16']).optional(),
  normalize: z.boolean().optional(),
  max_tokens: posInt.optional(),
  dtype: z.string().min(1).optional(),
  batch_size: posInt.optional(),
  threads: posInt.optional(),
  index: z.discriminatedUnion('type', [hnswSchema, exactSchema]).default({ type: 'exact' }),
  query: retrieverQuerySchema.optional(),
});

export type DenseConfig = z.output<typeof schema>;

/** What an unknown dense `model:` is compared with for a "did you mean": every name a preset answers to. */
const EMBEDDER_NAMES = EMBEDDER_PRESETS.flatMap((p) => [p.name, ...p.aliases]);

/** The `index:` mapping as src/retrieval/dense/ takes it. */
/** The retrieval spec a dense config names (local model; the one mapping `run` and `explain` use). */
export function denseSpec(r: DenseConfig, configDir: string): DenseSpec {
  return {
    id: r.id,
    model: resolveModelRef(r.model, configDir),
    ...(r.query_prefix !== undefined ? { queryPrefix: r.query_prefix } : {}),
    ...(r.doc_prefix !== undefined ? { docPrefix: r.doc_prefix } : {}),
    ...(r.pooling !== undefined ? { pooling: r.pooling } : {}),
    ...(r.normalize !== undefined ? { normalize: r.normalize } : {}),
    ...(r.max_tokens !== undefined ? { maxTokens: r.max_tokens } : {}),
    ...(r.dtype !== undefined ? { dtype: r.dtype } : {}),
    ...(r.batch_size !== undefined ? { batchSize: r.batch_size } : {}),
    ...(r.threads !== undefined ? { threads: r.threads } : {}),
    ...(r.vector_precision !== undefined ? { vectorPrecision: r.vector_precision } : {}),
    topK: r.top_k,
    index: indexSpec(r),
  };
}

export function indexSpec(r: DenseConfig): IndexSpec {
  return r.index.type === 'hnsw'
    ? { type: 'hnsw', M: r.index.M, efConstruction: r.index.ef_construction, efSearch: r.index.ef_search, seed: r.index.seed }
    : { type: 'exact' };
}

/**
 * With an `endpoint:` the model is served (TEI, vLLM, OpenAI-compatible) and `model` is a name for
 * the server, the presets and the cache, never a path (src/retrieval/dense/remote-retriever.ts).
 */
async function remoteDenseRun(
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

export const denseRetriever = defineFirstStage({
  type: 'dense',
  schema,
  describe(r) {
    const idx = r.index.type === 'hnsw' ? `hnsw(M=${r.index.M}, ef_construction=${r.index.ef_construction}, ef_search=${r.index.ef_search}, seed=${r.index.seed})` : 'exact';
    return `dense model=${r.model} index=${idx} top_k=${r.top_k}${otherOptions(r, ['id', 'type', 'model', 'top_k', 'index'])}`;
  },
  endpoints: (r) => (r.endpoint ? [{ url: r.endpoint.url, key: `retrievers.${r.id}.endpoint.url`, path: ['endpoint', 'url'] }] : []),
  resources(r, rc, issue) {
    if (r.endpoint) return; // served: `model` names the model for the server, the presets and the cache
    const e = embedderRef(resolveModelRef(r.model, rc.configDir), rc.modelsDir);
    if ('problem' in e) return issue(['model'], e.problem);
    if (e.bundled !== undefined) return; // built on first use (preflight checks the models folder is writable)
    const problem = modelLocationProblem(e.ref, rc, EMBEDDER_NAMES);
    if (problem) issue(['model'], problem);
  },
  async run(ctx, r, input) {
    if (r.endpoint) return remoteDenseRun(ctx, { ...r, endpoint: r.endpoint }, input);
    const spec = denseSpec(r, input.configDir);
    // A warm rerun over the same corpus file reads the stage's output (no text read: stage-cache.ts).
    const out = await withDenseStageCache(ctx, spec, input.docs, input.queries, () =>
      denseRetrieve(ctx, spec, input.docs, input.queries.map((q) => ({ id: q.id, text: q.text }))),
    );
    return {
      run: out.run,
      ...(out.exactRun ? { exactRun: out.exactRun } : {}),
      info: { type: 'dense', models_dir: modelsDir(), ...(out.info as unknown as Record<string, unknown>) },
    };
  },
});
