/**
 * The batch planner of every local model (dense embedders and rerankers), pure: inputs grouped by
 * padded width, so an input's output never depends on the other inputs of its batch (nor on which
 * inputs a cache already held, nor on where a resumed run restarted).
 *
 * The width is the input's length bucket (length-buckets.ts, a function of its own token count
 * alone), or, in exact-length mode, its own length (no padding at all: for exports whose attention
 * ignores the mask). Widths are taken widest first (a run that would exhaust memory fails early),
 * inputs in position order, cut into batches of at most `batchSize` inputs and at most
 * `maxBatchTokens` padded tokens (an input wider than that gets a batch of its own). Every batch of
 * a width is filled up to one row count: kernels choose their paths by tensor shape, so a row's
 * result also depends on the row count. Outputs are put back in input order by the caller.
 */
import { bucketWidth } from './length-buckets.js';

/** How an input's padded width follows from its token count. */
export type Bucketing = 'length-buckets' | 'exact-length';

export interface BatchPlan {
  /** Each batch lists input positions (ascending). */
  batches: number[][];
  /** The padded width of each batch (same order as `batches`). */
  widths: number[];
  /** The row count each batch is filled up to (same order). */
  rows: number[];
  /** Sum over batches of rows x width: tokens actually computed, padding and filler rows included. */
  paddedTokens: number;
}

/**
 * Plans the forward passes over inputs of token counts `lengths`. `maxWidth` is the model's token
 * limit (no bucket is wider; no input is longer).
 */
export function planBatches(
  lengths: readonly number[],
  batchSize: number,
  maxBatchTokens: number,
  maxWidth = Number.POSITIVE_INFINITY,
  bucketing: Bucketing = 'length-buckets',
): BatchPlan {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be a positive integer, got ${batchSize}`);
  if (!(maxBatchTokens >= 1)) throw new RangeError(`max batch tokens must be >= 1, got ${maxBatchTokens}`);
  const byWidth = new Map<number, number[]>();
  lengths.forEach((len, i) => {
    const w = bucketing === 'exact-length' ? len : bucketWidth(len, maxWidth);
    const list = byWidth.get(w);
    if (list) list.push(i);
    else byWidth.set(w, [i]);
  });
  const plan: BatchPlan = { batches: [], widths: [], rows: [], paddedTokens: 0 };
  for (const width of [...byWidth.keys()].sort((a, b) => b - a)) {
    const perBatch = Math.max(1, Math.min(batchSize, Math.floor(maxBatchTokens / Math.max(1, width))));
    const items = byWidth.get(width)!;
    for (let i = 0; i < items.length; i += perBatch) {
      plan.batches.push(items.slice(i, i + perBatch));
      plan.widths.push(width);
      plan.rows.push(perBatch);
      plan.paddedTokens += perBatch * width;
    }
  }
  return plan;
}
