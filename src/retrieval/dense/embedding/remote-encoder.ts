/**
 * A remote embedding server as a `BatchEncoder` for the embedding cache: the role's prefix goes
 * in front of each text, texts go in consecutive batches of `batchSize`, `concurrency` requests
 * in flight, each finished batch reported at once (so the cache stores it and a killed run
 * resumes). Each batch's texts are read from the source when its request is made. With `normalize: true` vectors are L2-normalised here, whatever the server did.
 * Token counts are the server's business: nothing is counted as truncated.
 */
import pLimit from 'p-limit';
import { UserError } from '../../../core/errors.js';
import type { BatchEncoder } from './encode-cached.js';
import type { EmbedRunStats, OnBatch, Role } from './embedder.js';
import type { RemoteEmbeddingClient } from '../../../remote/embeddings.js';
import { readRange, textSource, type TextSource } from './text-source.js';

export interface RemoteEncoderOptions {
  queryPrefix: string;
  docPrefix: string;
  /** true: ask for unit vectors (tei) and L2-normalise client-side; false: ask for raw vectors (tei); null: the server's default. */
  normalize: boolean | null;
  batchSize: number;
  concurrency: number;
  /** Start of messages (config key path of the endpoint). */
  label: string;
}

/** L2-normalised copy (a zero vector stays zero). */
export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j]! * v[j]!;
  const n = Math.sqrt(s);
  const out = new Float32Array(v.length);
  if (n > 0) for (let j = 0; j < v.length; j++) out[j] = v[j]! / n;
  return out;
}

/** Consecutive index batches [0..size), [size..2·size), … over n items. */
export function consecutiveBatches(n: number, size: number): number[][] {
  const out: number[][] = [];
  for (let s = 0; s < n; s += size) out.push(Array.from({ length: Math.min(size, n - s) }, (_, j) => s + j));
  return out;
}

export class RemoteEncoder implements BatchEncoder {
  lastRun: EmbedRunStats | null = null;
  /** Vector dimension (known after the first answer). */
  dim: number | null = null;

  constructor(
    private readonly client: RemoteEmbeddingClient,
    readonly options: Readonly<RemoteEncoderOptions>,
  ) {}

  prefixFor(role: Role): string {
    return role === 'query' ? this.options.queryPrefix : this.options.docPrefix;
  }

  async embed(texts: readonly string[] | TextSource, role: Role, onBatch?: OnBatch): Promise<Float32Array[]> {
    const t0 = performance.now();
    const prefix = this.prefixFor(role);
    const source = textSource(texts);
    const out: (Float32Array | undefined)[] = new Array(source.size);
    const batches = consecutiveBatches(source.size, this.options.batchSize);
    const limit = pLimit(this.options.concurrency);
    let failure: { error: unknown } | undefined;
    let tokens = 0;
    const ask = this.options.normalize ?? undefined;
    await Promise.all(
      batches.map((idx) =>
        limit(async () => {
          if (failure) return;
          try {
            const a = await this.client.embed(readRange(source, idx[0]!, idx[idx.length - 1]! + 1).map((t) => prefix + t), ask);
            if (failure) return;
            const vectors = this.options.normalize === true ? a.vectors.map(l2normalize) : a.vectors;
            const d = vectors[0]!.length;
            if (this.dim !== null && d !== this.dim) throw new UserError(`${this.options.label}: the server returned vectors of dimension ${d} after ${this.dim}`);
            this.dim = d;
            tokens += a.promptTokens ?? 0;
            idx.forEach((i, r) => (out[i] = vectors[r]!));
            if (onBatch) await onBatch({ indices: idx, vectors, tokenized: idx.map(() => ({ ids: [], truncated: false })) });
          } catch (error) {
            failure ??= { error };
          }
        }),
      ),
    );
    if (failure) throw failure.error;
    const encodeSeconds = (performance.now() - t0) / 1000;
    this.lastRun = {
      texts: source.size,
      tokens,
      paddedTokens: 0,
      truncatedTexts: 0,
      batches: batches.length,
      tokenizeSeconds: 0,
      encodeSeconds,
      textsPerSec: encodeSeconds > 0 ? source.size / encodeSeconds : 0,
      tokensPerSec: encodeSeconds > 0 ? tokens / encodeSeconds : 0,
    };
    return out as Float32Array[];
  }
}
