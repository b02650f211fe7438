/**
 * The BM25 index data structure (bm25s 0.3.3 "lucene" variant, eager scores) and its
 * parameters. Postings are stored per term (CSR, like bm25s' CSC matrix): for term t,
 * entries postingStart[t] .. postingStart[t+1]-1 hold the documents containing t (ascending
 * doc number) and the precomputed float32 term score idf(t) * tf / (tf + k1 * (1 - b + b * dl / avgdl)).
 */

export interface Bm25Params {
  /** Term-frequency saturation. bm25s default 1.5. */
  k1: number;
  /** Length normalisation. bm25s default 0.75. */
  b: number;
}

/** bm25s 0.3.3 defaults, as the official SkillRet baseline uses them (`bm25s.BM25()`). */
export const BM25S_DEFAULT_PARAMS: Readonly<Bm25Params> = Object.freeze({ k1: 1.5, b: 0.75 });

export interface Bm25Index {
  readonly params: Readonly<Bm25Params>;
  /** N: number of documents (documents are numbered 0..N-1 in input order). */
  readonly numDocs: number;
  /** Mean document length in tokens (after stop-word removal), as a double like numpy's mean. */
  readonly avgdl: number;
  /** Term -> term id (ids are dense, 0..V-1, in first-seen order = Map insertion order). */
  readonly vocab: ReadonlyMap<string, number>;
  /** Per term: float32 idf = ln(1 + (N - df + 0.5) / (df + 0.5)). */
  readonly idf: Float32Array;
  /** Per document: token count after stop-word removal. */
  readonly docLen: Int32Array;
  /** Length V+1: postings of term t are [postingStart[t], postingStart[t+1]). */
  readonly postingStart: Uint32Array;
  /** Document number of each posting (ascending within a term). */
  readonly postingDoc: Int32Array;
  /** Float32 term score of each posting. */
  readonly postingScore: Float32Array;
}

/** One hit of `searchBm25`: document number (position in the indexed corpus) and its float32 score. */
export interface Bm25Hit {
  doc: number;
  score: number;
}
