/**
 * The dense stage cache: the whole output of a local dense stage with an exact index (the run and
 * what it reports), keyed without reading a document text, so a warm rerun reads no text, hashes
 * no text, opens no embedding chunk and searches nothing. It serves file-backed corpora only (a
 * `DocStore` with a `source`, data/doc-store.ts); an in-memory corpus or an HNSW index runs the
 * stage as usual. Key = the store's key (cache/key.ts) over (format, the corpus fingerprint, every query id and text in order,
 * the stage's spec, the model's folder and location, the embedding cache's config keys of documents
 * and queries (model file and tokenizer hashes, dtype, pooling, normalisation, prefixes, effective
 * max tokens, batching: cache.ts), the vector precision and the exact-search format).
 *
 * Corpus fingerprint: data/corpus-fingerprint.ts (the skills file's SHA-256 through the file hash
 * memo, record offsets and lengths, ids, text fields, `DOC_TEXT_RULES`). A file changed since the
 * dataset was loaded has no fingerprint (the stage runs as usual).
 *
 * Store kind `dense-stage` (`<cacheDir>/dense-stage/<key>.json`), body
 * `{"info", "queries": [[qid, [document numbers], [scores]], ...]}`; scores are the float32 values
 * as JSON numbers (read back as the same doubles). The store checks the framing; an entry that is
 * damaged or does not fit is reported in the store's one line and the stage run (the entry
 * rewritten after it).
 * On a hit the info is the stored one with `timings`, `cache` (`stage: 'hit'`, no embedding cache
 * lookups), `throughput` (nothing encoded) and `index` (the search was not run) of this run.
 */
import type { StageContext } from '../../core/context.js';
import { cacheKey, strings } from '../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../cache/kinds.js';
import { CacheStore } from '../../cache/store.js';
import type { DocStore } from '../../core/stages.js';
import type { Query, Run } from '../../core/types.js';
import { corpusFingerprint } from '../../data/corpus-fingerprint.js';
import { decodeCompactRun, encodeCompactRun } from '../../formats/compact-run.js';
import { modelsDir, offlineFromEnv } from '../../util/paths.js';
import type { ModelLocationOptions } from '../../models/resolve.js';
import { localEmbeddingConfigKey } from './embedding/encode-cached.js';
import { peekEmbedder } from './embedding/lazy-embedder.js';
import { modelFilesSha256 } from './embedding/model-hash.js';
import { SEARCH_KIND } from './indexes/search-cache.js';
import { resolveSpec, tokenizerSha256, type DenseInfo, type DenseSpec } from './retriever.js';

export const STAGE_KIND = entryKind(CACHE_KINDS.denseStage, 'dense-stage-v2');
export const STAGE_SUBFOLDER = CACHE_KINDS.denseStage.folder;
export { DOC_TEXT_RULES } from '../../data/corpus-fingerprint.js';
/** What a dense stage returns (retriever.ts `denseRetrieve`). */
export interface DenseStageOutput {
  run: Run;
  exactRun?: Run;
  info: DenseInfo;
}

/**
 * The stage key, or null when it cannot be had without reading texts or loading the model (not a
 * file-backed corpus, an HNSW index, the cache off, the embedder facts not cached yet).
 */
export async function denseStageKey(ctx: StageContext, spec: DenseSpec, store: DocStore, queries: readonly { id: string; text: string }[]): Promise<string | null> {
  if (!ctx.useCache || spec.index.type !== 'exact') return null;
  const hashes = CacheStore.of(ctx);
  const corpus = await corpusFingerprint(store, hashes);
  if (corpus === null) return null;
  const loc: ModelLocationOptions = { offline: ctx.offline || offlineFromEnv(), cacheDir: ctx.cacheDir, modelsDir: modelsDir() };
  const { model, options, vectorPrecision } = await resolveSpec(ctx, spec, loc);
  const embedder = await peekEmbedder(model, options, loc, { cacheDir: ctx.cacheDir, useCache: true, log: ctx.log });
  if (!embedder) return null;
  const modelSha = (await modelFilesSha256(embedder.modelFiles, hashes)).sha256;
  const tokSha = await tokenizerSha256(model.folder, hashes);
  return cacheKey(STAGE_KIND.name, [
    STAGE_KIND.format,
    corpus,
    strings(queries.flatMap((q) => [q.id, q.text])),
    {
      spec,
      model: { folder: model.folder, location: model.location, source: model.source, revision: model.revision ?? null },
      documents: localEmbeddingConfigKey(embedder, 'document', modelSha, tokSha),
      query: localEmbeddingConfigKey(embedder, 'query', modelSha, tokSha),
      vectorPrecision,
      search: SEARCH_KIND.format,
    },
  ]);
}

