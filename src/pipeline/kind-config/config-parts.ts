/**
 * Schema pieces that several stage kinds share (ids, counts, the `endpoint:` mapping of a remote
 * server) and the mapping of an `endpoint:` mapping to what src/remote/ takes. The kinds' own
 * schemas live with the kinds (retrievers/, rerankers/); the whole config schema in config.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { isUserError } from '../../core/errors.js';
import type { ConfigIssue, ResourceContext } from '../../core/stages.js';
import { RERANKER_PRESETS } from '../../models/reranker-presets.js';
import { resolveRerankerSpec } from '../../rerank/spec.js';
import { SCORE_PRECISIONS } from '../../rerank/score-precision.js';
import type { RerankerSpec } from '../../rerank/types.js';
import { modelLocationProblem, resolveModelRef } from './model-ref.js';
import { rerankerQuerySchema } from './query-config.js';
import { RESULTS_FILE_NAMES } from '../../formats/results-file-names.js';
import { urlProblem, type EndpointConfig, type RemoteApi } from '../../remote/endpoint.js';

export const idSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected an id of letters, digits, ".", "_" or "-" (it names a results folder)')
  .superRefine((id, ctx) => {
    if (RESULTS_FILE_NAMES.has(id)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(id)} is the name of a results file; give another id (an id names a folder of the results)` });
  });
export const posInt = z.number().int().min(1);
/** A reranker's `score_precision` (src/rerank/score-precision.ts). */
export const scorePrecisionSchema = z.enum(SCORE_PRECISIONS);

/** A remote inference server (src/remote/): url + api, the key's environment variable, limits. */
const endpointUrl = z.string().superRefine((u, ctx) => {
  const problem = urlProblem(u);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const endpointCommon = {
  api_key_env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected the NAME of an environment variable holding the key (capital letters, digits, "_"), not the key itself')
    .optional(),
  timeout_s: z.number().positive().optional(),
  idle_timeout_s: z.number().positive().optional(),
  max_retries: z.number().int().min(0).optional(),
  concurrency: posInt.optional(),
  batch_size: posInt.optional(),
};

/** An `endpoint:` mapping whose `api` is one of `apis`. */
export function endpointSchema<A extends RemoteApi>(apis: readonly [A, ...A[]]) {
  return z.strictObject({ url: endpointUrl, api: z.enum(apis), ...endpointCommon });
}

export type EndpointYaml<A extends RemoteApi = RemoteApi> = z.output<ReturnType<typeof endpointSchema<A>>>;

/** An `endpoint:` mapping of the config as src/remote/ takes it. */
export function endpointFromConfig<A extends RemoteApi>(e: EndpointYaml<A>): EndpointConfig<A> {
  return {
    url: e.url,
    api: e.api,
    ...(e.api_key_env !== undefined ? { apiKeyEnv: e.api_key_env } : {}),
    ...(e.timeout_s !== undefined ? { timeoutS: e.timeout_s } : {}),
    ...(e.idle_timeout_s !== undefined ? { idleTimeoutS: e.idle_timeout_s } : {}),
    ...(e.max_retries !== undefined ? { maxRetries: e.max_retries } : {}),
    ...(e.concurrency !== undefined ? { concurrency: e.concurrency } : {}),
    ...(e.batch_size !== undefined ? { batchSize: e.batch_size } : {}),
  };
}

/** `key=value` for every key of `c` not in `skip` (values as JSON), for plan lines. */
export function otherOptions(c: object, skip: readonly string[]): string {
  const opts = Object.entries(c)
    .filter(([k]) => !skip.includes(k))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return opts.length ? ' ' + opts.join(' ') : '';
}

/**
 * A reranker's pool size N (first-stage candidates reranked per query): one, or a list giving one
 * run per depth (ids `<id>-k<depth>`), as run_eval_rerank.sh's RERANK_TOP_K.
 */
export const depthSchema = z.union([posInt, z.array(posInt).min(1)]).default(20);

/** Keys every model reranker entry has (cross-encoder, qwen3). */
export const modelRerankerKeys = {
  id: idSchema,
  model: z.string().min(1),
  depth: depthSchema,
  oracle: z.boolean().default(false),
  score_precision: scorePrecisionSchema.optional(),
  max_tokens: posInt.optional(),
  batch_size: posInt.optional(),
  dtype: z.string().min(1).optional(),
  threads: posInt.optional(),
  query: rerankerQuerySchema.optional(),
};

/** A model reranker entry as far as `modelRerankerKeys` go, as a kind loads it (one depth). */
export type ModelRerankerEntry = Omit<z.output<z.ZodObject<typeof modelRerankerKeys>>, 'depth'> & { depth: number };

/** The spec fields every model reranker kind takes from the keys it shares (the model path made absolute). */
export function modelRerankerSpec(r: ModelRerankerEntry, configDir: string): Omit<RerankerSpec, 'type'> {
  return {
    id: r.id,
    model: resolveModelRef(r.model, configDir),
    depth: r.depth,
    ...(r.score_precision !== undefined ? { scorePrecision: r.score_precision } : {}),
    ...(r.max_tokens !== undefined ? { maxTokens: r.max_tokens } : {}),
    ...(r.batch_size !== undefined ? { batchSize: r.batch_size } : {}),
    ...(r.dtype !== undefined ? { dtype: r.dtype } : {}),
    ...(r.threads !== undefined ? { threads: r.threads } : {}),
  };
}

/**
 * The `resources` check of a model reranker kind (cross-encoder, qwen3), as `createReranker` will
 * resolve it: the preset its model names (of this type), that preset's export (published, bundled or
 * exported into the models folder), and where the model is. Names and folders only: nothing loaded.
 */
export function modelRerankerResources(type: RerankerSpec['type']) {
  return (r: ModelRerankerEntry, rc: ResourceContext, issue: ConfigIssue): void => {
    let resolved;
    try {
      resolved = resolveRerankerSpec(
        { ...modelRerankerSpec(r, rc.configDir), type },
        { batchSize: 1 }, // the kind's defaults change no problem found here
        { exportFolder: (p) => (existsSync(join(rc.modelsDir, p.name, 'config.json')) ? join(rc.modelsDir, p.name) : undefined) },
      );
    } catch (e) {
      if (!isUserError(e)) throw e;
      // `reranker "<id>": <key>: <text>`: the key is the entry's own.
      const m = /^reranker "[^"]*": (type|model|depth|max_tokens|batch_size|threads): ([\s\S]*)$/.exec(e.message);
      if (m) issue([m[1]!], m[2]!);
      else issue(['model'], e.message);
      return;
    }
    if (resolved.local !== undefined) return; // bundled, built on first use
    const problem = modelLocationProblem(resolved.modelRef, rc, RERANKER_PRESETS.flatMap((p) => [p.name, ...p.aliases]));
    if (problem) issue(['model'], problem);
  };
}

/** The plan line of a reranker entry: type, model, depth, then every other key given. */
export function describeReranker(r: { type: string; model: string; depth: number }): string {
  return `${r.type} model=${r.model} depth=${r.depth}${otherOptions(r, ['id', 'type', 'model', 'depth'])}`;
}
