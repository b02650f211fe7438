/**
 * Pooling of a batch of token states [B, T, H] into one vector per text, using the attention
 * mask [B, T] (1 = real token, 0 = padding), whatever the padding side:
 *   cls        - the first real token (position 0 with right padding),
 *   mean       - mean over real tokens (sentence-transformers' masked mean),
 *   last_token - the last real token (Qwen3-Embedding: the appended <|endoftext|>).
 * Sums run in double precision; results are float32. Optional L2 normalisation divides by
 * max(norm, 1e-12), like torch.nn.functional.normalize.
 */
import type { Pooling } from '../../../models/embedder-presets.js';

export interface HiddenStates {
  /** Row-major [B, T, H]. */
  data: ArrayLike<number>;
  batch: number;
  tokens: number;
  hidden: number;
}

/** Positions of a row's real tokens: the first, the last and how many (first = -1: none). */
interface RowSpan {
  first: number;
  last: number;
  count: number;
}

/** Reader of a 0/1 mask (numbers or bigints); a bigint array is compared as bigints, without conversion. */
function maskReader(mask: ArrayLike<number | bigint>): (i: number) => boolean {
  if (mask instanceof BigInt64Array || mask instanceof BigUint64Array) {
    const m = mask;
    return (i) => m[i] !== 0n;
  }
  return (i) => Number(mask[i]) !== 0;
}

/** The real tokens of row b of a [B, T] mask. */
function rowSpan(on: (i: number) => boolean, b: number, T: number): RowSpan {
  let first = -1;
  let last = -1;
  let count = 0;
  for (let t = 0, i = b * T; t < T; t++, i++) {
    if (!on(i)) continue;
    if (first < 0) first = t;
    last = t;
    count++;
  }
  return { first, last, count };
}

/**
 * One vector per row of the batch, for its first `rows` rows (default all: the planner's filler
 * rows after the real ones need no vector).
 */
export function poolBatch(h: HiddenStates, mask: ArrayLike<number | bigint>, pooling: Pooling, normalize: boolean, rows = h.batch): Float32Array[] {
  const { batch: B, tokens: T, hidden: H, data } = h;
  if (mask.length !== B * T) throw new Error(`pooling: mask has ${mask.length} entries, expected ${B}x${T}`);
  if (!Number.isInteger(rows) || rows < 0 || rows > B) throw new Error(`pooling: ${rows} rows asked of a batch of ${B}`);
  const on = maskReader(mask);
  const out: Float32Array[] = [];
  const acc = new Float64Array(H);
  const offsets = new Int32Array(pooling === 'mean' ? T : 0);
  for (let b = 0; b < rows; b++) {
    const { first, last, count } = rowSpan(on, b, T);
    if (count === 0) throw new Error(`pooling: text ${b} of the batch has no real token`);
    if (pooling === 'mean') {
      let n = 0;
      for (let t = first; t <= last; t++) if (on(b * T + t)) offsets[n++] = (b * T + t) * H;
      sumRows(acc, data, offsets, n, H);
      for (let j = 0; j < H; j++) acc[j] = acc[j]! / count;
    } else {
      const o = (b * T + (pooling === 'cls' ? first : last)) * H;
      for (let j = 0; j < H; j++) acc[j] = data[o + j]!;
    }
    const v = new Float32Array(H);
    if (normalize) {
      // Normalise the float32 pooled vector (what a float32 model output would hold).
      for (let j = 0; j < H; j++) v[j] = acc[j]!;
      let ss = 0;
      for (let j = 0; j < H; j++) ss += v[j]! * v[j]!;
      const n = Math.max(Math.sqrt(ss), 1e-12);
      for (let j = 0; j < H; j++) v[j] = v[j]! / n;
    } else {
      for (let j = 0; j < H; j++) v[j] = acc[j]!;
    }
    out.push(v);
  }
  return out;
}

/** Tokens per pass of `sumRows`: 64 rows of H floats stay in cache while each block of components is summed over them. */
const CHUNK = 64;

/**
 * acc[j] = Σₖ data[offsets[k] + j] for k = 0 … n−1, in double precision, k ascending: for each
 * component the same additions in the same order as a loop over the rows, hence the same bits
 * (0 + x is x, −0 included: +0 + −0 = +0 either way). Eight components at a time are kept in
 * locals over a chunk of rows, three times faster than adding row by row into `acc`.
 */
export function sumRows(acc: Float64Array, data: ArrayLike<number>, offsets: Int32Array, n: number, H: number): void {
  acc.fill(0);
  for (let c0 = 0; c0 < n; c0 += CHUNK) {
    const c1 = Math.min(n, c0 + CHUNK);
    let j = 0;
    for (; j + 8 <= H; j += 8) {
      let s0 = acc[j]!;
      let s1 = acc[j + 1]!;
      let s2 = acc[j + 2]!;
      let s3 = acc[j + 3]!;
      let s4 = acc[j + 4]!;
      let s5 = acc[j + 5]!;
      let s6 = acc[j + 6]!;
      let s7 = acc[j + 7]!;
      for (let k = c0; k < c1; k++) {
        const o = offsets[k]! + j;
        s0 += data[o]!;
        s1 += data[o + 1]!;
        s2 += data[o + 2]!;
        s3 += data[o + 3]!;
        s4 += data[o + 4]!;
        s5 += data[o + 5]!;
        s6 += data[o + 6]!;
        s7 += data[o + 7]!;
      }
      acc[j] = s0;
      acc[j + 1] = s1;
      acc[j + 2] = s2;
      acc[j + 3] = s3;
      acc[j + 4] = s4;
      acc[j + 5] = s5;
      acc[j + 6] = s6;
      acc[j + 7] = s7;
    }
    for (; j < H; j++) {
      let sj = acc[j]!;
      for (let k = c0; k < c1; k++) sj += data[offsets[k]! + j]!;
      acc[j] = sj;
    }
  }
}

/** L2 norm of a vector (double precision). */
export function l2norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j]! * v[j]!;
  return Math.sqrt(s);
}
