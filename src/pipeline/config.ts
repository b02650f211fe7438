/**
 * The experiment config: its schema (zod), YAML loading with line numbers, and
 * one-line errors naming the key path. The YAML key names are a user contract
 * (snake_case); the parsed `Config` is what the pipeline consumes.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, isNode, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { UserError } from '../core/errors.js';
import { urlProblem, type EndpointConfig } from '../remote/endpoint.js';
import { urlCredentialProblem } from '../util/secrets.js';
import { DEFAULT_NORM, DEFAULT_RRF_K } from '../fusion/fuse.js';
import { DEFAULT_TARGET_COMPLETENESS } from '../injection/operating-points.js';
import { QUERY_KEYS, rerankerQuerySchema, retrieverQuerySchema } from './query-config.js';

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected an id of letters, digits, ".", "_" or "-" (it names a results folder)');
const posInt = z.number().int().min(1);

/** Upper bound of `stats.iterations` and `compare --iterations` (a run of the randomisation test stays in seconds). */
export const MAX_ITERATIONS = 1_000_000;

const textSchema = z.strictObject({
  fields: z.array(z.enum(['name', 'description', 'skill_md'])).min(1).default(['name', 'description', 'skill_md']),
  separator: z.string().default(' | '),
});

const hubSchema = z.strictObject({
  repo: z.string().min(1),
  revision: z.string().min(1),
  endpoint: z
    .string()
    .superRefine((u, ctx) => {
      const secret = urlCredentialProblem(u);
      if (secret) ctx.addIssue({ code: 'custom', message: `${secret}; give the bare hub URL and put a token in HF_TOKEN` });
      else if (!URL.canParse(u)) ctx.addIssue({ code: 'custom', message: 'expected a URL like https://huggingface.co' });
    })
    .optional(),
  verify: z.boolean().default(true),
});

const datasetSchema = z
  .strictObject({
    path: z.string().min(1).optional(),
    hub: hubSchema.optional(),
    split: z.string().min(1).default('test'),
    skill_md_field: z.string().min(1).default('skill_md'),
    unknown_gold: z.enum(['error', 'drop', 'keep']).optional(),
    gold: z.enum(['qrels', 'skill_ids']).optional(),
    skill_filter: z
      .union([
        z.strictObject({ ids_file: z.string().min(1) }),
        z.strictObject({ field: z.enum(['major', 'sub']), equals: z.string().min(1) }),
        z.strictObject({ field: z.enum(['major', 'sub']), in: z.array(z.string().min(1)).min(1) }),
      ])
      .optional(),
    text: textSchema.default({ fields: ['name', 'description', 'skill_md'], separator: ' | ' }),
  })
  .refine((d) => (d.path === undefined) !== (d.hub === undefined), {
    message: 'give exactly one of "path" (a local dataset folder) or "hub" ({repo, revision})',
  });

const hnswSchema = z.strictObject({
  type: z.literal('hnsw'),
  M: posInt.default(32),
  ef_construction: posInt.default(200),
  ef_search: posInt.default(200),
  seed: z.number().int().min(0).default(100),
});
const exactSchema = z.strictObject({ type: z.literal('exact') });

const bm25Schema = z.strictObject({
  id,
  type: z.literal('bm25'),
  top_k: posInt.default(20),
  k1: z.number().positive().default(1.5),
  b: z.number().min(0).max(1).default(0.75),
  query: retrieverQuerySchema.optional(),
});

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
  max_retries: z.number().int().min(0).optional(),
  concurrency: posInt.optional(),
  batch_size: posInt.optional(),
};
const denseEndpointSchema = z.strictObject({ url: endpointUrl, api: z.enum(['openai', 'tei']), ...endpointCommon });
const rerankEndpointSchema = z.strictObject({ url: endpointUrl, api: z.enum(['tei', 'cohere']), ...endpointCommon });

