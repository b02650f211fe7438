/**
 * The pair-scoring loop both local rerankers share (cross-encoder.ts, qwen3.ts): every pair
 * encoded once, the encodings planned into length-bucket batches (util/batch-plan.ts), each batch
 * padded (util/pad-batch.ts) and run through the model with a bounded number in flight, the scores
 * put back in input order, the pairs and cut pairs counted. A family supplies only what differs: how a
 * pair becomes token ids, its batch limits and padding side, extra model inputs, and how the
 * model's logits become scores.
 */
import { Tensor, type PreTrainedModel } from '@huggingface/transformers';
import { planBatches, type Bucketing } from '../util/batch-plan.js';
import { padBatch, type EncodedInput, type PaddedBatch } from '../util/pad-batch.js';
import { runBatches } from './run-batches.js';
import type { RerankPair, RerankStats } from './types.js';

/** One pair as model input. */
export interface PairInput extends EncodedInput {
  /** The pair was cut to the token budget. */
  truncated: boolean;
}

/** How a family's pairs are batched and padded. */
export interface PairBatching {
  /** Inputs per batch at most. */
  batchSize: number;
  /** Padded tokens (rows x width) per batch at most; a single wider input still goes alone. */
  maxBatchTokens: number;
  /** The model's token limit: no bucket is wider. */
  maxWidth: number;
  bucketing: Bucketing;
  /** Batches in flight. */
  concurrency: number;
  /** Right for encoders; left for decoders (the last position is then the last real token). */
  paddingSide: 'left' | 'right';
  padId: number;
}

/** What one reranker family supplies to `scorePairs`. */
export interface PairScorer<E extends PairInput> {
  readonly model: PreTrainedModel;
  encodePair(query: string, doc: string): E;
  /** Read at every `scorePairs` call (a family may change its padding after a load-time check). */
  batching(): PairBatching;
  /** Model inputs beyond input_ids, attention_mask and token_type_ids. */
  extraFeeds(): Record<string, Tensor>;
  /** The scores of the first `count` rows of a batch of `rows` rows, from the model's logits. */
  scoresOf(logits: Tensor | undefined, rows: number, count: number): number[];
}

/** Scores `pairs` in input order through `scorer`, adding to `counters`; `onProgress(n)` after each batch. */
export async function scorePairs<E extends PairInput>(scorer: PairScorer<E>, pairs: readonly RerankPair[], counters: RerankStats, onProgress?: (n: number) => void): Promise<number[]> {
  if (pairs.length === 0) return [];
  const encoded = pairs.map((p) => scorer.encodePair(p.query, p.doc));
  const b = scorer.batching();
  const plan = planBatches(
    encoded.map((e) => e.ids.length),
    b.batchSize,
    b.maxBatchTokens,
    b.maxWidth,
    b.bucketing,
  );
  const scores = new Array<number>(pairs.length).fill(NaN);
  await runBatches([...plan.batches.keys()], b.concurrency, async (k) => {
    const items = plan.batches[k]!;
    const padded = padBatch(
      items.map((i) => encoded[i]!),
      b.padId,
      b.paddingSide,
      plan.widths[k]!,
      plan.rows[k]!,
    );
    const got = scorer.scoresOf(await forwardPadded(scorer.model, padded, scorer.extraFeeds()), padded.rows, items.length);
    items.forEach((i, r) => {
      scores[i] = got[r]!;
    });
    onProgress?.(items.length);
  });
  counters.pairs += pairs.length;
  counters.truncatedPairs += encoded.reduce((n, e) => n + (e.truncated ? 1 : 0), 0);
  return scores;
}

/**
 * One forward pass over a padded batch: input_ids, attention_mask, token_type_ids when the batch
 * has them, and `extra`; the model's `logits` output (undefined when it has none).
 */
export async function forwardPadded(model: PreTrainedModel, padded: PaddedBatch, extra: Record<string, Tensor> = {}): Promise<Tensor | undefined> {
  const dims = [padded.rows, padded.width];
  const feeds: Record<string, Tensor> = {
    input_ids: new Tensor('int64', padded.inputIds, dims),
    attention_mask: new Tensor('int64', padded.attentionMask, dims),
  };
  if (padded.tokenTypeIds) feeds.token_type_ids = new Tensor('int64', padded.tokenTypeIds, dims);
  Object.assign(feeds, extra);
  const out = (await model(feeds)) as { logits?: Tensor };
  return out.logits;
}
