/**
 * Encoding through the embedding cache: look every text up, encode only the misses (each
 * distinct text once), store each batch as it finishes, flush what is buffered even when the
 * run fails, and account for truncation over all texts (cached ones included, from the
 * truncated flag stored with each vector).
 *
 * `encodeWithCache` serves the local embedder (key from its model files and options);
 * `encodeTextsWithCache` serves any `BatchEncoder` under a key the caller computed (remote
 * embedding servers, see src/retrieval/dense/remote-retriever.ts).
 *
 * Texts are streamed (text-source.ts): one pass reads each text, computes its cache key and drops
 * it; the encoder is then given only the missing texts, as a subset of the source that it reads
 * again from the document store. No corpus text is held for the run: only keys, vectors and the
 * positions of the misses.
 */
import type { ProgressFactory } from '../../../core/context.js';
import { EmbeddingCache, embeddingConfigKey, textKey, type CachedEmbedding, type EmbeddingCacheOptions } from './embedding-cache.js';
import type { BatchResult, EmbedRunStats, Embedder, OnBatch } from './embedder.js';
import { DEFAULT_MAX_BATCH_TOKENS, type Role } from './embedder-inputs.js';
import { faultPoint } from '../../../util/fault.js';
import { subsetOf, textSource, type TextSource } from './text-source.js';

export interface EncodeStats {
  texts: number;
  hits: number;
  misses: number;
  /** Distinct texts sent to the model. */
  encoded: number;
  truncatedTexts: number;
  /** Stats of the model run (null when everything came from the cache). */
  run: EmbedRunStats | null;
  corruptChunks: number;
  chunksWritten: number;
  seconds: number;
}

/** Cache accounting of one dense stage (documents + queries), as recorded in the manifest. */
export interface StageCacheInfo {
  enabled: boolean;
  hits: number;
  misses: number;
  corruptChunks: number;
  documents: { hits: number; misses: number };
  queries: { hits: number; misses: number };
}

export function stageCacheInfo(enabled: boolean, d: EncodeStats, q: EncodeStats): StageCacheInfo {
  return {
    enabled,
    hits: d.hits + q.hits,
    misses: d.misses + q.misses,
    corruptChunks: d.corruptChunks + q.corruptChunks,
    documents: { hits: d.hits, misses: d.misses },
    queries: { hits: q.hits, misses: q.misses },
  };
}

/** Items per second, or null when nothing was timed. */
export function rate(n: number, seconds: number | undefined): number | null {
  return seconds !== undefined && seconds > 0 && n > 0 ? n / seconds : null;
}

interface EncodeCommon {
  cache: EmbeddingCacheOptions;
  progress?: ProgressFactory;
  progressLabel?: string;
  /** Called after each batch was stored (tests use it to interrupt a run). */
  onBatch?: (b: BatchResult) => void | Promise<void>;
}

export interface EncodeOptions extends EncodeCommon {
  /** Identity of the model files (see model-hash.ts). */
  modelSha256: string;
  tokenizerSha256: string;
}

/** What the local cache key reads of an embedder (a loaded `Embedder` or a lazy one, lazy-embedder.ts). */
export type KeyedLocalEncoder = BatchEncoder & Pick<Embedder, 'options' | 'maxLength' | 'prefixFor'>;

/** Anything that embeds texts of a role in batches, reporting each batch (the local Embedder is one). */
export interface BatchEncoder {
  /** Embeds the texts of `texts` in order (reading them from the source as it goes). */
  embed(texts: TextSource, role: Role, onBatch?: OnBatch): Promise<Float32Array[]>;
  readonly lastRun: EmbedRunStats | null;
}

export interface KeyedEncodeOptions extends EncodeCommon {
  /** The embedding cache's config key (covers model identity, role, prefix, normalisation …). */
  configKey: string;
  /** An already opened cache of `configKey` (avoids reading its chunks twice). */
  opened?: EmbeddingCache;
}

/**
 * The onnxruntime thread count is deliberately not part of the key: the vectors do not depend on
 * it (onnxruntime's CPU kernels split work over output blocks, each summed by one thread in a
 * fixed order), which test/thread-invariance.test.ts pins bit for bit on the bundled models and
 * the tiny test encoder at 1, 2 and 3 threads, so a cache filled on one machine serves another.
 */
