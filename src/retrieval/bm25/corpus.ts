/**
 * The fast path from raw document texts to a BM25 index: lower-case, find word runs, intern
 * each run straight into a token id (no per-token strings) and feed the builder one document
 * at a time, so only one document's token ids are alive at once. Gives the same index as
 * `buildBm25Index(texts.map((t) => tokenize(t)))`, i.e. `bm25s.tokenize(texts, stopwords="en")`
 * followed by `BM25().index(...)`.
 */
import { Bm25IndexBuilder } from './build.js';
import { ENGLISH_STOPWORDS } from './stopwords.js';
import { TokenTable } from './token-table.js';
import { WordRuns, findWordRuns, pythonLower } from './tokenize.js';
import type { Bm25Index, Bm25Params } from './types.js';
import type { Progress } from '../../core/context.js';

export interface CorpusIndexResult {
  index: Bm25Index;
  /** Lower-casing, word finding and token interning. */
  tokenizeMs: number;
  /** Term counting per document plus idf/score/postings computation. */
  indexMs: number;
  /** Tokens kept (after stop words) over the corpus. */
  totalTokens: number;
}

export interface CorpusIndexOptions {
  /** Stop words; default bm25s English; null = none. */
  stopwords?: ReadonlySet<string> | null;
  /** Incremented once per document. */
  progress?: Progress;
}

export function buildBm25IndexFromTexts(
  texts: Iterable<string>,
  params: Partial<Bm25Params> = {},
  opts: CorpusIndexOptions = {},
): CorpusIndexResult {
  const stopwords = opts.stopwords === undefined ? ENGLISH_STOPWORDS : opts.stopwords;
  const table = new TokenTable();
  // Stop words take the first ids, so "is a stop word" is `id < numStop` and real terms are
  // renumbered densely by subtracting numStop.
  if (stopwords !== null) for (const w of stopwords) table.add(w);
  const numStop = table.size;
  const builder = new Bm25IndexBuilder(params);
  const runs = new WordRuns();
  let ids = new Int32Array(4096);
  let tokenizeMs = 0;
  let indexMs = 0;
  let totalTokens = 0;
  for (const text of texts) {
    const t0 = performance.now();
    const s = pythonLower(text);
    const count = findWordRuns(s, runs);
    if (count > ids.length) ids = new Int32Array(Math.max(count, ids.length * 2));
    const runData = runs.data;
    let n = 0;
    for (let r = 0; r < count; r++) {
      const id = table.internHashed(s, runData[3 * r] as number, runData[3 * r + 1] as number, runData[3 * r + 2] as number);
      if (id >= numStop) ids[n++] = id - numStop;
    }
    const t1 = performance.now();
    builder.addDoc(ids, n);
    indexMs += performance.now() - t1;
    tokenizeMs += t1 - t0;
    totalTokens += n;
    opts.progress?.increment();
  }
  const t2 = performance.now();
  const vocab = new Map<string, number>();
  const tokens = table.tokens();
  for (let id = numStop; id < tokens.length; id++) vocab.set(tokens[id] as string, id - numStop);
  const index = builder.finish(vocab);
  indexMs += performance.now() - t2;
  return { index, tokenizeMs, indexMs, totalTokens };
}
