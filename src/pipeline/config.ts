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
import type { StageConfig } from '../core/stages.js';
import { hubUrlProblem, urlCredentialProblem } from '../util/secrets.js';
import { splitNameProblem } from '../data/split-name.js';
import { expandHome } from '../util/paths.js';
import { idSchema, posInt } from './kind-config/config-parts.js';
import { allRerankerKinds, allRetrieverKinds, registryVersion, RERANKER_KINDS, RETRIEVER_KINDS, rerankerKind, retrieverKind, schemasOf, type RawModelRerankerConfig, type RetrieverConfig } from './registry.js';
import { suggestion } from './kind-config/suggest.js';
import { DEFAULT_TARGET_COMPLETENESS } from '../operating-points/points.js';
import { CATEGORY_RULES, DEFAULT_CATEGORY_RULE } from '../metrics/query-slices.js';
import { DEFAULT_TOLERANCES } from '../metrics/verdict.js';
import { experimentMeasures, measureKey } from '../metrics/measures.js';
import { expectationProblems, expectEntrySchema, expectListSchema, type ExpectEntry, type ExpectTargets } from './expect.js';

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
      else {
        const problem = hubUrlProblem(u);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
    })
    .optional(),
  verify: z.boolean().default(true),
});

const datasetSchema = z
  .strictObject({
    path: z.string().min(1).optional(),
    hub: hubSchema.optional(),
    split: z
      .string()
      .min(1)
      .superRefine((s, ctx) => {
        const problem = splitNameProblem(s);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default('test'),
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

const reportSchema = z
  .strictObject({
    category_rule: z.enum(CATEGORY_RULES).default(DEFAULT_CATEGORY_RULE),
    ok_within: z.number().min(0).default(DEFAULT_TOLERANCES.ok),
    close_within: z.number().min(0).default(DEFAULT_TOLERANCES.close),
  })
  .default({ category_rule: DEFAULT_CATEGORY_RULE, ok_within: DEFAULT_TOLERANCES.ok, close_within: DEFAULT_TOLERANCES.close });

// measures beyond the defaults at each k (metrics/measures.ts experimentMeasures): Hit@1, Recall@50, Judged, …
const measuresSchema = z
  .array(
    z.string().superRefine((s, ctx) => {
      try {
        experimentMeasures([1], [s]);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
      }
    }),
  )
  .optional();

const kSchema = z.array(posInt).min(1).default([5, 10, 15]);

/**
 * The whole config, key by key. The rules between entries (unique ids, a fusion's inputs, rerank
 * depth against top_k, report tolerances) are `crossEntryProblems`: they run on every entry that is
 * valid on its own, also when another part of the config is not.
 */
const configSchema = z
  .strictObject({
    name: idSchema,
    description: z.string().optional(),
    dataset: datasetSchema,
    k: kSchema,
    measures: measuresSchema,
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
    report: reportSchema,
    // the regression gate (pipeline/expect.ts): what `run` checks after the runs, exit code 1 when one fails
    expect: expectListSchema.optional(),
    // Opt-in analyses (their results go to files of their own; the other results files do not change).
    analysis: z
      .strictObject({
        // Sibling families (src/siblings/): near-copy skills by shingled Jaccard >= threshold.
        siblings: z.strictObject({ threshold: z.number().gt(0).max(1).default(0.8), shingle: posInt.max(20).default(3) }).optional(),
      })
      .optional(),
    output: z.string().min(1),
  });

export type RawConfig = z.infer<typeof configSchema>;

let current: { version: number; retrieverSchema: typeof retrieverSchema; rerankerSchema: typeof rerankerSchema; configSchema: typeof configSchema } = {
  version: 0,
  retrieverSchema,
  rerankerSchema,
  configSchema,
};

/**
 * The schemas of every kind known now: the built-in ones (the consts above, what the config types
 * are made from) and those added at run time (registry.ts registerRetrieverKind / registerRerankerKind).
 */
function schemas(): typeof current {
  const v = registryVersion();
  if (current.version !== v) {
    type Tuple = [z.ZodObject, ...z.ZodObject[]];
    const r = z.discriminatedUnion('type', allRetrieverKinds().map((k) => k.schema) as unknown as Tuple) as unknown as typeof retrieverSchema;
    const rr = z.preprocess(
      (x) => (x && typeof x === 'object' && !Array.isArray(x) && !('type' in x) && !('model' in x) ? { ...x, type: 'none' } : x),
      z.discriminatedUnion('type', [noneRerankerSchema, ...allRerankerKinds().map((k) => k.schema)] as unknown as Tuple),
    ) as unknown as typeof rerankerSchema;
    const c = configSchema.extend({ retrievers: z.array(r).min(1), rerankers: z.array(rr).min(1).default([{ id: 'none', type: 'none' }]) }) as unknown as typeof configSchema;
    current = { version: v, retrieverSchema: r, rerankerSchema: rr, configSchema: c };
  }
  return current;
}
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
  if (path.length === 0) return keysOf(schemas().configSchema);
  const section = String(path[0]);
  if (section === 'expect') {
    if (path.length < 2) return [];
    let s: z.ZodType | undefined = expectEntrySchema;
    for (const p of path.slice(2)) s = fieldOf(s, String(p));
    return keysOf(s);
  }
  if (section === 'retrievers' || section === 'rerankers') {
    if (path.length < 2) return [];
    const entry = pick(value, path.slice(0, 2));
    const type = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).type ?? (section === 'rerankers' && !('model' in entry) ? 'none' : undefined) : undefined;
    const kinds: readonly { type: string; schema: z.ZodObject }[] = section === 'retrievers' ? allRetrieverKinds() : [...allRerankerKinds(), { type: 'none', schema: noneRerankerSchema }];
    const own = kinds.filter((k) => k.type === type);
    const candidates = own.length ? own : kinds;
    let schemas: (z.ZodType | undefined)[] = candidates.map((k) => k.schema);
    for (const p of path.slice(2)) schemas = schemas.map((s) => fieldOf(s, String(p)));
    return [...new Set(schemas.flatMap(keysOf))];
  }
  let s: z.ZodType | undefined = schemas().configSchema;
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

/**
 * One problem of a config: at a key path (printed `file:line: key.path: text`, the line of the key
 * or of its nearest parent in the file), or, without a path, a line of its own that already says
 * where (a flag, an environment variable, a folder).
 */
export interface ConfigProblem {
  path?: readonly PropertyKey[];
  text: string;
}

/** A config's text checked against the schema: every problem found, and the config when there is none. */
export interface ConfigCheck {
  /** The file as given (messages name it so). */
  file: string;
  /** The YAML value (a mapping). */
  value: Record<string, unknown>;
  /** The validated config, when no problem was found. */
  config?: Config;
  problems: ConfigProblem[];
  /** Line (1-based) of the key at `path`, or of its nearest parent in the file. */
  lineOf(path: readonly PropertyKey[]): number | undefined;
  /** The parts of the config that are valid on their own (also when the whole is not). */
  parts: ConfigParts;
}

/** The YAML document of a config, or the one-line UserError of a text that is not a YAML mapping. */
function readYaml(text: string, file: string): { value: Record<string, unknown>; lineOf: ConfigCheck['lineOf'] } {
  const { value, lineOf: lines } = readYamlValue(text, file);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UserError(`${file}: the config must be a YAML mapping (name, dataset, retrievers, rerankers, output …)`);
  }
  return { value: value as Record<string, unknown>, lineOf: lines };
}

/** Any YAML (or JSON) document with the lines of its keys, or the one-line UserError of a text that is not YAML. */
function readYamlValue(text: string, file: string): { value: unknown; lineOf: ConfigCheck['lineOf'] } {
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
  return { value, lineOf: (path) => lineOf(doc, counter, path) };
}

/** The schema's issues as problems: each unknown key on its own, a misspelt key's "missing" twin left out. */
function schemaProblems(issues: readonly z.core.$ZodIssue[], value: unknown): ConfigProblem[] {
  const expanded = issues.flatMap((i) => (i.code === 'unrecognized_keys' && i.keys.length > 1 ? i.keys.map((k) => ({ ...i, keys: [k] })) : [i]));
  const described = expanded.map((i) => ({ issue: i, ...describeIssue(i, value) }));
  // `datset:` is one mistake: its "did you mean dataset" already says what the missing `dataset` would.
  const suggested = new Set(
    described.flatMap((d) => {
      const m = d.issue.code === 'unrecognized_keys' ? /\(did you mean "([^"]+)"\?\)$/.exec(d.text) : null;
      return m ? [formatKeyPath([...d.path.slice(0, -1), m[1]!])] : [];
    }),
  );
  return described
    .filter((d) => !(d.text.startsWith('missing') && suggested.has(formatKeyPath(d.path))))
    .map((d) => ({ path: d.path, text: d.text }));
}

type RawRerankerEntry = RawConfig['rerankers'][number];

/**
 * `item` parsed on its own; an item whose only problems are unknown keys (each one reported by the
 * schema already) is parsed without them, so that its other keys are still checked against the rest.
 */
function parseEntry<T>(item: unknown, schema: z.ZodType<T>): T | undefined {
  const r = schema.safeParse(item);
  if (r.success) return r.data;
  if (!r.error.issues.every((i) => i.code === 'unrecognized_keys')) return undefined;
  const copy = structuredClone(item);
  for (const i of r.error.issues) {
    const parent = pick(copy, i.path);
    if (parent && typeof parent === 'object') for (const k of (i as z.core.$ZodIssueUnrecognizedKeys).keys) delete (parent as Record<string, unknown>)[k];
  }
  const again = schema.safeParse(copy);
  return again.success ? again.data : undefined;
}

/** Each entry of a list that validates on its own (with its position), and the id and type of every entry that has them. */
function entriesOf<T>(list: unknown, schema: z.ZodType<T>): { valid: { index: number; entry: T }[]; all: StageConfig[] } {
  const valid: { index: number; entry: T }[] = [];
  const all: StageConfig[] = [];
  if (!Array.isArray(list)) return { valid, all };
  list.forEach((item: unknown, index) => {
    const entry = parseEntry(item, schema);
    if (entry !== undefined) valid.push({ index, entry });
    const o = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    all.push({ id: typeof o.id === 'string' ? o.id : '', type: typeof o.type === 'string' ? o.type : '' });
  });
  return { valid, all };
}

/**
 * The rules between entries, over every entry that is valid on its own (so they are listed with
 * the other problems of a config whose other parts are wrong): unique ids, each kind's `check`
 * (a fusion's inputs), rerank depth against each first stage's top_k, the report tolerances.
 */
function crossEntryProblems(
  value: Record<string, unknown>,
  retrievers: ReturnType<typeof entriesOf<RetrieverConfig>>,
  rerankers: ReturnType<typeof entriesOf<RawRerankerEntry>>,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const issue = (path: readonly PropertyKey[], text: string) => problems.push({ path, text });
  const report = parseEntry(value.report, reportSchema);
  if (report !== undefined && report.close_within < report.ok_within) issue(['report', 'close_within'], `must be at least report.ok_within (${report.ok_within} points)`);

  const seen = new Map<string, number>();
  retrievers.all.forEach((r, i) => {
    const j = seen.get(r.id);
    if (j !== undefined && r.id !== '') issue(['retrievers', i, 'id'], `duplicate retriever id "${r.id}" (also retrievers[${j}])`);
    if (j === undefined) seen.set(r.id, i);
  });
  for (const { index, entry } of retrievers.valid) retrieverKind(entry.type).check?.(entry, index, retrievers.all, (path, message) => issue(['retrievers', index, ...path], message));
  // A fusion tuned on the split being evaluated would fit the evaluated queries: only when asked by name.
  const dsValue = value.dataset && typeof value.dataset === 'object' ? (value.dataset as Record<string, unknown>) : {};
  const evalSplit = typeof dsValue.split === 'string' ? dsValue.split : 'test';
  for (const { index, entry } of retrievers.valid)
    if (entry.type === 'fusion' && entry.tune && entry.tune.split === evalSplit && !entry.tune.allow_eval_split)
      issue(
        ['retrievers', index, 'tune', 'split'],
        `"${evalSplit}" is the split being evaluated (dataset.split): parameters chosen on it would be fitted to the evaluated queries; name another split (e.g. train), or set tune.allow_eval_split: true to tune on it on purpose`,
      );
  for (const { index, entry } of rerankers.valid)
    if (entry.type !== 'none') rerankerKind(entry.type).check?.(entry as never, index, rerankers.all, (path, message) => issue(['rerankers', index, ...path], message));

  const seenR = new Map<string, number>();
  rerankers.all.forEach((r, i) => {
    const j = seenR.get(r.id);
    if (j !== undefined && r.id !== '') issue(['rerankers', i, 'id'], `duplicate reranker id "${r.id}" (also rerankers[${j}])`);
    if (j === undefined) seenR.set(r.id, i);
  });
  for (const { index, entry: rr } of rerankers.valid) {
    if (rr.id === 'none' && rr.type !== 'none') issue(['rerankers', index, 'id'], '"none" is reserved for the no-reranker entry');
    if (!('depth' in rr)) continue;
    const depths = Array.isArray(rr.depth) ? rr.depth : [rr.depth];
    const deepest = Math.max(...depths);
    // One problem per reranker, naming every first stage too shallow for it.
    const shallow = retrievers.valid.flatMap(({ index: i, entry: r }) => (deepest > r.top_k ? [`retrievers[${i}] ("${r.id}") top_k ${r.top_k}`] : []));
    if (shallow.length > 0)
      issue(
        ['rerankers', index, 'depth'],
        `depth ${deepest} exceeds ${shallow.length > 1 ? `${shallow.slice(0, -1).join(', ')} and ${shallow.at(-1)}` : shallow[0]}: the reranker can only see what the first stage returned`,
      );
    if (new Set(depths).size !== depths.length) issue(['rerankers', index, 'depth'], 'a depth is listed twice');
  }
  if (value.expect !== undefined) {
    const { valid } = entriesOf(value.expect, expectEntrySchema);
    expectationProblems(valid, configTargets(value, retrievers, rerankers), (path, text) => issue(['expect', ...path], text));
  }
  return problems;
}

/**
 * What the expectations of a config may name: its run ids (every retriever × reranker run, a depth
 * list expanded) when every retriever and reranker entry is valid, and its metric keys when k and
 * measures are; each left out otherwise (their own problems are reported).
 */
function configTargets(
  value: Record<string, unknown>,
  retrievers: ReturnType<typeof entriesOf<RetrieverConfig>>,
  rerankers: ReturnType<typeof entriesOf<RawRerankerEntry>>,
): Partial<ExpectTargets> {
  const t: { runs?: string[]; metrics?: string[] } = {};
  const allValid = (l: { valid: unknown[]; all: unknown[] }) => l.valid.length === l.all.length;
  if (Array.isArray(value.retrievers) && allValid(retrievers) && (value.rerankers === undefined || (Array.isArray(value.rerankers) && allValid(rerankers)))) {
    const list: RawRerankerEntry[] = value.rerankers === undefined ? [{ id: 'none', type: 'none' }] : rerankers.valid.map((r) => r.entry);
    const expanded = expandRerankers(list);
    if (typeof expanded !== 'string') t.runs = retrievers.valid.flatMap(({ entry: r }) => expanded.map((rr) => `${r.id}/${rr.id}`));
  }
  const k = kSchema.safeParse(value.k);
  const measures = measuresSchema.safeParse(value.measures);
  if (k.success && measures.success) {
    try {
      t.metrics = experimentMeasures(k.data, measures.data ?? []).map(measureKey);
    } catch {
      // a bad k or measure is its own problem
    }
  }
  return t;
}

/**
 * Checks YAML text against the schema and the rules between entries, collecting every problem (a
 * text that is not YAML, or not a mapping, throws its one-line UserError). `file` is used in
 * messages and to resolve relative paths.
 */
export function checkConfigText(text: string, file: string): ConfigCheck {
  const { value, lineOf: lines } = readYaml(text, file);
  const abs = absolutePaths(file);
  const retrievers = entriesOf(value.retrievers, schemas().retrieverSchema as z.ZodType<RetrieverConfig>);
  const rerankers = entriesOf(value.rerankers, schemas().rerankerSchema as z.ZodType<RawRerankerEntry>);

  // What the plan's resource checks look at: the parts valid on their own, paths made absolute.
  const parts: ConfigParts = {
    configDir: dirname(resolve(file)),
    retrievers: retrievers.valid.map(({ index, entry }) => ({ index, entry: (retrieverKind(entry.type).resolve?.(entry, abs) ?? entry) as RetrieverConfig })),
    rerankers: rerankers.valid.flatMap(({ index, entry }) => (entry.type === 'none' ? [] : [{ index, entry: firstDepth(entry) }])),
  };
  const ds = parseEntry(value.dataset, datasetSchema);
  if (ds !== undefined) parts.dataset = resolveDatasetPaths(ds, abs);
  const path = z.string().min(1);
  const output = path.safeParse(value.output);
  if (output.success) parts.output = abs(output.data);
  const cacheDir = path.safeParse(value.cache_dir);
  if (cacheDir.success) parts.cacheDir = abs(cacheDir.data);

  const check: ConfigCheck = { file, value, problems: crossEntryProblems(value, retrievers, rerankers), lineOf: lines, parts };
  const res = schemas().configSchema.safeParse(value);
  if (!res.success) check.problems.unshift(...schemaProblems(res.error.issues, value));
  if (check.problems.length > 0 || !res.success) return check;
  const c = res.data;
  const expanded = expandRerankers(c.rerankers);
  if (typeof expanded === 'string') {
    check.problems = [{ path: ['rerankers'], text: expanded }];
    return check;
  }
  check.config = {
    ...c,
    file: resolve(file),
    text,
    dataset: resolveDatasetPaths(c.dataset, abs),
    retrievers: c.retrievers.map((r) => retrieverKind(r.type).resolve?.(r, abs) ?? r) as RetrieverConfig[],
    rerankers: expanded,
    ...(c.cache_dir !== undefined ? { cache_dir: abs(c.cache_dir) } : {}),
    output: abs(c.output),
    k: [...new Set(c.k)].sort((a, b) => a - b),
  };
  return check;
}

/** Relative paths of a config resolve against its folder; a leading `~/` or `$HOME` is the home folder (util/paths.ts expandHome). */
function absolutePaths(file: string): (p: string) => string {
  const base = dirname(resolve(file));
  return (p) => resolve(base, expandHome(p));
}

function resolveDatasetPaths(ds: RawConfig['dataset'], abs: (p: string) => string): RawConfig['dataset'] {
  return {
    ...ds,
    ...(ds.path !== undefined ? { path: abs(ds.path) } : {}),
    ...(ds.skill_filter !== undefined && 'ids_file' in ds.skill_filter ? { skill_filter: { ids_file: abs(ds.skill_filter.ids_file) } } : {}),
  };
}

/**
 * Each problem as one self-contained line, `file:line: key.path: text` (the line when the key, or a
 * parent of it, is in the file), in the order of the file; problems with no line, then those that
 * name their own place, after; a line given twice once.
 */
export function formatProblems(file: string, lineOf: ConfigCheck['lineOf'], problems: readonly ConfigProblem[]): string[] {
  const rows = problems.map((p, i) => {
    if (p.path === undefined) return { rank: 2, line: 0, i, text: p.text };
    const line = lineOf(p.path);
    return { rank: line === undefined ? 1 : 0, line: line ?? 0, i, text: `${line !== undefined ? `${file}:${line}` : file}: ${formatKeyPath(p.path)}: ${p.text}` };
  });
  rows.sort((a, b) => a.rank - b.rank || a.line - b.line || a.i - b.i);
  return [...new Set(rows.map((r) => r.text))];
}

/** Throws the UserError listing every problem, when there is one. */
export function throwProblems(file: string, lineOf: ConfigCheck['lineOf'], problems: readonly ConfigProblem[]): void {
  if (problems.length > 0) throw new UserError(formatProblems(file, lineOf, problems));
}

/**
 * Parses and validates YAML text. `file` is used in messages and to resolve relative paths. Every
 * problem is reported, each on its own line (UserError.problems), not only the first.
 */
export function parseConfig(text: string, file: string): Config {
  const check = checkConfigText(text, file);
  throwProblems(file, check.lineOf, check.problems);
  return check.config!;
}

/** A model reranker entry as its kind's `resources` check takes it (a depth list: its first depth). */
export type ModelRerankerPart = Omit<RawModelRerankerConfig, 'depth'> & { depth: number };

/**
 * The parts of a config that the plan's resource checks look at (src/pipeline/resources.ts), each
 * entry validated on its own with its paths made absolute, so that the models and files of the
 * valid entries are checked even when another part of the config has a problem.
 */
export interface ConfigParts {
  /** Folder of the config file. */
  configDir: string;
  dataset?: RawConfig['dataset'];
  /** Retriever entries that validate, with their position in `retrievers`. */
  retrievers: { index: number; entry: RetrieverConfig }[];
  /** Model reranker entries that validate (not `none`), with their position in `rerankers`. */
  rerankers: { index: number; entry: ModelRerankerPart }[];
  output?: string;
  /** The config's `cache_dir`, absolute. */
  cacheDir?: string;
}

function firstDepth(r: RawModelRerankerConfig): ModelRerankerPart {
  return { ...r, depth: Array.isArray(r.depth) ? r.depth[0]! : r.depth } as ModelRerankerPart;
}

/** The parts of a validated config (its rerankers' depth lists folded back into one entry each). */
export function partsOfConfig(config: Config): ConfigParts {
  const rerankers: ConfigParts['rerankers'] = [];
  const groups: string[] = [];
  for (const r of config.rerankers) {
    const group = 'group' in r ? r.group : r.id;
    if (groups.includes(group)) continue;
    groups.push(group);
    if (isModelReranker(r)) {
      const { group: _group, ...entry } = r;
      rerankers.push({ index: groups.length - 1, entry: entry as ModelRerankerPart });
    }
  }
  return {
    configDir: dirname(config.file),
    dataset: config.dataset,
    retrievers: config.retrievers.map((entry, index) => ({ index, entry })),
    rerankers,
    output: config.output,
    ...(config.cache_dir !== undefined ? { cacheDir: config.cache_dir } : {}),
  };
}

/** Where the keys of a config's text are (for the problems of a config given as a value: its `text`). */
export function linesOfText(text: string): ConfigCheck['lineOf'] {
  try {
    return readYaml(text, '').lineOf;
  } catch {
    return () => undefined;
  }
}

/**
 * One entry per reranker run: a depth list becomes `<id>-k<depth>` entries (the results folder names
 * say which depth they hold); ids must stay unique after the expansion (else: the problem).
 */
function expandRerankers(list: RawConfig['rerankers']): RerankerConfig[] | string {
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
      if (prev !== undefined) return `the run id "${e.id}" of "${'group' in e ? e.group : e.id}" is also the id of "${prev}"; rename one`;
      seen.set(e.id, 'group' in e ? e.group : e.id);
      out.push(e);
    }
  }
  return out;
}