const denseSchema = z.strictObject({
  id,
  type: z.literal('dense'),
  model: z.string().min(1),
  endpoint: denseEndpointSchema.optional(),
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

const runSchema = z.strictObject({
  id,
  type: z.literal('run'),
  path: z.string().min(1),
  top_k: posInt.default(20),
});

/**
 * Hybrid fusion of retrievers listed earlier (src/fusion/). `rrf_k` only with rrf, `norm` only
 * with combsum/combmnz; parseConfig fills the defaults (60, min-max) in. The fusion sees only
 * each input's top_k candidates; its own top_k may be larger or smaller than theirs.
 */
const fusionSchema = z.strictObject({
  id,
  type: z.literal('fusion'),
  inputs: z.array(z.string().min(1)).min(2),
  method: z.enum(['rrf', 'combsum', 'combmnz']),
  rrf_k: z.number().min(0).optional(),
  norm: z.enum(['min-max', 'z', 'none']).optional(),
  weights: z.array(z.number().min(0)).optional(),
  top_k: posInt.default(20),
});

const retrieverSchema = z.discriminatedUnion('type', [bm25Schema, denseSchema, runSchema, fusionSchema]);

const noneRerankerSchema = z.strictObject({ id, type: z.literal('none') });
/** One pool size, or a list: one run per depth (ids `<id>-k<depth>`), as run_eval_rerank.sh's RERANK_TOP_K. */
const depthSchema = z.union([posInt, z.array(posInt).min(1)]).default(20);

const modelRerankerBase = {
  id,
  model: z.string().min(1),
  depth: depthSchema,
  oracle: z.boolean().default(false),
  score_precision: z.enum(['fp32', 'fp16', 'bf16']).optional(),
  max_tokens: posInt.optional(),
  batch_size: posInt.optional(),
  dtype: z.string().min(1).optional(),
  threads: posInt.optional(),
  query: rerankerQuerySchema.optional(),
};
const crossEncoderSchema = z.strictObject({ ...modelRerankerBase, type: z.literal('cross-encoder') });
const qwen3Schema = z.strictObject({
  ...modelRerankerBase,
  type: z.literal('qwen3'),
  instruction: z.string().optional(),
  template: z.enum(['qwen3', 'skillrouter']).optional(),
});

const remoteRerankerSchema = z.strictObject({
  id,
  type: z.literal('remote'),
  model: z.string().min(1),
  depth: depthSchema,
  oracle: z.boolean().default(false),
  score_precision: z.enum(['fp32', 'fp16', 'bf16']).optional(),
  endpoint: rerankEndpointSchema,
  query: rerankerQuerySchema.optional(),
});

/** `{id: none}` needs no type; an entry with a model must say which kind it is. */
const rerankerSchema = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('type' in v) && !('model' in v) ? { ...v, type: 'none' } : v),
  z.discriminatedUnion('type', [noneRerankerSchema, crossEncoderSchema, qwen3Schema, remoteRerankerSchema]),
);

