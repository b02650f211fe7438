/**
 * Batch planning for the reranker forward passes (pure): inputs grouped by length bucket (the
 * padded width is a function of each input's own token count, src/util/length-buckets.ts), so an
 * input's score never depends on the other inputs of its batch, cut by a pair count and a
 * padded-token budget; plus the padded tensor layout (left or right padding) of one batch.
 */
import { bucketWidth } from '../util/length-buckets.js';

export interface BatchLimits {
  /** At most this many inputs per batch (>= 1). */
  batchSize: number;
  /** At most this many padded tokens (inputs x width) per batch; a single wider input still goes alone. */
  maxBatchTokens: number;
  /** The model's token limit: no bucket is wider (default: none). */
  maxWidth?: number;
}

/**
 * One planned forward pass: item indices (ascending), the width every row is padded to and the row
 * count the batch is filled up to (every batch of a bucket has the same tensor shape: kernels pick
 * their paths by shape, so a row's result also depends on the row count).
 */
export interface PlannedBatch {
  items: number[];
  width: number;
  rows: number;
}

/**
 * Groups item indices into batches of one bucket each, widest bucket first (a run that would
 * exhaust memory fails early), items in index order; a batch closes at `batchSize` items or when
 * one more would make `count x width` exceed `maxBatchTokens`. With `exactLengthOnly` the bucket is
 * the exact length (no padding at all: for exports whose attention ignores the mask).
 */
export function planBatches(lengths: readonly number[], limits: BatchLimits, exactLengthOnly = false): PlannedBatch[] {
  if (!Number.isInteger(limits.batchSize) || limits.batchSize < 1) throw new RangeError(`batch size must be a positive integer, got ${limits.batchSize}`);
  const byWidth = new Map<number, number[]>();
  lengths.forEach((len, i) => {
    const w = exactLengthOnly ? len : bucketWidth(len, limits.maxWidth);
    const list = byWidth.get(w);
    if (list) list.push(i);
    else byWidth.set(w, [i]);
  });
  const batches: PlannedBatch[] = [];
  for (const width of [...byWidth.keys()].sort((a, b) => b - a)) {
    const perBatch = Math.max(1, Math.min(limits.batchSize, Math.floor(limits.maxBatchTokens / Math.max(1, width))));
    const items = byWidth.get(width)!;
    for (let i = 0; i < items.length; i += perBatch) batches.push({ items: items.slice(i, i + perBatch), width, rows: perBatch });
  }
  return batches;
}

export interface PaddedBatch {
  /** Row-major [rows, width] token ids. */
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  /** Present when every row brought token type ids. */
  tokenTypeIds?: BigInt64Array;
  rows: number;
  width: number;
}

export interface EncodedInput {
  ids: readonly number[];
  typeIds?: readonly number[];
}

/**
 * Pads `realRows` to `width` (default: the longest row), on the left (decoders: last position =
 * last real token) or on the right, and fills the batch up to `rowCount` rows with copies of the
 * first row (their outputs are ignored).
 */
export function padBatch(realRows: readonly EncodedInput[], padId: number, side: 'left' | 'right', width = realRows.reduce((m, r) => Math.max(m, r.ids.length), 0), rowCount = realRows.length): PaddedBatch {
  const rows = [...realRows];
  while (rows.length < rowCount) rows.push(realRows[0]!);
  if (rows.some((r) => r.ids.length > width)) throw new RangeError(`padBatch: a row is longer than the width ${width}`);
  const n = rows.length;
  const inputIds = new BigInt64Array(n * width).fill(BigInt(padId));
  const attentionMask = new BigInt64Array(n * width);
  const withTypes = n > 0 && rows.every((r) => r.typeIds !== undefined);
  const tokenTypeIds = withTypes ? new BigInt64Array(n * width) : undefined;
  rows.forEach((r, i) => {
    const off = i * width + (side === 'left' ? width - r.ids.length : 0);
    for (let j = 0; j < r.ids.length; j++) {
      inputIds[off + j] = BigInt(r.ids[j]!);
      attentionMask[off + j] = 1n;
      if (tokenTypeIds) tokenTypeIds[off + j] = BigInt(r.typeIds![j]!);
    }
  });
  return { inputIds, attentionMask, ...(tokenTypeIds ? { tokenTypeIds } : {}), rows: n, width };
}