export function stageCachePath(cacheDir: string, key: string): string {
  return CacheStore.of({ cacheDir, useCache: true, log: () => {} }).path(STAGE_KIND, key);
}

type StoredInfo = Omit<DenseInfo, 'timings' | 'cache' | 'throughput' | 'index'>;

/** The entry body of a stage output. */
export function encodeStage(out: DenseStageOutput, docIds: readonly string[], queries: readonly { id: string }[]): string {
  const { timings: _t, cache: _c, throughput: _p, index: _i, ...info } = out.info;
  return JSON.stringify({ info, queries: encodeCompactRun(out.run, docIds, queries) });
}

/** Reads an entry body; throws (the caller recomputes) when it does not fit. */
export function decodeStage(body: string, docIds: readonly string[], queries: readonly { id: string }[]): { run: Run; info: StoredInfo } {
  const f = JSON.parse(body) as { info?: StoredInfo; queries?: unknown };
  const info = f.info as Partial<StoredInfo> | undefined;
  if (!info || typeof info !== 'object' || !info.model || typeof info.model !== 'object' || !info.options || typeof info.options !== 'object') throw new Error('no stage info');
  if (info.options.pooling === 'last_token' && !Array.isArray(info.options.specialTokens?.suffix)) throw new Error('no token frame');
  const run = decodeCompactRun(f.queries, docIds, queries);
  return { run, info: info as StoredInfo };
}

/**
 * `compute` (the dense stage over `store`) through the stage cache: read when its key is stored,
 * else computed, then stored under the key (taken after the run, when the embedder facts exist).
 */
export async function withDenseStageCache(
  ctx: StageContext,
  spec: DenseSpec,
  store: DocStore,
  queries: readonly Query[],
  compute: () => Promise<DenseStageOutput>,
): Promise<DenseStageOutput> {
  const t0 = performance.now();
  const key = await denseStageKey(ctx, spec, store, queries);
  const entries = CacheStore.of(ctx);
  const hit = key === null ? undefined : entries.readText(STAGE_KIND, key, (body) => decodeStage(body, store.ids, queries));
  if (hit !== undefined) {
    const { run, info } = hit;
    const seconds = (performance.now() - t0) / 1000;
    // The notes the stage itself logs (retriever.ts), from the same facts.
    if (info.model.warning) ctx.log(`dense ${spec.id}: ${info.model.warning}`);
    if (info.options.pooling === 'last_token' && info.options.specialTokens.suffix.length === 0) {
      ctx.log(`dense ${spec.id}: last-token pooling, but the tokenizer appends no end token: the vector is the last text token's state`);
    }
    const none = { hits: 0, misses: 0 };
    return {
      run,
      info: {
        ...info,
        cache: { enabled: true, ...none, corruptChunks: 0, documents: none, queries: none, stage: 'hit' },
        throughput: { docsPerSec: null, tokensPerSec: null, queriesPerSec: null },
        timings: { stageCache: seconds },
        index: { type: 'exact', seconds: 0, cache: 'hit' },
      } as DenseInfo,
    };
  }
  const out = await compute();
  const after = key ?? (await denseStageKey(ctx, spec, store, queries));
  if (after !== null && !out.exactRun) entries.write(STAGE_KIND, after, encodeStage(out, store.ids, queries));
  return out;
}
