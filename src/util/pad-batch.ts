/**
 * The padded tensor layout of one planned batch (batch-plan.ts), pure: token id lists padded to one
 * width on the left (decoders: the last position is the last real token) or on the right, with a
 * 0/1 attention mask, filled up to the planned row count with copies of the first row.
 */

export interface EncodedInput {
  ids: ArrayLike<number>;
  typeIds?: ArrayLike<number>;
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

/**
 * Pads `realRows` to `width` (default: the longest row) on `side` with `padId`, and fills the batch
 * up to `rowCount` rows with copies of the first row (their outputs are ignored).
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
