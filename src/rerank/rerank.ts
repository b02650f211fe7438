/**
 * The second stage: `createLocalReranker` (spec + a kind's scorer → loaded, cached reranker) and
 * `rerankRun` (first-stage run → reranked run). The kinds (src/pipeline/rerankers/) hold their own
 * loaders; nothing here switches on a kind.
 *
 * Pool semantics (docs/protocol.md §5): per query, the first `depth` first-stage
 * candidates in trec_eval order (score desc, doc id desc); candidates whose id is not in the
 * corpus are then skipped (and counted); a query without candidates gets an empty list. The
 * reranked list holds only the pool, each candidate with the reranker's score (no fusion).
 * Pairs of all queries are scored together (batches across queries, sorted by length).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { Run, ScoredDoc } from '../core/types.js';
import { scoreOrder } from '../metrics/rank.js';
import { gloveRerankerDir } from '../models/glove/names.js';
import { assertHubFilesPresent, configureTransformersEnv, describeModel, resolveModel } from '../models/resolve.js';
import type { StageContext } from '../core/context.js';
import { modelsDir } from '../util/paths.js';
import { WindowedReranker } from './windowed-reranker.js';
import { requiredFiles } from './model-files.js';
import { modelFingerprint } from './model-fingerprint.js';
import { defaultThreads } from './session-options.js';
import { checkDtype } from '../models/dtype.js';
import { ScoreCache, scorerKey } from './score-cache.js';
import { CacheStore } from '../cache/store.js';
import { DEFAULT_CONCURRENCY, resolveRerankerSpec } from './spec.js';
import { describeScorePrecision, roundScore, type ScoreKind, type ScorePrecision } from './score-precision.js';
import type { RerankPair, Reranker, RerankerSpec } from './types.js';
import type { ModelLoadOptions } from './load-model.js';
import type { RerankerPreset } from '../models/reranker-presets.js';

/** Bump when a change alters scores for the same model and settings (invalidates the score cache). */
const SCORER_VERSION = 1;

/** How a kind's loader is called: the model resolved and the common settings. */
export interface LocalLoad extends ModelLoadOptions {
  batchSize: number;
  concurrency: number;
  /** The config's or preset's token budget, else the scorer's default (undefined: the model's own). */
  maxTokens: number | undefined;
  log: (line: string) => void;
}

/**
 * What a kind of local model reranker brings to `createLocalReranker` (the kind's file,
 * src/pipeline/rerankers/, declares it): its defaults, what its raw scores are, the settings of
 * its own beyond the common ones (`X`: part of the score cache key and of describe()) and its loader.
 */
export interface LocalScorer<X extends Record<string, unknown> = Record<string, unknown>> {
  type: string;
  /** Pairs per forward pass when neither the config nor the preset says (scripts/bench-rerank.mjs). */
  batchSize: number;
  /** Token budget when neither the config nor the preset says; undefined: the model's own. */
  maxTokens?: number;
  /** What its raw scores are (the rounding rule of `score_precision`). */
  scoreKind: ScoreKind;
  /** Its own settings, from the preset the model resolved to (undefined: a model without one). */
  settings(preset: RerankerPreset | undefined): X;
  load(o: LocalLoad, settings: X): Promise<Reranker>;
}

/**
 * Loads the local model reranker a spec asks for with `scorer` (resolving the preset and the
 * model, building the bundled GloVe scorer on demand, checking the files offline, choosing the
 * dtype); with `ctx.useCache`, wrapped in the on-disk score cache; scores rounded to the spec's
 * precision after the cache.
 */
