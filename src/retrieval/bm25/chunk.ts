/**
 * Tokenizing a chunk of documents on its own (in a worker thread) and merging the chunks back in
 * order, so that the merged index is the one `buildBm25IndexFromTexts` builds from the whole corpus
 * in one pass: the same vocabulary in the same id order (first appearance over the corpus), the
 * same (term, tf) pairs per document, hence the same postings, scores and cache file.
 *
 * A chunk's result holds its own token list (ids local to the chunk, in first-appearance order
 * within it, stop words excluded) and per document the distinct (local term id, tf) pairs in order
 * of first occurrence plus the document length. Merging maps local ids to global ones, adding the
 * chunk's new tokens in their local order: that is exactly first-appearance order over the corpus.
 */
import type { Bm25IndexBuilder } from './build.js';
import { TokenTable } from './token-table.js';
import { WordRuns, findWordRuns, pythonLower } from './tokenize.js';

export interface TokenizedChunk {
  /** Tokens new to this chunk's table, index = local id (stop words excluded). */
  tokens: string[];
  /** Per document: end of its pairs in `pairTerm` / `pairTf`. */
  docPairEnd: Uint32Array;
  /** Per document: tokens kept (after stop words). */
  docLen: Int32Array;
  pairTerm: Int32Array;
  pairTf: Int32Array;
}

/**
 * Tokenizes `texts` (bm25s 0.3.3 tokenizer, `stopwords` removed; null = none) into a chunk result.
 * `count`: how many texts an iterable yields (an array gives its length).
 */
export function tokenizeChunk(texts: readonly string[] | Iterable<string>, stopwords: readonly string[] | null, count?: number): TokenizedChunk {
  const numTexts = count ?? (texts as readonly string[]).length;
  const table = new TokenTable();
  if (stopwords !== null) for (const w of stopwords) table.add(w);
  const numStop = table.size;
  const runs = new WordRuns();
  const docPairEnd = new Uint32Array(numTexts);
  const docLen = new Int32Array(numTexts);
  let pairTerm = new Int32Array(1 << 16);
  let pairTf = new Int32Array(1 << 16);
  let counts = new Int32Array(1 << 14);
  let distinct = new Int32Array(1 << 12);
  let p = 0;
  let d = 0;
  for (const text of texts) {
    if (d >= numTexts) throw new RangeError(`more than ${numTexts} texts`);
    const s = pythonLower(text);
    const count = findWordRuns(s, runs);
    const runData = runs.data;
    let nd = 0;
    let n = 0;
    for (let r = 0; r < count; r++) {
      const id = table.internHashed(s, runData[3 * r]!, runData[3 * r + 1]!, runData[3 * r + 2]!);
      if (id < numStop) continue;
      const t = id - numStop;
      n++;
      if (t >= counts.length) counts = grow(counts, t + 1);
      if (counts[t] === 0) {
        if (nd >= distinct.length) distinct = grow(distinct, nd + 1);
        distinct[nd++] = t;
      }
      counts[t]!++;
    }
    if (p + nd > pairTerm.length) {
      pairTerm = grow(pairTerm, p + nd);
      pairTf = grow(pairTf, p + nd);
    }
    for (let j = 0; j < nd; j++) {
      const t = distinct[j]!;
      pairTerm[p] = t;
      pairTf[p] = counts[t]!;
      counts[t] = 0;
      p++;
    }
    docPairEnd[d] = p;
    docLen[d] = n;
    d++;
  }
  if (d !== numTexts) throw new RangeError(`${d} texts, expected ${numTexts}`);
  return {
    tokens: table.tokens().slice(numStop),
    docPairEnd,
    docLen,
    pairTerm: pairTerm.slice(0, p),
    pairTf: pairTf.slice(0, p),
  };
}

/**
 * Adds a chunk's documents to `builder` (which keeps the chunk's pair arrays, its term ids
 * rewritten to global ones in place), extending `vocab` (term -> global id, insertion order =
 * id order) with the chunk's new tokens. Chunks must be merged in corpus order. Returns the number
 * of tokens the chunk kept.
 */
export function mergeChunk(builder: Bm25IndexBuilder, vocab: Map<string, number>, chunk: TokenizedChunk): number {
  const remap = new Int32Array(chunk.tokens.length);
  for (let i = 0; i < chunk.tokens.length; i++) {
    const token = chunk.tokens[i]!;
    let id = vocab.get(token);
    if (id === undefined) {
      id = vocab.size;
      vocab.set(token, id);
    }
    remap[i] = id;
  }
  const terms = chunk.pairTerm;
  for (let j = 0; j < terms.length; j++) terms[j] = remap[terms[j]!]!;
  builder.addChunk(terms, chunk.pairTf, chunk.docPairEnd, chunk.docLen);
  let total = 0;
  for (let d = 0; d < chunk.docLen.length; d++) total += chunk.docLen[d]!;
  return total;
}

function grow(a: Int32Array, min: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(min, a.length * 2));
  grown.set(a);
  return grown;
}
