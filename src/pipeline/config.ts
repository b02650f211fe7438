/**
 * The experiment config: its schema (zod), YAML loading with line numbers, and
 * one-line errors naming the key path. The YAML key names are a user contract
 * (snake_case); the parsed `Config` is what the pipeline consumes.
 */
import { MAX_CONFIG_BYTES, readBoundedSync } from '../util/files.js';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, isNode, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { urlCredentialProblem } from '../util/secrets.js';
import { idSchema, posInt } from './kind-config/config-parts.js';
import { RERANKER_KINDS, RETRIEVER_KINDS, rerankerKind, retrieverKind, schemasOf, type RetrieverConfig } from './registry.js';
import { suggestion } from './kind-config/suggest.js';
import { DEFAULT_TARGET_COMPLETENESS } from '../injection/operating-points.js';
import { CATEGORY_RULES, DEFAULT_CATEGORY_RULE } from '../metrics/slices.js';
import { DEFAULT_TOLERANCES } from '../metrics/verdict.js';

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

/** The retriever kinds' schemas (registry.ts), told apart by `type`. */
const retrieverSchema = z.discriminatedUnion('type', schemasOf(RETRIEVER_KINDS));

const noneRerankerSchema = z.strictObject({ id: idSchema, type: z.literal('none') });

/** `{id: none}` needs no type; an entry with a model must say which kind it is (registry.ts). */
const rerankerSchema = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('type' in v) && !('model' in v) ? { ...v, type: 'none' } : v),
  z.discriminatedUnion('type', [noneRerankerSchema, ...schemasOf(RERANKER_KINDS)]),
);

const configSchema = z
  .strictObject({
    name: idSchema,
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
    report: z
      .strictObject({
        category_rule: z.enum(CATEGORY_RULES).default(DEFAULT_CATEGORY_RULE),
        ok_within: z.number().min(0).default(DEFAULT_TOLERANCES.ok),
        close_within: z.number().min(0).default(DEFAULT_TOLERANCES.close),
      })
      .default({ category_rule: DEFAULT_CATEGORY_RULE, ok_within: DEFAULT_TOLERANCES.ok, close_within: DEFAULT_TOLERANCES.close }),
    output: z.string().min(1),
  })
  .superRefine((c, ctx) => {
    if (c.report.close_within < c.report.ok_within)
      ctx.addIssue({ code: 'custom', path: ['report', 'close_within'], message: `must be at least report.ok_within (${c.report.ok_within} points)` });
    const seen = new Map<string, number>();
    c.retrievers.forEach((r, i) => {
      const j = seen.get(r.id);
      if (j !== undefined) ctx.addIssue({ code: 'custom', path: ['retrievers', i, 'id'], message: `duplicate retriever id "${r.id}" (also retrievers[${j}])` });
      seen.set(r.id, i);
    });
    c.retrievers.forEach((r, i) => {
      retrieverKind(r.type).check?.(r, i, c.retrievers, (path, message) => ctx.addIssue({ code: 'custom', path: ['retrievers', i, ...path], message }));
    });
    c.rerankers.forEach((r, i) => {
      if (r.type !== 'none')
        rerankerKind(r.type).check?.(r as never, i, c.rerankers, (path, message) => ctx.addIssue({ code: 'custom', path: ['rerankers', i, ...path], message }));
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

export type RawConfig = z.infer<typeof configSchema>;
export type { RetrieverConfig };
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

export function isModelReranker(r: RerankerConfig): r is ModelRerankerConfig {
  return r.type !== 'none';
}

/** The keys of an object schema (through optional/default wrappers; every branch of a union). */
function keysOf(s: z.ZodType | undefined): string[] {
  const def = (s as unknown as { def?: { type?: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; options?: z.ZodType[] } } | undefined)?.def;
  if (!def) return [];
  if (def.shape) return Object.keys(def.shape);
  if (def.options) return [...new Set(def.options.flatMap(keysOf))];
  if (def.innerType) return keysOf(def.innerType);
  if (def.in) return keysOf(def.in);
  return [];
}

function fieldOf(s: z.ZodType | undefined, key: string): z.ZodType | undefined {
  const def = (s as unknown as { def?: { shape?: Record<string, z.ZodType>; innerType?: z.ZodType } } | undefined)?.def;
  if (def?.shape) return def.shape[key];
  return def?.innerType ? fieldOf(def.innerType, key) : undefined;
}

/** Allowed keys at a path of the schema, for "did you mean" suggestions. */
function allowedKeysAt(value: unknown, path: readonly PropertyKey[]): string[] {
  if (path.length === 0) return keysOf(configSchema);
  const section = String(path[0]);
  if (section === 'retrievers' || section === 'rerankers') {
    if (path.length < 2) return [];
    const entry = pick(value, path.slice(0, 2));
    const type = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).type ?? (section === 'rerankers' && !('model' in entry) ? 'none' : undefined) : undefined;
    const kinds: readonly { type: string; schema: z.ZodObject }[] = section === 'retrievers' ? RETRIEVER_KINDS : [...RERANKER_KINDS, { type: 'none', schema: noneRerankerSchema }];
    const own = kinds.filter((k) => k.type === type);
    const candidates = own.length ? own : kinds;
    let schemas: (z.ZodType | undefined)[] = candidates.map((k) => k.schema);
    for (const p of path.slice(2)) schemas = schemas.map((s) => fieldOf(s, String(p)));
    return [...new Set(schemas.flatMap(keysOf))];
  }
  let s: z.ZodType | undefined = configSchema;
  for (const p of path) s = fieldOf(s, String(p));
  return keysOf(s);
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

const suggest = suggestion;

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
    retrievers: c.retrievers.map((r) => retrieverKind(r.type).resolve?.(r, abs) ?? r) as RetrieverConfig[],
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

export function loadConfig(file: string): Config {
  return parseConfig(readBoundedSync(file, 'config', MAX_CONFIG_BYTES).toString('utf8'), file);
}
