/**
 * Batch planning for the reranker forward passes (pure): items sorted by token length so a batch
 * holds inputs of similar length (little padding), cut by a pair count and a padded-token budget;
 * plus the padded tensor layout (left or right padding) of one batch.
 */

export interface BatchLimits {
  /** At most this many inputs per batch (>= 1). */
  batchSize: number;
  /** At most this many padded tokens (inputs x longest length) per batch; a single longer input still goes alone. */
  maxBatchTokens: number;
}

/**
 * Groups item indices into batches. Items are taken longest first (ties by index, so the plan is
 * deterministic); a batch closes when it holds `batchSize` items or adding the next item would
 * make `count x longest` exceed `maxBatchTokens`. With `exactLengthOnly`, a batch also holds only
 * items of one length (no padding at all: for exports whose attention ignores the mask).
 */
export function planBatches(lengths: readonly number[], limits: BatchLimits, exactLengthOnly = false): number[][] {
  if (!Number.isInteger(limits.batchSize) || limits.batchSize < 1) throw new RangeError(`batch size must be a positive integer, got ${limits.batchSize}`);
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const batches: number[][] = [];
  let cur: number[] = [];
  let longest = 0;
  for (const i of order) {
    const len = lengths[i]!;
    if (cur.length > 0) {
      const wouldBe = Math.max(longest, len) * (cur.length + 1);
      if (cur.length >= limits.batchSize || wouldBe > limits.maxBatchTokens || (exactLengthOnly && len !== longest)) {
        batches.push(cur);
        cur = [];
        longest = 0;
      }
    }
    cur.push(i);
    longest = Math.max(longest, len);
  }
  if (cur.length > 0) batches.push(cur);
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

/** Pads `rows` to the longest one, on the left (decoders: last position = last real token) or on the right. */
export function padBatch(rows: readonly EncodedInput[], padId: number, side: 'left' | 'right'): PaddedBatch {
  const width = rows.reduce((m, r) => Math.max(m, r.ids.length), 0);
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
