/**
 * The dense stage cache: the whole output of a local dense stage with an exact index (the run and
 * what it reports), keyed without reading a document text, so a warm rerun reads no text, hashes
 * no text, opens no embedding chunk and searches nothing. It serves file-backed corpora only (a
 * `DocStore` with a `source`, data/doc-store.ts); an in-memory corpus or an HNSW index runs the
 * stage as usual. Key = sha256 of (format, the corpus fingerprint, every query id and text in order,
 * the stage's spec, the model's folder and location, the embedding cache's config keys of documents
 * and queries (model file and tokenizer hashes, dtype, pooling, normalisation, prefixes, effective
 * max tokens, batching: cache.ts), the vector precision and the exact-search format).
 *
 * Corpus fingerprint: data/corpus-fingerprint.ts (the skills file's SHA-256 through the file hash
 * memo, record offsets and lengths, ids, text fields, `DOC_TEXT_RULES`). A file changed since the
 * dataset was loaded has no fingerprint (the stage runs as usual).
 *
 * File `<cacheDir>/dense-stage/<key>.json`: a first line `{"format","key","sha256"}` (sha256 of the
 * rest), then `{"info", "queries": [[qid, [document numbers], [scores]], ...]}`; scores are the
 * float32 values as JSON numbers (read back as the same doubles). A file that does not fit is
 * reported with one log line and recomputed; written atomically after a stage that ran.
 * On a hit the info is the stored one with `timings`, `cache` (`stage: 'hit'`, no embedding cache
 * lookups), `throughput` (nothing encoded) and `index` (the search was not run) of this run.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StageContext } from '../../core/context.js';
import type { DocStore } from '../../core/stages.js';
import type { Query, Run } from '../../core/types.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { corpusFingerprint } from '../../data/corpus-fingerprint.js';
import { decodeCompactRun, encodeCompactRun } from '../../formats/compact-run.js';
import { sha256Hex, stableStringify } from '../../util/hash.js';
import { modelsDir, offlineFromEnv } from '../../util/paths.js';
import type { ModelLocationOptions } from '../../models/resolve.js';
import { localEmbeddingConfigKey } from './encode-cached.js';
import { peekEmbedder } from './lazy-embedder.js';
import { modelFilesSha256 } from './model-hash.js';
import { resolveSpec, tokenizerSha256, type DenseInfo, type DenseSpec } from './retriever.js';

export const STAGE_SUBFOLDER = 'dense-stage';
const FORMAT = 'skillret-dense-stage-v1';
export { DOC_TEXT_RULES } from '../../data/corpus-fingerprint.js';
/** What a dense stage returns (retriever.ts `denseRetrieve`). */
export interface DenseStageOutput {
  run: Run;
  exactRun?: Run;
  info: DenseInfo;
}

function queriesHash(queries: readonly { id: string; text: string }[]): string {
  const h = createHash('sha256');
  h.update(`${queries.length}\n`);
  for (const q of queries) {
    h.update(`${Buffer.byteLength(q.id, 'utf8')}:${q.id}${Buffer.byteLength(q.text, 'utf8')}:`);
    h.update(q.text, 'utf8');
  }
  return h.digest('hex');
}

/**
 * The stage key, or null when it cannot be had without reading texts or loading the model (not a
 * file-backed corpus, an HNSW index, the cache off, the embedder facts not cached yet).
 */
export async function denseStageKey(ctx: StageContext, spec: DenseSpec, store: DocStore, queries: readonly { id: string; text: string }[]): Promise<string | null> {
  if (!ctx.useCache || spec.index.type !== 'exact') return null;
  const corpus = await corpusFingerprint(store, ctx.cacheDir);
  if (corpus === null) return null;
  const loc: ModelLocationOptions = { offline: ctx.offline || offlineFromEnv(), cacheDir: ctx.cacheDir, modelsDir: modelsDir() };
  const { model, options, vectorPrecision } = await resolveSpec(ctx, spec, loc);
  const embedder = await peekEmbedder(model, options, loc, { cacheDir: ctx.cacheDir, useCache: true, log: () => {} });
  if (!embedder) return null;
  const modelSha = (await modelFilesSha256(embedder.modelFiles, ctx.cacheDir)).sha256;
  const tokSha = await tokenizerSha256(model.folder, ctx.cacheDir);
  return sha256Hex(
    stableStringify({
      format: FORMAT,
      corpus,
      queries: queriesHash(queries),
      spec,
      model: { folder: model.folder, location: model.location, source: model.source, revision: model.revision ?? null },
      documents: localEmbeddingConfigKey(embedder, 'document', modelSha, tokSha),
      query: localEmbeddingConfigKey(embedder, 'query', modelSha, tokSha),
      vectorPrecision,
      search: 'skillret-exact-topk-v1',
    }),
  );
}

export function stageCachePath(cacheDir: string, key: string): string {
  return join(cacheDir, STAGE_SUBFOLDER, `${key}.json`);
}

type StoredInfo = Omit<DenseInfo, 'timings' | 'cache' | 'throughput' | 'index'>;

/** The cache file of a stage output. */
export function encodeStage(key: string, out: DenseStageOutput, docIds: readonly string[], queries: readonly { id: string }[]): string {
  const { timings: _t, cache: _c, throughput: _p, index: _i, ...info } = out.info;
  const body = JSON.stringify({ info, queries: encodeCompactRun(out.run, docIds, queries) });
  return `${JSON.stringify({ format: FORMAT, key, sha256: sha256Hex(body) })}\n${body}`;
}

/** Reads a cache file; throws (the caller recomputes) when it does not fit. */
export function decodeStage(text: string, key: string, docIds: readonly string[], queries: readonly { id: string }[]): { run: Run; info: StoredInfo } {
  const nl = text.indexOf('\n');
  if (nl < 0) throw new Error('no header line');
  const head = JSON.parse(text.slice(0, nl)) as { format?: unknown; key?: unknown; sha256?: unknown };
  if (head.format !== FORMAT || head.key !== key) throw new Error('not a stage cache file of this key');
  const body = text.slice(nl + 1);
  if (sha256Hex(body) !== head.sha256) throw new Error('checksum mismatch');
  const f = JSON.parse(body) as { info?: StoredInfo; queries?: unknown };
  if (!f.info) throw new Error('no stage info');
  const run = decodeCompactRun(f.queries, docIds, queries);
  return { run, info: f.info };
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
  if (key !== null) {
    const path = stageCachePath(ctx.cacheDir, key);
    if (existsSync(path)) {
      try {
        const { run, info } = decodeStage(readFileSync(path, 'utf8'), key, store.ids, queries);
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
      } catch (e) {
        ctx.log(`dense: cached stage ${path} is unusable (${e instanceof Error ? e.message : String(e)}); running the stage`);
      }
    }
  }
  const out = await compute();
  const after = key ?? (await denseStageKey(ctx, spec, store, queries));
  if (after !== null && !out.exactRun) writeFileAtomic(stageCachePath(ctx.cacheDir, after), encodeStage(after, out, store.ids, queries));
  return out;
}