const configSchema = z
  .strictObject({
    name: id,
    description: z.string().optional(),
    dataset: datasetSchema,
    k: z.array(posInt).min(1).default([5, 10, 15]),
    evaluation: z.enum(['trec_eval', 'official']).default('trec_eval'),
    retrievers: z.array(retrieverSchema).min(1),
    rerankers: z.array(rerankerSchema).min(1).default([{ id: 'none', type: 'none' }]),
    stats: z
      .strictObject({ seed: z.number().int().min(0).default(42), iterations: posInt.max(MAX_ITERATIONS, `at most ${MAX_ITERATIONS.toLocaleString('en-US')} iterations`).default(10000) })
      .default({ seed: 42, iterations: 10000 }),
    cache_dir: z.string().min(1).optional(),
    operating_points: z
      .strictObject({ completeness: z.number().gt(0).max(1).default(DEFAULT_TARGET_COMPLETENESS) })
      .default({ completeness: DEFAULT_TARGET_COMPLETENESS }),
    output: z.string().min(1),
  })
  .superRefine((c, ctx) => {
    const seen = new Map<string, number>();
    c.retrievers.forEach((r, i) => {
      const j = seen.get(r.id);
      if (j !== undefined) ctx.addIssue({ code: 'custom', path: ['retrievers', i, 'id'], message: `duplicate retriever id "${r.id}" (also retrievers[${j}])` });
      seen.set(r.id, i);
    });
    c.retrievers.forEach((r, i) => {
      if (r.type === 'fusion') checkFusion(r, i, c.retrievers, ctx);
    });
    const seenR = new Map<string, number>();
    c.rerankers.forEach((r, i) => {
      const j = seenR.get(r.id);
      if (j !== undefined) ctx.addIssue({ code: 'custom', path: ['rerankers', i, 'id'], message: `duplicate reranker id "${r.id}" (also rerankers[${j}])` });
      seenR.set(r.id, i);
      if (r.id === 'none' && r.type !== 'none') ctx.addIssue({ code: 'custom', path: ['rerankers', i, 'id'], message: '"none" is reserved for the no-reranker entry' });
    });
    c.retrievers.forEach((r, i) => {
      for (const [j, rr] of c.rerankers.entries()) {
        const depths = 'depth' in rr ? (Array.isArray(rr.depth) ? rr.depth : [rr.depth]) : [];
        const over = depths.find((d) => d > r.top_k);
        if (over !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['rerankers', j, 'depth'],
            message: `depth ${over} exceeds retrievers[${i}] ("${r.id}") top_k ${r.top_k}: the reranker can only see what the first stage returned`,
          });
        if ('depth' in rr && Array.isArray(rr.depth) && new Set(rr.depth).size !== rr.depth.length)
          ctx.addIssue({ code: 'custom', path: ['rerankers', j, 'depth'], message: 'a depth is listed twice' });
      }
    });
  });

/** A fusion's inputs must name distinct retrievers listed before it; weights match inputs; rrf_k/norm fit the method. */
function checkFusion(r: z.infer<typeof fusionSchema>, i: number, all: readonly { id: string }[], ctx: z.core.$RefinementCtx<unknown>): void {
  const at = (...p: (string | number)[]) => ['retrievers', i, ...p];
  const earlierIds = all.slice(0, i).map((e) => e.id);
  const seen = new Map<string, number>();
  r.inputs.forEach((input, j) => {
    const dup = seen.get(input);
    if (dup !== undefined) ctx.addIssue({ code: 'custom', path: at('inputs', j), message: `"${input}" is listed twice (also inputs[${dup}])` });
    seen.set(input, j);
    if (earlierIds.includes(input)) return;
    const later = all.findIndex((e, k) => k >= i && e.id === input);
    if (input === r.id) ctx.addIssue({ code: 'custom', path: at('inputs', j), message: `a fusion cannot take itself as an input` });
    else if (later >= 0)
      ctx.addIssue({
        code: 'custom',
        path: at('inputs', j),
        message: `"${input}" is listed after this fusion (retrievers[${later}]); a fusion reads runs already computed, so list its inputs before it`,
      });
    else if (earlierIds.length === 0)
      ctx.addIssue({ code: 'custom', path: at('inputs', j), message: `unknown retriever "${input}": no retriever is listed before this fusion (list its inputs first)` });
    else
      ctx.addIssue({
        code: 'custom',
        path: at('inputs', j),
        message: `"${input}" is not a retriever listed before this fusion${suggest(input, earlierIds)}`,
      });
  });
  if (r.weights !== undefined && r.weights.length !== r.inputs.length)
    ctx.addIssue({ code: 'custom', path: at('weights'), message: `expected one weight per input (${r.inputs.length}), got ${r.weights.length}` });
  else if (r.weights !== undefined && !r.weights.some((w) => w > 0))
    ctx.addIssue({ code: 'custom', path: at('weights'), message: 'at least one weight must be positive' });
  if (r.method === 'rrf' && r.norm !== undefined)
    ctx.addIssue({ code: 'custom', path: at('norm'), message: 'applies to combsum and combmnz only (rrf uses ranks, not scores)' });
  if (r.method !== 'rrf' && r.rrf_k !== undefined)
    ctx.addIssue({ code: 'custom', path: at('rrf_k'), message: `applies to method rrf only (this fusion is ${r.method})` });
}

