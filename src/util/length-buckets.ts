/**
 * Length buckets: the padded width a text (or a pair) gets, as a function of its own token count
 * alone. Every batch holds texts of one bucket and is padded to exactly that width, so a text's
 * output never depends on which other texts share its batch (and so never on what was cached, or
 * on where a resumed run restarted): the same input tensors row for row, the same float sums.
 *
 * Widths are multiples of a step that grows with the length (8 up to 64 tokens, then 1/8 of the
 * power of two below the length: 72, 80, … 128, 144, … 256, 288, … 512, 576, …), so padding costs
 * at most 12.5% over the text's own length; a width never exceeds `limit` (the model's token limit,
 * which no input exceeds).
 */
export function bucketWidth(length: number, limit = Number.POSITIVE_INFINITY): number {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`token length must be a non-negative integer, got ${length}`);
  if (length === 0) return 0;
  const step = Math.max(8, 2 ** (Math.floor(Math.log2(length)) - 3));
  const width = Math.ceil(length / step) * step;
  return Math.max(length, Math.min(width, limit));
}
