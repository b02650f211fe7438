/**
 * `type: fusion`: hybrid fusion of retrievers listed before it (src/fusion/). It reads their runs
 * as they were computed and evaluated (for an HNSW input, its approximate run); nothing is
 * recomputed, and each input contributes only its top_k candidates. `rrf_k` only with rrf, `norm`
 * only with combsum/combmnz; the defaults (60, min-max, weights all 1) are filled in at load.
 *
 * `tune:` (optional): the fusion's parameters chosen by a grid search on another split
 * (src/pipeline/fusion-tuning.ts, src/fusion/tune.ts); the entry's own values stand for a
 * parameter the grid does not list. Tuning on the evaluated split is refused unless
 * `allow_eval_split: true` (config.ts).
 */
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import { defineFirstStage, type ConfigIssue, type StageConfig } from '../../core/stages.js';
import { DEFAULT_NORM, DEFAULT_RRF_K, FUSION_METHODS, fuse, type FusionSpec } from '../../fusion/fuse.js';
import { NORM_METHODS } from '../../fusion/normalize.js';
import { idSchema, posInt } from '../kind-config/config-parts.js';
import { parseMeasure } from '../../metrics/measures.js';
import { suggestion } from '../kind-config/suggest.js';

const schema = z.strictObject({
  id: idSchema,
  type: z.literal('fusion'),
  inputs: z.array(z.string().min(1)).min(2),
  method: z.enum(FUSION_METHODS),
  rrf_k: z.number().min(0).optional(),
  norm: z.enum(NORM_METHODS).optional(),
  weights: z.array(z.number().min(0)).optional(),
  top_k: posInt.default(20),
  tune: z
    .strictObject({
      /** The split whose queries and gold choose the parameters (its own skills file is the corpus). */
      split: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "expected a split name (letters, digits, '.', '_', '-')"),
      /** The measure maximised, e.g. NDCG@10. */
      metric: z.string().superRefine((s, ctx) => {
        try {
          parseMeasure(s);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
        }
      }),
      grid: z.strictObject({
        rrf_k: z.array(z.number().min(0)).min(1).optional(),
        norm: z.array(z.enum(NORM_METHODS)).min(1).optional(),
        weights: z.array(z.array(z.number().min(0))).min(1).optional(),
      }),
      /** Only the first N evaluated queries of the tuning split (file order). */
      max_queries: posInt.optional(),
      /** true: tuning on the split being evaluated is allowed (refused otherwise). */
      allow_eval_split: z.boolean().default(false),
    })
    .optional(),
});

type FusionConfig = z.output<typeof schema>;

/** A fusion's inputs must name distinct retrievers listed before it; weights match inputs; rrf_k/norm fit the method. */
function checkFusion(r: FusionConfig, i: number, all: readonly StageConfig[], issue: ConfigIssue): void {
  const earlierIds = all.slice(0, i).map((e) => e.id).filter((id) => id !== ''); // '': an entry without an id (reported by the schema)
  const seen = new Map<string, number>();
  r.inputs.forEach((input, j) => {
    const dup = seen.get(input);
    if (dup !== undefined) issue(['inputs', j], `"${input}" is listed twice (also inputs[${dup}])`);
    seen.set(input, j);
    if (earlierIds.includes(input)) return;
    const later = all.findIndex((e, k) => k >= i && e.id === input);
    if (input === r.id) issue(['inputs', j], `a fusion cannot take itself as an input`);
    else if (later >= 0)
      issue(['inputs', j], `"${input}" is listed after this fusion (retrievers[${later}]); a fusion reads runs already computed, so list its inputs before it`);
    else if (earlierIds.length === 0) issue(['inputs', j], `unknown retriever "${input}": no retriever is listed before this fusion (list its inputs first)`);
    else issue(['inputs', j], `"${input}" is not a retriever listed before this fusion${suggestion(input, [...new Set(earlierIds)])}`);
  });
  if (r.weights !== undefined && r.weights.length !== r.inputs.length)
    issue(['weights'], `expected one weight per input (${r.inputs.length}), got ${r.weights.length}`);
  else if (r.weights !== undefined && !r.weights.some((w) => w > 0)) issue(['weights'], 'at least one weight must be positive');
  if (r.method === 'rrf' && r.norm !== undefined) issue(['norm'], 'applies to combsum and combmnz only (rrf uses ranks, not scores)');
  if (r.method !== 'rrf' && r.rrf_k !== undefined) issue(['rrf_k'], `applies to method rrf only (this fusion is ${r.method})`);
  if (r.tune) checkTune(r, r.tune, all, issue);
}

