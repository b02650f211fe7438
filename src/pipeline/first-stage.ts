/**
 * First-stage retrieval: turns one retriever config into a Run over every
 * evaluated query (a query with no hits is present with an empty list).
 * A fusion retriever fuses the runs of retrievers computed before it.
 */
import { resolve, isAbsolute } from 'node:path';
import type { Query, Run, ScoredDoc } from '../core/types.js';
import type { RetrieverConfig } from './config.js';
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import { readRunFile } from '../formats/run-file.js';
import { trecOrder } from '../metrics/rank.js';
import { bm25Stage } from '../retrieval/bm25/retriever.js';
import { denseRetrieve } from '../retrieval/dense/retriever.js';
import { remoteDenseRetrieve } from '../retrieval/dense/remote-retriever.js';
import { endpointFromConfig } from './config.js';
import { modelsDir } from '../util/paths.js';
import { fuse, DEFAULT_NORM, DEFAULT_RRF_K, type FusionSpec } from '../fusion/fuse.js';

export interface Doc {
  id: string;
  text: string;
}

export interface FirstStageOutput {
  run: Run;
  /** Exact top-k, when the run came from an approximate (HNSW) index. */
  exactRun?: Run;
  /** Every resolved parameter and what the stage measured (goes to the manifest). */
  info: Record<string, unknown>;
}

/** Keeps the top `k` of each query by trec order and makes sure every query is present. */
export function completeRun(run: Run, queries: readonly Query[], k: number): Run {
  const out: Run = new Map();
  for (const q of queries) out.set(q.id, trecOrder(run.get(q.id) ?? []).slice(0, k));
  return out;
}

/** A model reference from a config: paths (./x, ../x, /x) resolve against the config folder. */
export function resolveModelRef(ref: string, configDir: string): string {
  if (ref.startsWith('./') || ref.startsWith('../') || isAbsolute(ref)) return resolve(configDir, ref);
  return ref;
}

export async function runFirstStage(
  ctx: StageContext,
  r: RetrieverConfig,
  docs: readonly Doc[],
  queries: readonly Query[],
  configDir: string,
  /** First stages already computed, by retriever id (the inputs of a fusion). */
  earlier: ReadonlyMap<string, FirstStageOutput> = new Map(),
): Promise<FirstStageOutput> {
  switch (r.type) {
    case 'fusion':
      return fusionStage(r, queries, earlier);
    case 'bm25': {
      const out = await bm25Stage(ctx, { k1: r.k1, b: r.b, topK: r.top_k }, docs, queries.map((q) => ({ id: q.id, text: q.text })));
      return { run: completeRun(out.run, queries, r.top_k), info: { type: 'bm25', k1: r.k1, b: r.b, top_k: r.top_k, ...out.info } };
    }
    case 'dense': {
      const index =
        r.index.type === 'hnsw'
          ? { type: 'hnsw' as const, M: r.index.M, efConstruction: r.index.ef_construction, efSearch: r.index.ef_search, seed: r.index.seed }
          : { type: 'exact' as const };
      if (r.endpoint) {
        // A served model: `model` is a name for the server, the presets and the cache, never a path.
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
            index,
          },
          [...docs],
          queries.map((q) => ({ id: q.id, text: q.text })),
        );
        return {
          run: completeRun(out.run, queries, r.top_k),
          ...(out.exactRun ? { exactRun: completeRun(out.exactRun, queries, r.top_k) } : {}),
          info: { type: 'dense', remote: true, ...(out.info as unknown as Record<string, unknown>) },
        };
      }
      const spec = {
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
        index,
      };
      const out = await denseRetrieve(ctx, spec, [...docs], queries.map((q) => ({ id: q.id, text: q.text })));
      return {
        run: completeRun(out.run, queries, r.top_k),
        ...(out.exactRun ? { exactRun: completeRun(out.exactRun, queries, r.top_k) } : {}),
        info: { type: 'dense', models_dir: modelsDir(), ...(out.info as unknown as Record<string, unknown>) },
      };
    }
    case 'run': {
      const saved = await readRunFile(r.path);
      const known = new Set(docs.map((d) => d.id));
      const wanted = new Set(queries.map((q) => q.id));
      let missingQueries = 0;
      let unknownDocs = 0;
      let extraQueries = 0;
      for (const qid of saved.keys()) if (!wanted.has(qid)) extraQueries++;
      const run: Run = new Map();
      for (const q of queries) {
        const list: ScoredDoc[] | undefined = saved.get(q.id);
        if (!list) missingQueries++;
        for (const d of list ?? []) if (!known.has(d.docId)) unknownDocs++;
        run.set(q.id, list ?? []);
      }
      if (saved.size > 0 && missingQueries === queries.length)
        throw new UserError(`${r.path}: no query id of the run matches the dataset's queries (first run query: "${[...saved.keys()][0]}")`);
      return {
        run: completeRun(run, queries, r.top_k),
        info: { type: 'run', path: r.path, top_k: r.top_k, queries_missing_from_run: missingQueries, run_queries_not_in_dataset: extraQueries, docs_not_in_corpus: unknownDocs },
      };
    }
  }
}

type FusionConfig = Extract<RetrieverConfig, { type: 'fusion' }>;

/**
 * Fuses the runs of the inputs as they were computed and evaluated (for an HNSW input, its
 * approximate run); nothing is recomputed. Each input contributes only its top_k candidates.
 */
export function fusionStage(r: FusionConfig, queries: readonly Query[], earlier: ReadonlyMap<string, FirstStageOutput>): FirstStageOutput {
  const inputs = r.inputs.map((id, j) => {
    const out = earlier.get(id);
    if (!out) throw new UserError(`retrievers.${r.id}.inputs[${j}]: "${id}" has not been computed before this fusion (list it earlier)`);
    return out;
  });
  const weights = r.weights ?? r.inputs.map(() => 1);
  const spec: FusionSpec =
    r.method === 'rrf'
      ? { method: 'rrf', rrfK: r.rrf_k ?? DEFAULT_RRF_K, weights, topK: r.top_k }
      : { method: r.method, norm: r.norm ?? DEFAULT_NORM, weights, topK: r.top_k };
  const run = completeRun(fuse(inputs.map((x) => x.run), spec), queries, r.top_k);
  let candidates = 0;
  for (const q of queries) candidates += new Set(inputs.flatMap((x) => (x.run.get(q.id) ?? []).map((d) => d.docId))).size;
  return {
    run,
    info: {
      type: 'fusion',
      method: r.method,
      inputs: r.inputs,
      ...(spec.method === 'rrf' ? { rrf_k: spec.rrfK } : { norm: spec.norm }),
      weights,
      top_k: r.top_k,
      input_candidates_max: Object.fromEntries(r.inputs.map((id, j) => [id, Math.max(0, ...[...inputs[j]!.run.values()].map((l) => l.length))])),
      candidates_per_query: queries.length ? candidates / queries.length : 0,
      note: "fusion sees only each input's top_k candidates",
    },
  };
}