export async function createLocalReranker<X extends Record<string, unknown>>(ctx: StageContext, spec: RerankerSpec, scorer: LocalScorer<X>): Promise<Reranker> {
  const models = modelsDir();
  const r = resolveRerankerSpec(spec, scorer, {
    exportFolder: (p) => (existsSync(join(models, p.name, 'config.json')) ? join(models, p.name) : undefined),
  });
  const settings = scorer.settings(r.preset);
  let ref = r.modelRef;
  if (r.local === 'glove-6b-100d-maxsim') {
    // Loaded on demand: only the bundled scorer needs the GloVe converter.
    const { ensureGloveModels } = await import('../models/glove/convert.js');
    await ensureGloveModels(models, { log: ctx.log });
    ref = gloveRerankerDir(models);
  }
  let resolved;
  const loc = { offline: ctx.offline, cacheDir: ctx.cacheDir, modelsDir: models };
  try {
    resolved = resolveModel(ref, loc);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`reranker "${r.id}": ${e.message}`);
    throw e;
  }
  // transformers.js only now: a run without a model reranker never loads it.
  const [{ env }, { configDtype, loadModelConfig }] = await Promise.all([import('@huggingface/transformers'), import('./model-config.js')]);
  configureTransformersEnv(loc, env);
  // Explicit, preset, else what the model's config asks transformers.js for, else fp32.
  let dtype = r.dtype;
  if (dtype === undefined) {
    try {
      dtype = configDtype(await loadModelConfig(resolved.location, resolved.revision));
    } catch {
      /* no readable config: the loader reports it */
    }
  }
  dtype ??= 'fp32';
  checkDtype(dtype, `reranker "${r.id}": dtype`);
  try {
    assertHubFilesPresent(resolved, requiredFiles(dtype), ctx.offline);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`reranker "${r.id}": ${e.message}`);
    throw e;
  }
  const threads = r.threads ?? defaultThreads();
  ctx.log(`reranker ${r.id}: loading ${describeModel(resolved)} (${r.type}, ${dtype}, ${threads} threads)`);
  const inner = await scorer.load(
    {
      id: r.id,
      location: resolved.location,
      ...(resolved.revision !== undefined ? { revision: resolved.revision } : {}),
      dtype,
      threads,
      batchSize: r.batchSize,
      concurrency: DEFAULT_CONCURRENCY,
      maxTokens: r.maxTokens,
      log: ctx.log,
    },
    settings,
  );

  const identity: Record<string, unknown> = {
    id: r.id,
    type: r.type,
    model: spec.model,
    ...(r.preset ? { preset: r.preset.name, sourceModel: r.preset.sourceModel } : {}),
    location: describeModel(resolved),
    source: resolved.source,
    ...(r.preset?.note ? { note: r.preset.note } : {}),
  };

  let cache: ScoreCache | undefined;
  if (ctx.useCache) {
    const store = CacheStore.of(ctx);
    const fingerprint = await modelFingerprint(resolved.folder, dtype, store);
    if (fingerprint === undefined) {
      ctx.log(`reranker ${r.id}: score cache off (model files not found under ${resolved.folder})`);
    } else {
      const d = inner.describe();
      // Everything that changes a score's bits: a batch's tensor shape is fixed by the pair's length
      // bucket and the batch size (util/batch-plan.ts), so batch size and padding mode are part of the key.
      const key = {
        v: SCORER_VERSION,
        fingerprint,
        dtype,
        scorer: d.scorer,
        maxTokens: d.maxTokens,
        batching: 'length-buckets-v1',
        batchSize: d.batchSize,
        ...(typeof d.padding === 'string' ? { padding: d.padding } : {}),
        // A Qwen3-style body's special tokens (none for Qwen3's own tokenizer, so its keys are unchanged).
        ...(Array.isArray(d.bodySpecialTokens) ? { bodySpecialTokens: d.bodySpecialTokens } : {}),
        ...settings,
      };
      cache = ScoreCache.open(store, scorerKey(key), { ...key, model: describeModel(resolved) });
    }
  }
  const windowed = new WindowedReranker(inner, cache ? { cache } : {});
  return withScorePrecision(
    {
      describe: () => ({ ...identity, ...windowed.describe() }),
      score: (pairs, onProgress) => windowed.score(pairs, onProgress),
      stats: () => windowed.stats(),
      dispose: () => windowed.dispose(),
    },
    r.scorePrecision,
    scorer.scoreKind,
  );
}

