/**
 * Length-sorted batching: texts are ordered by token length (longest first, ties by input
 * position, so the plan is deterministic) and cut into batches of at most `batchSize` texts
 * and at most `maxBatchTokens` padded tokens (a single text longer than that gets a batch of
 * its own). Little compute goes to padding, and the longest batches come first so a run that
 * would exhaust memory fails early. Outputs are put back in input order by the caller.
 */
export interface BatchPlan {
  /** Each batch lists input positions, longest text first. */
  batches: number[][];
  /** Sum over batches of size x longest length: tokens actually computed, padding included. */
  paddedTokens: number;
}

export function planBatches(lengths: readonly number[], batchSize: number, maxBatchTokens: number): BatchPlan {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  if (!(maxBatchTokens >= 1)) throw new Error(`maxBatchTokens must be >= 1, got ${maxBatchTokens}`);
  const order = lengths.map((_, i) => i);
  order.sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const batches: number[][] = [];
  let paddedTokens = 0;
  let cur: number[] = [];
  let width = 0;
  for (const i of order) {
    const len = lengths[i]!;
    const w = Math.max(width, len);
    if (cur.length > 0 && (cur.length >= batchSize || (cur.length + 1) * w > maxBatchTokens)) {
      batches.push(cur);
      paddedTokens += cur.length * width;
      cur = [];
    }
    if (cur.length === 0) width = len;
    cur.push(i);
    width = Math.max(width, len);
  }
  if (cur.length > 0) {
    batches.push(cur);
    paddedTokens += cur.length * width;
  }
  return { batches, paddedTokens };
}