export async function encodeWithCache(
  embedder: KeyedLocalEncoder,
  texts: readonly string[] | TextSource,
  role: Role,
  o: EncodeOptions,
): Promise<{ vectors: Float32Array[]; stats: EncodeStats }> {
  const configKey = localEmbeddingConfigKey(embedder, role, o.modelSha256, o.tokenizerSha256);
  const { modelSha256: _m, tokenizerSha256: _t, ...common } = o;
  return encodeTextsWithCache(embedder, texts, role, { ...common, configKey });
}

/** The embedding cache's config key of a local embedder's texts of `role`. */
export function localEmbeddingConfigKey(embedder: Pick<KeyedLocalEncoder, 'options' | 'maxLength' | 'prefixFor'>, role: Role, modelSha256: string, tokenizerSha256: string): string {
  return embeddingConfigKey({
    modelSha256,
    tokenizerSha256,
    dtype: embedder.options.dtype,
    pooling: embedder.options.pooling,
    normalize: embedder.options.normalize,
    role,
    prefix: embedder.prefixFor(role),
    maxTokens: embedder.maxLength,
    batching: { scheme: 'length-buckets-v1', batchSize: embedder.options.batchSize, maxBatchTokens: embedder.options.maxBatchTokens ?? DEFAULT_MAX_BATCH_TOKENS },
  });
}

export async function encodeTextsWithCache(
  embedder: BatchEncoder,
  texts: readonly string[] | TextSource,
  role: Role,
  o: KeyedEncodeOptions,
): Promise<{ vectors: Float32Array[]; stats: EncodeStats }> {
  const t0 = performance.now();
  const configKey = o.configKey;
  const cache = o.opened && o.opened.configKey === configKey ? o.opened : new EmbeddingCache(o.cache, configKey);
  const source = textSource(texts);
  // One streamed pass: each text's key, the text itself dropped at once.
  const keys: string[] = [];
  for (const t of source.texts()) keys.push(textKey(configKey, t));
  if (keys.length !== source.size) throw new Error(`encode: ${keys.length} texts read, expected ${source.size}`);
  const found = cache.get(keys);

  // Distinct missing texts, in first-appearance order (their positions in the source).
  const missingKeys: string[] = [];
  const missingAt: number[] = [];
  const seen = new Set<string>();
  found.forEach((e, i) => {
    if (e || seen.has(keys[i]!)) return;
    seen.add(keys[i]!);
    missingKeys.push(keys[i]!);
    missingAt.push(i);
  });

  const fresh = new Map<string, CachedEmbedding>();
  let run: EmbedRunStats | null = null;
  if (missingAt.length > 0) {
    const bar = o.progress?.(o.progressLabel ?? `encode ${role}s`, missingAt.length, 'texts');
    try {
      await embedder.embed(subsetOf(source, missingAt), role, async (b) => {
        b.indices.forEach((i, r) => {
          const e = { vector: b.vectors[r]!, truncated: b.tokenized[r]!.truncated, usedTokens: b.tokenized[r]!.ids.length };
          fresh.set(missingKeys[i]!, e);
          cache.put(missingKeys[i]!, e);
        });
        bar?.increment(b.indices.length);
        faultPoint('encoding');
        if (o.onBatch) await o.onBatch(b);
      });
      run = embedder.lastRun;
    } finally {
      cache.flush();
      bar?.stop();
    }
  }

  let truncatedTexts = 0;
  const vectors = keys.map((k, i) => {
    const e = found[i] ?? fresh.get(k);
    if (!e) throw new Error(`encode: no vector for text ${i}`);
    if (e.truncated) truncatedTexts++;
    return e.vector;
  });
  return {
    vectors,
    stats: {
      texts: source.size,
      hits: cache.stats.hits,
      misses: cache.stats.misses,
      encoded: missingAt.length,
      truncatedTexts,
      run,
      corruptChunks: cache.stats.corruptChunks,
      chunksWritten: cache.stats.chunksWritten,
      seconds: (performance.now() - t0) / 1000,
    },
  };
}