/**
 * Rounds a reranker's scores to `precision` (score-precision.ts) after the score cache, which keeps
 * the model's own values, so one cache serves every precision. Recorded in `describe()`.
 */
export function withScorePrecision(inner: Reranker, precision: ScorePrecision, kind: ScoreKind): Reranker {
  return {
    describe: () => ({ ...inner.describe(), scorePrecision: precision, scorePrecisionRule: describeScorePrecision(precision, kind) }),
    score: async (pairs, onProgress) => (await inner.score(pairs, onProgress)).map((s) => roundScore(s, precision, kind)),
    ...(inner.stats ? { stats: () => inner.stats!() } : {}),
    ...(inner.dispose ? { dispose: () => inner.dispose!() } : {}),
  };
}

export type RerankInfo = {
  /** Pairs scored (pool entries over all queries). */
  pairs: number;
  seconds: number;
  pairsPerSecond: number;
  /** Pool candidates skipped because their id is not in the corpus. */
  skippedUnknownDocs: number;
  /** Pairs cut to the token budget (model calls of this run only). */
  truncatedPairs: number;
  /** Pairs answered by the score cache. */
  cachedPairs: number;
};

/**
 * The pool of one query, as the official code cuts it: the first `depth` candidates by score,
 * ties in the first stage's own order (metrics/rank.ts `scoreOrder`), then unknown ids dropped.
 */
export function rerankPool(candidates: readonly ScoredDoc[], depth: number, docs: ReadonlyMap<string, string>): { pool: string[]; skipped: number } {
  const top = scoreOrder(candidates).slice(0, Math.max(0, depth));
  const pool: string[] = [];
  let skipped = 0;
  for (const c of top) {
    if (docs.has(c.docId)) pool.push(c.docId);
    else skipped++;
  }
  return { pool, skipped };
}

export async function rerankRun(
  ctx: StageContext,
  reranker: Reranker,
  firstStage: Run,
  queries: Map<string, string>,
  docs: ReadonlyMap<string, string>,
  depth: number,
): Promise<{ run: Run; info: RerankInfo }> {
  const started = performance.now();
  const pairs: RerankPair[] = [];
  const owners: { qid: string; docId: string }[] = [];
  const run: Run = new Map();
  let skippedUnknownDocs = 0;
  for (const [qid, candidates] of firstStage) {
    run.set(qid, []);
    const { pool, skipped } = rerankPool(candidates, depth, docs);
    skippedUnknownDocs += skipped;
    if (pool.length === 0) continue;
    const query = queries.get(qid);
    if (query === undefined) throw new UserError(`rerank: query "${qid}" of the first-stage run has no text`);
    for (const docId of pool) {
      pairs.push({ query, doc: docs.get(docId)! });
      owners.push({ qid, docId });
    }
  }

  const before = reranker.stats?.();
  const bar = ctx.progress('rerank', pairs.length, 'pairs');
  let scores: number[];
  try {
    scores = pairs.length > 0 ? await reranker.score(pairs, (n) => bar.increment(n)) : [];
  } finally {
    bar.stop();
  }
  if (scores.length !== pairs.length) throw new Error(`reranker returned ${scores.length} scores for ${pairs.length} pairs`);
  scores.forEach((score, i) => {
    if (!Number.isFinite(score)) throw new Error(`reranker returned a non-finite score (${score}) for query "${owners[i]!.qid}", doc "${owners[i]!.docId}"`);
    const o = owners[i]!;
    run.get(o.qid)!.push({ docId: o.docId, score });
  });
  const after = reranker.stats?.();
  const seconds = (performance.now() - started) / 1000;
  return {
    run,
    info: {
      pairs: pairs.length,
      seconds,
      pairsPerSecond: seconds > 0 ? pairs.length / seconds : 0,
      skippedUnknownDocs,
      truncatedPairs: (after?.truncatedPairs ?? 0) - (before?.truncatedPairs ?? 0),
      cachedPairs: (after?.cachedPairs ?? 0) - (before?.cachedPairs ?? 0),
    },
  };
}