export type RawConfig = z.infer<typeof configSchema>;
export type RetrieverConfig = RawConfig['retrievers'][number];
type RawRerankerConfig = RawConfig['rerankers'][number];
/**
 * One reranker run as the pipeline sees it: a `depth` list is expanded into one entry per depth
 * (id `<id>-k<depth>`), all sharing `group` (the id as written, which loads the model once).
 */
export type RerankerConfig = RawRerankerConfig extends infer R
  ? R extends { depth: unknown }
    ? Omit<R, 'depth'> & { depth: number; group: string }
    : R
  : never;
export type ModelRerankerConfig = Extract<RerankerConfig, { model: string }>;

/** A validated config with every path made absolute (relative paths resolve against the config's folder). */
export interface Config extends Omit<RawConfig, 'rerankers'> {
  rerankers: RerankerConfig[];
  /** Absolute path of the YAML file. */
  file: string;
  /** The YAML text as read (hashed into the manifest). */
  text: string;
}

type EndpointYaml = NonNullable<Extract<RetrieverConfig, { type: 'dense' }>['endpoint']> | Extract<RerankerConfig, { type: 'remote' }>['endpoint'];

/** An `endpoint:` mapping of the config as src/remote/ takes it. */
export function endpointFromConfig<E extends EndpointYaml>(e: E): EndpointConfig<E['api']> {
  return {
    url: e.url,
    api: e.api,
    ...(e.api_key_env !== undefined ? { apiKeyEnv: e.api_key_env } : {}),
    ...(e.timeout_s !== undefined ? { timeoutS: e.timeout_s } : {}),
    ...(e.max_retries !== undefined ? { maxRetries: e.max_retries } : {}),
    ...(e.concurrency !== undefined ? { concurrency: e.concurrency } : {}),
    ...(e.batch_size !== undefined ? { batchSize: e.batch_size } : {}),
  };
}

export function isModelReranker(r: RerankerConfig): r is ModelRerankerConfig {
  return 'model' in r;
}

/** Allowed keys at a path of the schema, for "did you mean" suggestions. */
function allowedKeysAt(value: unknown, path: readonly PropertyKey[]): string[] {
  const top = Object.keys(configSchema.def.shape ?? {});
  if (path.length === 0) return top;
  const section = String(path[0]);
  const obj = pick(value, path);
  const type = obj && typeof obj === 'object' ? (obj as Record<string, unknown>).type : undefined;
  const keysOf = (s: z.ZodType): string[] => {
    const def = (s as unknown as { def?: { shape?: Record<string, unknown> } }).def;
    return def?.shape ? Object.keys(def.shape) : [];
  };
  if (section === 'retrievers' && path.length === 2) {
    const opts = { bm25: bm25Schema, dense: denseSchema, run: runSchema, fusion: fusionSchema } as Record<string, z.ZodType>;
    const s = typeof type === 'string' ? opts[type] : undefined;
    return s ? keysOf(s) : [...new Set(Object.values(opts).flatMap(keysOf))];
  }
  if (section === 'rerankers' && path.length === 2) {
    const opts = { 'cross-encoder': crossEncoderSchema, qwen3: qwen3Schema, remote: remoteRerankerSchema, none: noneRerankerSchema } as Record<string, z.ZodType>;
    const s = typeof type === 'string' ? opts[type] : undefined;
    return s ? keysOf(s) : [...new Set(Object.values(opts).flatMap(keysOf))];
  }
  if (section === 'retrievers' && path.length === 3 && path[2] === 'endpoint') return keysOf(denseEndpointSchema);
  if (section === 'rerankers' && path.length === 3 && path[2] === 'endpoint') return keysOf(rerankEndpointSchema);
  if ((section === 'retrievers' || section === 'rerankers') && path.length === 3 && path[2] === 'query') return QUERY_KEYS;
  if (section === 'retrievers' && path.length === 3 && path[2] === 'index') return [...new Set([...keysOf(hnswSchema), ...keysOf(exactSchema)])];
  if (section === 'dataset' && path.length === 1) return keysOf(datasetSchema as unknown as z.ZodType).length ? keysOf(datasetSchema as unknown as z.ZodType) : ['path', 'hub', 'split', 'skill_md_field', 'unknown_gold', 'gold', 'skill_filter', 'text'];
  if (section === 'dataset' && path[1] === 'text') return keysOf(textSchema);
  if (section === 'dataset' && path[1] === 'hub') return keysOf(hubSchema);
  if (section === 'stats') return ['seed', 'iterations'];
  if (section === 'operating_points') return ['completeness'];
  return [];
}

