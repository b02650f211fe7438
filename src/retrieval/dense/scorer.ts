/**
 * The dense retriever as a scorer of arbitrary texts, for explanations: the same model, options
 * and embedding cache as `denseRetrieve` (so the corpus vectors come from the cache and a query
 * scores exactly as in the run: vectors rounded to the run's vector precision, float32 inner
 * product, double accumulation, one rounding). Texts are encoded through the cache, keyed by text,
 * so explaining the same queries again encodes nothing.
 */
import type { StageContext } from '../../core/context.js';
import { CacheStore } from '../../cache/store.js';
import { modelsDir, offlineFromEnv } from '../../util/paths.js';
import { Embedder } from './embedding/embedder.js';
import { encodeWithCache } from './embedding/encode-cached.js';
import { modelFilesSha256 } from './embedding/model-hash.js';
import { dotRows, toMatrix, type VectorMatrix } from './indexes/exact.js';
import { resolveSpec, tokenizerSha256, type DenseSpec } from './retriever.js';
import { roundVectors } from './embedding/vector-precision.js';

export interface DenseScorer {
  /** Per text (as a query): the score of every corpus document, in corpus order. */
  scoreAll(queries: readonly string[]): Promise<Float32Array[]>;
  /** The score of each document text (encoded as a document) against one query text. */
  scoreDocs(query: string, docTexts: readonly string[]): Promise<number[]>;
  /** Texts encoded by the model so far (cache misses), queries and documents. */
  encoded(): number;
  dispose(): Promise<void>;
}

export async function openDenseScorer(ctx: StageContext, spec: DenseSpec, docs: readonly { id: string; text: string }[]): Promise<DenseScorer> {
  const loc = { offline: ctx.offline || offlineFromEnv(), cacheDir: ctx.cacheDir, modelsDir: modelsDir() };
  const { model, options, vectorPrecision } = await resolveSpec(ctx, spec, loc);
  const embedder = await Embedder.load(model, options, loc);
  const hashDir = ctx.useCache ? CacheStore.of(ctx) : undefined;
  const encodeOpts = {
    cache: { cacheDir: ctx.cacheDir, useCache: ctx.useCache, log: ctx.log },
    modelSha256: (await modelFilesSha256(embedder.modelFiles, hashDir)).sha256,
    tokenizerSha256: await tokenizerSha256(model.folder, hashDir),
    progress: ctx.progress,
  };
  let encoded = 0;
  const d = await encodeWithCache(embedder, docs.map((x) => x.text), 'document', { ...encodeOpts, progressLabel: `${spec.id}: encode documents` });
  encoded += d.stats.encoded;
  const dim = d.vectors[0]?.length ?? embedder.dim ?? 0;
  const D: VectorMatrix = toMatrix(roundVectors(d.vectors, vectorPrecision), dim);
  return {
    async scoreAll(queries) {
      const q = await encodeWithCache(embedder, queries, 'query', { ...encodeOpts, progressLabel: `${spec.id}: encode explained queries` });
      encoded += q.stats.encoded;
      const Q = toMatrix(roundVectors(q.vectors, vectorPrecision), dim);
      return queries.map((_, i) => {
        const out = new Float32Array(D.rows);
        for (let r = 0; r < D.rows; r++) out[r] = dotRows(Q, i, D, r);
        return out;
      });
    },
    async scoreDocs(query, docTexts) {
      const q = await encodeWithCache(embedder, [query], 'query', encodeOpts);
      const v = await encodeWithCache(embedder, docTexts, 'document', { ...encodeOpts, progressLabel: `${spec.id}: encode field variants` });
      encoded += q.stats.encoded + v.stats.encoded;
      const Q = toMatrix(roundVectors(q.vectors, vectorPrecision), dim);
      const V = toMatrix(roundVectors(v.vectors, vectorPrecision), dim);
      return docTexts.map((_, r) => dotRows(Q, 0, V, r));
    },
    encoded: () => encoded,
    dispose: () => embedder.dispose(),
  };
}
