/**
 * `type: dense`: an embedder and a vector index (src/retrieval/dense/). Without `endpoint` the
 * model runs locally (ONNX through transformers.js); with one it is served (remoteDenseRun below).
 */
import { z } from 'zod';
import type { StageContext } from '../../core/context.js';
import { defineFirstStage, type FirstStageInput, type FirstStageOutput } from '../../core/stages.js';
import { remoteDenseRetrieve } from '../../retrieval/dense/remote-retriever.js';
import { denseRetrieve, embedderRef, type DenseSpec } from '../../retrieval/dense/retriever.js';
import type { IndexSpec } from '../../retrieval/dense/indexes/search.js';
import { withDenseStageCache } from '../../retrieval/dense/stage-cache.js';
import { findEmbedderPreset, protocolPromptText } from '../../models/embedder-presets.js';
import { modelsDir } from '../../util/paths.js';
import { endpointFromConfig, endpointSchema, type EndpointYaml, idSchema, otherOptions, posInt } from '../kind-config/config-parts.js';
import { describeIndex, indexSchema, indexSpecOf } from '../kind-config/index-config.js';
import { modelLocationProblem, resolveModelRef } from '../kind-config/model-ref.js';
import { EMBEDDER_PRESETS } from '../../models/embedder-presets.js';
import { retrieverQuerySchema } from '../kind-config/query-config.js';

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
  index: indexSchema,
  query: retrieverQuerySchema.optional(),
});

export type DenseConfig = z.output<typeof schema>;

/** What an unknown dense `model:` is compared with for a "did you mean": every name a preset answers to. */
const EMBEDDER_NAMES = EMBEDDER_PRESETS.flatMap((p) => [p.name, ...p.aliases]);

/** The `index:` mapping as src/retrieval/dense/ takes it. */
/**
 * The encoder options a dense config sets, local or served: the one mapping of the config's
 * snake_case keys (only those set, in this order) to the specs' fields.
 */
function encoderOptions(r: DenseConfig) {
  return {
    ...(r.query_prefix !== undefined ? { queryPrefix: r.query_prefix } : {}),
    ...(r.doc_prefix !== undefined ? { docPrefix: r.doc_prefix } : {}),
    ...(r.pooling !== undefined ? { pooling: r.pooling } : {}),
    ...(r.normalize !== undefined ? { normalize: r.normalize } : {}),
    ...(r.max_tokens !== undefined ? { maxTokens: r.max_tokens } : {}),
    ...(r.dtype !== undefined ? { dtype: r.dtype } : {}),
    ...(r.batch_size !== undefined ? { batchSize: r.batch_size } : {}),
    ...(r.threads !== undefined ? { threads: r.threads } : {}),
  };
}

/** The retrieval spec a dense config names (local model; the one mapping `run` and `explain` use). */
export function denseSpec(r: DenseConfig, configDir: string): DenseSpec {
  return {
    id: r.id,
    model: resolveModelRef(r.model, configDir),
    ...encoderOptions(r),
    ...(r.vector_precision !== undefined ? { vectorPrecision: r.vector_precision } : {}),
    topK: r.top_k,
    index: indexSpec(r),
  };
}

export function indexSpec(r: DenseConfig): IndexSpec {
  return indexSpecOf(r.index);
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
      ...encoderOptions(r),
      topK: r.top_k,
      index: indexSpec(r),
    },
    docs,
    queries.map((q) => ({ id: q.id, text: q.text })),
  );
  return {
    run: out.run,
    ...(out.exactRun ? { exactRun: out.exactRun } : {}),
    info: { type: 'dense', remote: true, ...out.info },
  };
}

export const denseRetriever = defineFirstStage({
  type: 'dense',
  schema,
  describe(r) {
    return `dense model=${r.model} index=${describeIndex(r.index)} top_k=${r.top_k}${otherOptions(r, ['id', 'type', 'model', 'top_k', 'index'])}`;
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
  localModel: (r) => (r.endpoint ? undefined : r.model),
  paperCounterpart(r) {
    const preset = findEmbedderPreset(r.model);
    if (!preset?.paperModel) return undefined;
    const deviations: string[] = [];
    if (r.query_prefix !== undefined && r.query_prefix !== protocolPromptText(preset.queryPrefix)) deviations.push('query prefix differs from the protocol');
    if (r.doc_prefix !== undefined && r.doc_prefix !== protocolPromptText(preset.docPrefix)) deviations.push('document prefix differs from the protocol');
    if (r.pooling !== undefined && r.pooling !== preset.pooling) deviations.push(`pooling ${r.pooling} (protocol ${preset.pooling})`);
    if (r.normalize !== undefined && r.normalize !== preset.normalize) deviations.push(`normalize ${String(r.normalize)} (protocol ${String(preset.normalize)})`);
    if (r.max_tokens !== undefined && preset.maxTokens !== null && r.max_tokens !== preset.maxTokens) deviations.push(`max_tokens ${r.max_tokens} (protocol ${preset.maxTokens})`);
    // The official precision: the preset's where known; a preset whose checkpoint loads with
    // torch_dtype "auto" and an unrecorded dtype cannot tell a deviation, so it claims none.
    const official = preset.vectorPrecision ?? (preset.officialDtype.startsWith('auto') ? undefined : 'fp32');
    if (r.vector_precision !== undefined && official !== undefined && r.vector_precision !== official) deviations.push(`vector precision ${r.vector_precision} (official ${official})`);
    if (r.index.type === 'hnsw') deviations.push('HNSW index (the paper searches exactly)');
    if (r.endpoint !== undefined) deviations.push('encoded by a remote endpoint');
    return { model: preset.paperModel, deviations };
  },
  async explainScorer(ctx, r, docs, configDir) {
    if (r.endpoint) return { unsupported: 'its first stage is a remote dense server' };
    // The scorer (and transformers.js) only when explain runs.
    const { openDenseScorer } = await import('../../retrieval/dense/scorer.js');
    const dense = await openDenseScorer(ctx, { ...denseSpec(r, configDir), index: { type: 'exact' } }, docs);
    const base = dense.encoded();
    return {
      detail: r.model,
      how: 'exact inner product',
      scoreAll: (texts) => dense.scoreAll(texts),
      scoreDocs: (query, texts) => dense.scoreDocs(query, texts),
      encoded: () => dense.encoded() - base,
      dispose: () => dense.dispose(),
    };
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
      info: { type: 'dense', models_dir: modelsDir(), ...out.info },
    };
  },
});