function pick(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p as string];
  }
  return v;
}

/** `retrievers[0].top_k` */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) {
    if (typeof p === 'number') s += `[${p}]`;
    else s += (s === '' ? '' : '.') + String(p);
  }
  return s === '' ? '(top level)' : s;
}

function suggest(key: string, allowed: string[]): string {
  if (allowed.length === 0) return '';
  const best = closest(key, allowed);
  return distance(key, best) <= Math.max(2, Math.floor(key.length / 3)) ? ` (did you mean "${best}"?)` : ` (allowed: ${allowed.join(', ')})`;
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): { path: PropertyKey[]; text: string } {
  const path = [...issue.path];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      return { path: [...path, key], text: `unknown key${suggest(key, allowedKeysAt(value, path))}` };
    }
    case 'invalid_type': {
      const got = pick(value, path);
      if (got === undefined) return { path, text: `missing (expected ${issue.expected})` };
      return { path, text: `expected ${issue.expected}, got ${describeValue(got)}` };
    }
    case 'invalid_union': {
      const disc = (issue as unknown as { discriminator?: string; options?: unknown[] });
      if (disc.discriminator) {
        const got = pick(value, path);
        const opts = (disc.options ?? []).map(String);
        if (got === undefined) return { path, text: `missing (expected one of ${opts.join(', ')})` };
        return { path, text: `expected one of ${opts.join(', ')}, got ${describeValue(got)}${typeof got === 'string' ? suggest(got, opts) : ''}` };
      }
      // A union whose branches all failed: report the most specific branch error.
      const branches = (issue as unknown as { errors: z.core.$ZodIssue[][] }).errors;
      const flat = branches.flat().sort((a, b) => b.path.length - a.path.length);
      const first = flat[0];
      if (first) {
        const inner = describeIssue({ ...first, path: [...path, ...first.path] } as z.core.$ZodIssue, value);
        return inner;
      }
      return { path, text: issue.message };
    }
    case 'invalid_value':
      return { path, text: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(pick(value, path))}` };
    case 'too_small':
    case 'too_big':
      return { path, text: issue.message.replace(/^Too (small|big): /, '') + `, got ${describeValue(pick(value, path))}` };
    default:
      return { path, text: issue.message };
  }
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `"${v.length > 40 ? v.slice(0, 40) + '…' : v}"`;
  return `${typeof v} ${String(v)}`;
}

/** Line (1-based) of the YAML node at `path`, or of its nearest existing parent. */
function lineOf(doc: ReturnType<typeof parseDocument>, counter: LineCounter, path: readonly PropertyKey[]): number | undefined {
  for (let n = path.length; n >= 1; n--) {
    const sub = path.slice(0, n) as (string | number)[];
    let node: unknown;
    if (n > 0 && typeof sub[n - 1] === 'string') {
      // Prefer the key's own position (works for unknown keys too).
      const parent = n === 1 ? doc.contents : doc.getIn(sub.slice(0, -1), true);
      const pair = (parent as { items?: { key: unknown; value: unknown }[] } | null)?.items?.find(
        (it) => isNode(it.key) && (it.key as unknown as { value: unknown }).value === sub[n - 1],
      );
      node = pair?.key;
    } else node = doc.getIn(sub, true);
    if (isNode(node) && (node as YamlNode).range) return counter.linePos((node as YamlNode).range![0]).line;
  }
  return undefined;
}

/** Parses and validates YAML text. `file` is used in messages and to resolve relative paths. */
export function parseConfig(text: string, file: string): Config {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const pos = counter.linePos(err.pos[0]);
    throw new UserError(`${file}:${pos.line}: invalid YAML: ${err.message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (e) {
    // Resource limits of the YAML library (an alias "billion laughs" expansion, …): one line.
    throw new UserError(`${file}: invalid YAML: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UserError(`${file}: the config must be a YAML mapping (name, dataset, retrievers, rerankers, output …)`);
  }
  const res = configSchema.safeParse(value);
  if (!res.success) {
    // Unknown keys first: a misspelt key usually also causes a "missing" error for the intended one.
    const issues = [...res.error.issues].sort((a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'));
    const described = issues.map((i) => describeIssue(i, value));
    const first = described[0]!;
    const line = lineOf(doc, counter, first.path);
    const loc = line !== undefined ? `${file}:${line}` : file;
    const more = described.length > 1 ? ` (+${described.length - 1} more problem${described.length > 2 ? 's' : ''})` : '';
    throw new UserError(`${loc}: ${formatKeyPath(first.path)}: ${first.text}${more}`);
  }
  const c = res.data;
  const base = dirname(resolve(file));
  const abs = (p: string) => resolve(base, p);
  return {
    ...c,
    file: resolve(file),
    text,
    dataset: {
      ...c.dataset,
      ...(c.dataset.path !== undefined ? { path: abs(c.dataset.path) } : {}),
      ...(c.dataset.skill_filter !== undefined && 'ids_file' in c.dataset.skill_filter ? { skill_filter: { ids_file: abs(c.dataset.skill_filter.ids_file) } } : {}),
    },
    retrievers: c.retrievers.map((r) => (r.type === 'run' ? { ...r, path: abs(r.path) } : r.type === 'fusion' ? withFusionDefaults(r) : r)),
    rerankers: expandRerankers(c.rerankers, file),
    ...(c.cache_dir !== undefined ? { cache_dir: abs(c.cache_dir) } : {}),
    output: abs(c.output),
    k: [...new Set(c.k)].sort((a, b) => a - b),
  };
}

/**
 * One entry per reranker run: a depth list becomes `<id>-k<depth>` entries (the results folder names
 * say which depth they hold); ids must stay unique after the expansion.
 */
function expandRerankers(list: RawConfig['rerankers'], file: string): RerankerConfig[] {
  const out: RerankerConfig[] = [];
  const seen = new Map<string, string>();
  for (const r of list) {
    const entries: RerankerConfig[] =
      r.type === 'none'
        ? [r]
        : Array.isArray(r.depth)
          ? r.depth.map((d) => ({ ...r, id: `${r.id}-k${d}`, depth: d, group: r.id }) as RerankerConfig)
          : [{ ...r, depth: r.depth, group: r.id } as RerankerConfig];
    for (const e of entries) {
      const prev = seen.get(e.id);
      if (prev !== undefined) throw new UserError(`${file}: rerankers: the run id "${e.id}" of "${'group' in e ? e.group : e.id}" is also the id of "${prev}"; rename one`);
      seen.set(e.id, 'group' in e ? e.group : e.id);
      out.push(e);
    }
  }
  return out;
}

/** A fusion retriever with its method's defaults filled in (rrf_k 60, or norm min-max; weights all 1). */
function withFusionDefaults(r: z.infer<typeof fusionSchema>): z.infer<typeof fusionSchema> {
  return {
    ...r,
    ...(r.method === 'rrf' ? { rrf_k: r.rrf_k ?? DEFAULT_RRF_K } : { norm: r.norm ?? DEFAULT_NORM }),
    weights: r.weights ?? r.inputs.map(() => 1),
  };
}

export function loadConfig(file: string): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${file}: cannot read the config (${code === 'ENOENT' ? 'no such file' : code ?? String(e)})`);
  }
  return parseConfig(text, file);
}
