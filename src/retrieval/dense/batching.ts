/**
 * Length-bucket batching: every text gets the padded width of its length bucket (a function of
 * its own token count alone, src/util/length-buckets.ts) and a batch holds texts of one bucket,
 * padded to exactly that width, so a text's vector never depends on the other texts of its batch
 * (nor on which texts the cache already held). Buckets are taken widest first (a run that would
 * exhaust memory fails early), texts in input position order, cut into batches of at most
 * `batchSize` texts and at most `maxBatchTokens` padded tokens (a single text wider than that gets
 * a batch of its own). Outputs are put back in input order by the caller.
 */
import { bucketWidth } from '../../util/length-buckets.js';

export interface BatchPlan {
  /** Each batch lists input positions (ascending). */
  batches: number[][];
  /** The padded width of each batch (same order as `batches`). */
  widths: number[];
  /**
   * The row count each batch is filled up to (same order): every batch of a bucket has one tensor
   * shape, as kernels choose their paths by shape and a row's result would depend on the row count.
   */
  rows: number[];
  /** Sum over batches of rows x width: tokens actually computed, padding and filler rows included. */
  paddedTokens: number;
}

export function planBatches(lengths: readonly number[], batchSize: number, maxBatchTokens: number, maxWidth = Number.POSITIVE_INFINITY): BatchPlan {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  if (!(maxBatchTokens >= 1)) throw new Error(`maxBatchTokens must be >= 1, got ${maxBatchTokens}`);
  const byWidth = new Map<number, number[]>();
  lengths.forEach((len, i) => {
    const w = bucketWidth(len, maxWidth);
    const list = byWidth.get(w);
    if (list) list.push(i);
    else byWidth.set(w, [i]);
  });
  const batches: number[][] = [];
  const widths: number[] = [];
  const rows: number[] = [];
  let paddedTokens = 0;
  for (const width of [...byWidth.keys()].sort((a, b) => b - a)) {
    const perBatch = Math.max(1, Math.min(batchSize, Math.floor(maxBatchTokens / Math.max(1, width))));
    const items = byWidth.get(width)!;
    for (let i = 0; i < items.length; i += perBatch) {
      const b = items.slice(i, i + perBatch);
      batches.push(b);
      widths.push(width);
      rows.push(perBatch);
      paddedTokens += perBatch * width;
    }
  }
  return { batches, widths, rows, paddedTokens };
}