/** The text of a config file, or the one-line UserError naming why it cannot be read. */
export function readConfigText(file: string): string {
  return readBoundedSync(file, 'config', MAX_CONFIG_BYTES).toString('utf8');
}

export function loadConfig(file: string): Config {
  return parseConfig(readConfigText(file), file);
}

/** An `--expect` file checked on its own: its valid entries, and the problems of the others (paths `expect[i].key`). */
export interface ExpectFileCheck {
  file: string;
  /** The entries that are valid on their own, with their position in the list. */
  entries: { index: number; entry: ExpectEntry }[];
  problems: ConfigProblem[];
  /** Line of a problem's path (`['expect', i, key]`) in the file. */
  lineOf: ConfigCheck['lineOf'];
}

/**
 * Reads and checks the file of `--expect` (YAML or JSON, bounded like a config): a list of
 * expectations (pipeline/expect.ts), or a mapping whose one key `expect:` holds that list, so that a
 * config's `expect:` block can be cut out as it is. Whether its runs and metrics exist is the
 * caller's check (`expectationProblems`, against the experiment or the score). A file that cannot be
 * read, or is not YAML, is its one-line UserError.
 */
export function checkExpectFile(file: string): ExpectFileCheck {
  const text = readBoundedSync(file, 'expect file', MAX_CONFIG_BYTES).toString('utf8');
  const { value, lineOf: lines } = readYamlValue(text, file);
  let wrapped: Record<string, unknown>;
  let lineOfPath: ConfigCheck['lineOf'] = lines;
  if (Array.isArray(value)) {
    wrapped = { expect: value };
    lineOfPath = (path) => (path[0] === 'expect' ? lines(path.slice(1)) : undefined);
  } else if (value !== null && typeof value === 'object') wrapped = value as Record<string, unknown>;
  else throw new UserError(`${file}: the expect file must be a list of expectations like [{run: bm25/none, metric: NDCG@10, value: 75.08, tolerance: 0.05}], or a mapping with that list under expect:`);
  const res = z.strictObject({ expect: expectListSchema }).safeParse(wrapped);
  const problems = res.success ? [] : schemaProblems(res.error.issues, wrapped);
  return { file, entries: entriesOf(wrapped.expect, expectEntrySchema).valid, problems, lineOf: lineOfPath };
}
