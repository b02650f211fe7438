/**
 * SIF weighting (Arora, Liang & Ma 2017, "A simple but tough-to-beat baseline for sentence embeddings") baked
 * into a word-vector table, without any evaluation text:
 *
 * - p(w): Zipf's law over the source frequency ranking, p(r) = 1 / (r · H_N), H_N = Σ_{k=1..N} 1/k, with r the
 *   word's 1-based rank in the source list (GloVe frequency order) and N the list's length.
 * - weight(w) = a / (a + p(w)), a = 1e-3.
 * - u: the direction of the expected SIF sentence vector under that unigram model, Σ_w p(w) weight(w) e_w,
 *   normalised (summed over the words the tokenizer can produce). For long texts every SIF vector concentrates
 *   around this mean, so it is what the first principal component of a corpus' sentence vectors estimates —
 *   computed here from the vocabulary alone, not from the evaluation corpus.
 * - table row: P (weight(w) e_w), P = I − u uᵀ. Mean pooling of rows then gives P applied to the SIF average, so
 *   after L2 normalisation a plain mean-pooling embedder yields the SIF direction with the component removed.
 */
import type { WordVectors } from './vectors.js';

export const SIF_A = 1e-3;

/** H_n = Σ_{k=1..n} 1/k. */
export function harmonicNumber(n: number): number {
  let h = 0;
  for (let k = n; k >= 1; k--) h += 1 / k; // small terms first: less rounding
  return h;
}

/** Zipf probability of the word of 1-based rank `rank` among `n` words. */
export function zipfProbability(rank: number, n: number, hn: number = harmonicNumber(n)): number {
  return 1 / (rank * hn);
}

/** p(w) and a/(a+p(w)) for every kept word. */
export function sifWeights(v: Pick<WordVectors, 'ranks' | 'sourceSize'>, a: number = SIF_A): { p: Float64Array; weight: Float64Array } {
  const hn = harmonicNumber(v.sourceSize);
  const p = Float64Array.from(v.ranks, (r) => zipfProbability(r, v.sourceSize, hn));
  const weight = p.map((x) => a / (a + x));
  return { p, weight };
}

/** Unit vector along Σ_w p(w) weight(w) e_w. */
export function expectedSifDirection(v: WordVectors, p: Float64Array, weight: Float64Array): Float64Array {
  const u = new Float64Array(v.dim);
  for (let i = 0; i < v.words.length; i++) {
    const c = p[i]! * weight[i]!;
    for (let k = 0; k < v.dim; k++) u[k]! += c * v.data[i * v.dim + k]!;
  }
  const n = Math.hypot(...u);
  if (!(n > 0)) throw new Error('SIF: the expected sentence vector is zero');
  return u.map((x) => x / n);
}

/** Rows P (weight(w) e_w) with P = I − u uᵀ, row-major [words, dim]. */
export function sifTable(v: WordVectors, weight: Float64Array, u: Float64Array): Float32Array {
  const out = new Float32Array(v.data.length);
  const d = v.dim;
  for (let i = 0; i < v.words.length; i++) {
    let dot = 0;
    for (let k = 0; k < d; k++) dot += v.data[i * d + k]! * u[k]!;
    for (let k = 0; k < d; k++) out[i * d + k] = weight[i]! * (v.data[i * d + k]! - dot * u[k]!);
  }
  return out;
}

/** Rows e_w / |e_w| (zero rows stay zero), row-major [words, dim]. */
export function unitTable(v: WordVectors): Float32Array {
  const out = new Float32Array(v.data.length);
  const d = v.dim;
  for (let i = 0; i < v.words.length; i++) {
    let s = 0;
    for (let k = 0; k < d; k++) s += v.data[i * d + k]! ** 2;
    const n = Math.sqrt(s);
    if (n > 0) for (let k = 0; k < d; k++) out[i * d + k] = v.data[i * d + k]! / n;
  }
  return out;
}