/** A `tune:` block: a grid that fits the method and the inputs, no value twice, inputs that can be rerun on another split. */
function checkTune(r: FusionConfig, t: NonNullable<FusionConfig['tune']>, all: readonly StageConfig[], issue: ConfigIssue): void {
  const g = t.grid;
  if (g.rrf_k === undefined && g.norm === undefined && g.weights === undefined) issue(['tune', 'grid'], 'lists no parameter to try: give rrf_k, norm or weights (each a list of values)');
  if (r.method === 'rrf' && g.norm !== undefined) issue(['tune', 'grid', 'norm'], 'applies to combsum and combmnz only (rrf uses ranks, not scores)');
  if (r.method !== 'rrf' && g.rrf_k !== undefined) issue(['tune', 'grid', 'rrf_k'], `applies to method rrf only (this fusion is ${r.method})`);
  const twice = (key: string, values: readonly unknown[]) => {
    const seen = new Map<string, number>();
    values.forEach((v, j) => {
      const s = JSON.stringify(v);
      const first = seen.get(s);
      if (first !== undefined) issue(['tune', 'grid', key, j], `${s} is listed twice (also ${key}[${first}])`);
      else seen.set(s, j);
    });
  };
  if (g.rrf_k) twice('rrf_k', g.rrf_k);
  if (g.norm) twice('norm', g.norm);
  if (g.weights) {
    twice('weights', g.weights);
    g.weights.forEach((w, j) => {
      if (w.length !== r.inputs.length) issue(['tune', 'grid', 'weights', j], `expected one weight per input (${r.inputs.length}), got ${w.length}`);
      else if (!w.some((x) => x > 0)) issue(['tune', 'grid', 'weights', j], 'at least one weight must be positive');
    });
  }
  r.inputs.forEach((input, j) => {
    const type = all.find((e) => e.id === input)?.type;
    if (type === 'run' || type === 'embeddings')
      issue(['inputs', j], `"${input}" is a ${type === 'run' ? 'saved run (type run)' : 'retriever over precomputed vectors (type embeddings)'}: its files hold one split only, so it cannot be run on the tuning split ${JSON.stringify(t.split)}; tune a fusion of retrievers that compute from the texts`);
  });
}

function fusionSpec(r: FusionConfig): FusionSpec {
  const weights = r.weights ?? r.inputs.map(() => 1);
  return r.method === 'rrf'
    ? { method: 'rrf', rrfK: r.rrf_k ?? DEFAULT_RRF_K, weights, topK: r.top_k }
    : { method: r.method, norm: r.norm ?? DEFAULT_NORM, weights, topK: r.top_k };
}

/** The entry's parameters set to a point of its grid (what runs on the evaluated split once tuned). */
export function withFusionSpec<C extends { method: string; rrf_k?: number; norm?: string; weights?: number[] }>(r: C, spec: FusionSpec): C {
  return spec.method === 'rrf' ? { ...r, rrf_k: spec.rrfK, weights: [...spec.weights] } : { ...r, norm: spec.norm, weights: [...spec.weights] };
}

export { fusionSpec };

export const fusionRetriever = defineFirstStage({
  type: 'fusion',
  schema,
  resolve: (r) => ({
    ...r,
    ...(r.method === 'rrf' ? { rrf_k: r.rrf_k ?? DEFAULT_RRF_K } : { norm: r.norm ?? DEFAULT_NORM }),
    weights: r.weights ?? r.inputs.map(() => 1),
  }),
  check: checkFusion,
  describe(r) {
    const p = r.method === 'rrf' ? `rrf_k=${r.rrf_k}` : `norm=${r.norm}`;
    const tune = r.tune ? `; tuned on split ${r.tune.split} by ${r.tune.metric} over a grid, the values above where the grid lists none` : '';
    return `fusion ${r.method} of ${r.inputs.join(' + ')} (${p}, weights=[${(r.weights ?? []).join(', ')}], top_k=${r.top_k}${tune})`;
  },
  async run(_ctx, r, { queries, earlier }) {
    const inputs = r.inputs.map((id, j) => {
      const out = earlier.get(id);
      if (!out) throw new UserError(`retrievers.${r.id}.inputs[${j}]: "${id}" has not been computed before this fusion (list it earlier)`);
      return out;
    });
    const spec = fusionSpec(r);
    const run = fuse(
      inputs.map((x) => x.run),
      spec,
    );
    let candidates = 0;
    for (const q of queries) candidates += new Set(inputs.flatMap((x) => (x.run.get(q.id) ?? []).map((d) => d.docId))).size;
    return {
      run,
      info: {
        type: 'fusion',
        method: r.method,
        inputs: r.inputs,
        ...(spec.method === 'rrf' ? { rrf_k: spec.rrfK } : { norm: spec.norm }),
        weights: spec.weights,
        top_k: r.top_k,
        input_candidates_max: Object.fromEntries(r.inputs.map((id, j) => [id, Math.max(0, ...[...inputs[j]!.run.values()].map((l) => l.length))])),
        candidates_per_query: queries.length ? candidates / queries.length : 0,
        note: "fusion sees only each input's top_k candidates",
      },
    };
  },
});
