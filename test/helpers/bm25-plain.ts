/**
 * The plain definition of BM25 tokenizing (bm25s 0.3.3's `tokenize`, as src/retrieval/bm25/tokenize.ts
 * documents it), written as literally as JavaScript allows, for differential tests of the fast
 * paths (word runs on typed arrays, the FNV-keyed token table, chunked tokenizing):
 * - Python `str.lower()` = `toLowerCase()`;
 * - `re.findall(r"(?u)\b\w\w+\b", text)`: Python's Unicode `\w` is `[\p{L}\p{N}_]` and `\b` the
 *   edge of a run of them, so a match is `(?<!\w)\w\w+(?!\w)` over code points (the `u` flag:
 *   an astral letter is one code point, a lone surrogate a non-word code point of its own);
 * - stop words dropped by exact match; the vocabulary in order of first appearance over the
 *   corpus; a document's (term, tf) pairs in order of first occurrence in it.
 */
import { buildBm25Index } from '../../src/retrieval/bm25/build.js';
import { ENGLISH_STOPWORDS } from '../../src/retrieval/bm25/stopwords.js';
import type { Bm25Index, Bm25Params } from '../../src/retrieval/bm25/types.js';

const W = String.raw`[\p{L}\p{N}_]`;
const WORD_RUN = new RegExp(String.raw`(?<!${W})${W}${W}+(?!${W})`, 'gu');

/** The matches of `\b\w\w+\b` in `s` as [start, end) UTF-16 offsets. */
export function plainWordRuns(s: string): Array<[number, number]> {
  return [...s.matchAll(WORD_RUN)].map((m) => [m.index, m.index + m[0].length]);
}

/** bm25s 0.3.3 `tokenize(text)`: lower-cased (unless `lower` is false) word runs, stop words dropped. */
export function plainTokenize(text: string, stopwords: ReadonlySet<string> | null = ENGLISH_STOPWORDS, lower = true): string[] {
  const s = lower ? text.toLowerCase() : text;
  const out: string[] = [];
  for (const m of s.matchAll(WORD_RUN)) if (stopwords === null || !stopwords.has(m[0])) out.push(m[0]);
  return out;
}

/** Token -> id in order of first appearance over `docs`. */
export function plainVocab(docs: ReadonlyArray<readonly string[]>): Map<string, number> {
  const vocab = new Map<string, number>();
  for (const d of docs) for (const t of d) if (!vocab.has(t)) vocab.set(t, vocab.size);
  return vocab;
}

/** The index of the plainly tokenized texts (the builder's `addDoc` path). */
export function plainIndex(texts: readonly string[], stopwords: ReadonlySet<string> | null = ENGLISH_STOPWORDS, params: Partial<Bm25Params> = {}): Bm25Index {
  return buildBm25Index(
    texts.map((t) => plainTokenize(t, stopwords)),
    params,
  );
}

/** What `tokenizeChunk` gives for `texts`, plainly: local ids in first-appearance order within the chunk. */
export interface PlainChunk {
  tokens: string[];
  docPairEnd: number[];
  docLen: number[];
  pairTerm: number[];
  pairTf: number[];
}

export function plainChunk(texts: readonly string[], stopwords: readonly string[] | null): PlainChunk {
  const stop = new Set(stopwords ?? []);
  const local = new Map<string, number>();
  const out: PlainChunk = { tokens: [], docPairEnd: [], docLen: [], pairTerm: [], pairTf: [] };
  for (const text of texts) {
    const toks = plainTokenize(text, stop);
    const tf = new Map<number, number>(); // insertion order: first occurrence in the document
    for (const t of toks) {
      let id = local.get(t);
      if (id === undefined) {
        local.set(t, (id = local.size));
        out.tokens.push(t);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const [t, f] of tf) {
      out.pairTerm.push(t);
      out.pairTf.push(f);
    }
    out.docPairEnd.push(out.pairTerm.length);
    out.docLen.push(toks.length);
  }
  return out;
}
