/**
 * Encoding through the embedding cache: look every text up, encode only the misses (each
 * distinct text once), store each batch as it finishes, flush what is buffered even when the
 * run fails, and account for truncation over all texts (cached ones included, from the
 * token counts stored with each vector).
 */
import type { ProgressFactory } from '../../util/progress.js';
import { EmbeddingCache, embeddingConfigKey, textKey, type EmbeddingCacheOptions } from './cache.js';
import type { BatchResult, EmbedRunStats, Embedder, Role } from './embedder.js';

export interface EncodeStats {
  texts: number;
  hits: number;
  misses: number;
  /** Distinct texts sent to the model. */
  encoded: number;
  truncatedTexts: number;
  tokensDropped: number;
  /** Stats of the model run (null when everything came from the cache). */
  run: EmbedRunStats | null;
  corruptChunks: number;
  chunksWritten: number;
  seconds: number;
}

export interface EncodeOptions {
  cache: EmbeddingCacheOptions;
  /** Identity of the model files (see model-hash.ts). */
  modelSha256: string;
  tokenizerSha256: string;
  progress?: ProgressFactory;
  progressLabel?: string;
  /** Called after each batch was stored (tests use it to interrupt a run). */
  onBatch?: (b: BatchResult) => void | Promise<void>;
}

export async function encodeWithCache(
  embedder: Embedder,
  texts: readonly string[],
  role: Role,
  o: EncodeOptions,
): Promise<{ vectors: Float32Array[]; stats: EncodeStats }> {
  const t0 = performance.now();
  const configKey = embeddingConfigKey({
    modelSha256: o.modelSha256,
    tokenizerSha256: o.tokenizerSha256,
    dtype: embedder.options.dtype,
    pooling: embedder.options.pooling,
    normalize: embedder.options.normalize,
    role,
    prefix: embedder.prefixFor(role),
    maxTokens: embedder.maxLength,
  });
  const cache = new EmbeddingCache(o.cache, configKey);
  const keys = texts.map((t) => textKey(configKey, t));
  const found = cache.get(keys);

  // Distinct missing texts, in first-appearance order.
  const missingKeys: string[] = [];
  const missingTexts: string[] = [];
  const seen = new Set<string>();
  found.forEach((e, i) => {
    if (e || seen.has(keys[i]!)) return;
    seen.add(keys[i]!);
    missingKeys.push(keys[i]!);
    missingTexts.push(texts[i]!);
  });

  const fresh = new Map<string, { vector: Float32Array; fullTokens: number; usedTokens: number }>();
  let run: EmbedRunStats | null = null;
  if (missingTexts.length > 0) {
    const bar = o.progress?.(o.progressLabel ?? `encode ${role}s`, missingTexts.length, 'texts');
    try {
      await embedder.embed(missingTexts, role, async (b) => {
        b.indices.forEach((i, r) => {
          const e = { vector: b.vectors[r]!, fullTokens: b.tokenized[r]!.fullLength, usedTokens: b.tokenized[r]!.ids.length };
          fresh.set(missingKeys[i]!, e);
          cache.put(missingKeys[i]!, e);
        });
        bar?.increment(b.indices.length);
        if (o.onBatch) await o.onBatch(b);
      });
      run = embedder.lastRun;
    } finally {
      cache.flush();
      bar?.stop();
    }
  }

  let truncatedTexts = 0;
  let tokensDropped = 0;
  const vectors = keys.map((k, i) => {
    const e = found[i] ?? fresh.get(k);
    if (!e) throw new Error(`encode: no vector for text ${i}`);
    if (e.fullTokens > e.usedTokens) {
      truncatedTexts++;
      tokensDropped += e.fullTokens - e.usedTokens;
    }
    return e.vector;
  });
  return {
    vectors,
    stats: {
      texts: texts.length,
      hits: cache.stats.hits,
      misses: cache.stats.misses,
      encoded: missingTexts.length,
      truncatedTexts,
      tokensDropped,
      run,
      corruptChunks: cache.stats.corruptChunks,
      chunksWritten: cache.stats.chunksWritten,
      seconds: (performance.now() - t0) / 1000,
    },
  };
}
