/**
 * Building a BM25 index with exactly the arithmetic of bm25s 0.3.3 (`BM25(method="lucene")`,
 * numpy >= 2 type promotion):
 *   avgdl = sum(dl) / N                                          (float64, exact sum)
 *   idf   = float32(log(1 + (N - df + 0.5) / (df + 0.5)))         (Python float64, stored float32)
 *   K_d   = k1 * ((1 - b) + b * dl / avgdl)                        (float64 scalar, this order)
 *   score = float32(idf * (tf / (K_d + tf)))                       (float64, stored float32)
 * The tf part is float64 because avgdl is a numpy float64 scalar, which NEP 50 does not demote
 * when it meets the float32 tf array; the product is rounded once, when stored in the float32
 * score matrix. Terms with df = 0 (none after building) would get idf 0, as in bm25s.
 */
import { BM25S_DEFAULT_PARAMS, type Bm25Index, type Bm25Params } from './types.js';

/** Accumulates documents as arrays of term ids, then produces the index. */
export class Bm25IndexBuilder {
  readonly params: Readonly<Bm25Params>;
  private numDocs = 0;
  private totalLength = 0;
  private docLen = new Int32Array(1024);
  /** Cumulative number of (term, tf) pairs at the end of each document. */
  private docPairEnd = new Uint32Array(1024);
  private pairTerm = new Int32Array(1 << 16);
  private pairTf = new Int32Array(1 << 16);
  private numPairs = 0;
  private counts = new Int32Array(1 << 12);
  private distinct = new Int32Array(1 << 12);

  constructor(params: Partial<Bm25Params> = {}) {
    this.params = resolveParams(params);
  }

  /** Adds the next document (number = documents added so far): its token ids, with repeats, in order. */
  addDoc(termIds: ArrayLike<number>, length: number = termIds.length): void {
    let counts = this.counts;
    let distinct = this.distinct;
    let nd = 0;
    for (let i = 0; i < length; i++) {
      const t = termIds[i] as number;
      if (t < 0 || t !== (t | 0)) throw new RangeError(`invalid term id ${t}`);
      if (t >= counts.length) counts = this.counts = growInt32(counts, t + 1);
      if (counts[t] === 0) {
        if (nd >= distinct.length) distinct = this.distinct = growInt32(distinct, nd + 1);
        distinct[nd++] = t;
      }
      counts[t] = (counts[t] as number) + 1;
    }
    if (this.numPairs + nd > this.pairTerm.length) {
      this.pairTerm = growInt32(this.pairTerm, this.numPairs + nd);
      this.pairTf = growInt32(this.pairTf, this.numPairs + nd);
    }
    const pairTerm = this.pairTerm;
    const pairTf = this.pairTf;
    let p = this.numPairs;
    for (let j = 0; j < nd; j++) {
      const t = distinct[j] as number;
      pairTerm[p] = t;
      pairTf[p] = counts[t] as number;
      counts[t] = 0;
      p++;
    }
    this.numPairs = p;
    this.endDoc(p, length);
  }

  /**
   * Adds the next document from its distinct terms, given as (term id, tf) pairs
   * `terms[start, end)` / `tfs[start, end)` in order of first occurrence (what `addDoc` derives
   * from the token ids), and its length in tokens. Used when documents were tokenized elsewhere
   * (worker threads, parallel.ts).
   */
  addDocPairs(terms: ArrayLike<number>, tfs: ArrayLike<number>, start: number, end: number, length: number): void {
    const nd = end - start;
    if (this.numPairs + nd > this.pairTerm.length) {
      this.pairTerm = growInt32(this.pairTerm, this.numPairs + nd);
      this.pairTf = growInt32(this.pairTf, this.numPairs + nd);
    }
    const pairTerm = this.pairTerm;
    const pairTf = this.pairTf;
    let p = this.numPairs;
    for (let j = start; j < end; j++) {
      const t = terms[j] as number;
      if (t < 0 || t !== (t | 0)) throw new RangeError(`invalid term id ${t}`);
      pairTerm[p] = t;
      pairTf[p] = tfs[j] as number;
      p++;
    }
    this.numPairs = p;
    this.endDoc(p, length);
  }

  private endDoc(p: number, length: number): void {
    const d = this.numDocs++;
    if (d >= this.docLen.length) {
      this.docLen = growInt32(this.docLen, d + 1);
      const grown = new Uint32Array(this.docLen.length);
      grown.set(this.docPairEnd);
      this.docPairEnd = grown;
    }
    this.docLen[d] = length;
    this.docPairEnd[d] = p;
    this.totalLength += length;
  }

  /**
   * Computes idf, term scores and postings. `vocab` maps every term to its id; all ids used in
   * `addDoc` must be < vocab.size and the ids must be 0..size-1 in Map insertion order.
   * `shared`: allocate the postings and idf on SharedArrayBuffers, so that worker threads can
   * search the index without a copy (same values either way).
   */
  finish(vocab: ReadonlyMap<string, number>, shared = false): Bm25Index {
    const { k1, b } = this.params;
    const numDocs = this.numDocs;
    const numTerms = vocab.size;
    const numPairs = this.numPairs;
    let expected = 0;
    for (const id of vocab.values()) {
      if (id !== expected) throw new RangeError(`vocab ids must be 0..${numTerms - 1} in insertion order (got ${id} at ${expected})`);
      expected++;
    }
    const pairTerm = this.pairTerm;
    const pairTf = this.pairTf;

    const df = new Int32Array(numTerms);
    for (let p = 0; p < numPairs; p++) {
      const t = pairTerm[p] as number;
      if (t >= numTerms) throw new RangeError(`term id ${t} is not in the vocabulary (size ${numTerms})`);
      df[t] = (df[t] as number) + 1;
    }

    const alloc = <T>(make: (b: ArrayBuffer | SharedArrayBuffer) => T, bytes: number): T =>
      make(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    const idf = alloc((b) => new Float32Array(b), 4 * numTerms);
    for (let t = 0; t < numTerms; t++) {
      const f = df[t] as number;
      if (f !== 0) idf[t] = Math.log(1 + (numDocs - f + 0.5) / (f + 0.5));
    }

    const postingStart = alloc((b) => new Uint32Array(b), 4 * (numTerms + 1));
    for (let t = 0; t < numTerms; t++) postingStart[t + 1] = (postingStart[t] as number) + (df[t] as number);
    const cursor = postingStart.slice(0, numTerms);
    const postingDoc = alloc((b) => new Int32Array(b), 4 * numPairs);
    const postingScore = alloc((b) => new Float32Array(b), 4 * numPairs);

    const avgdl = numDocs > 0 ? this.totalLength / numDocs : 0;
    const oneMinusB = 1 - b;
    let p = 0;
    for (let d = 0; d < numDocs; d++) {
      const end = this.docPairEnd[d] as number;
      if (p === end) continue;
      const dl = this.docLen[d] as number;
      const lengthNorm = k1 * (oneMinusB + (b * dl) / avgdl);
      for (; p < end; p++) {
        const t = pairTerm[p] as number;
        const tf = pairTf[p] as number;
        const at = cursor[t] as number;
        cursor[t] = at + 1;
        postingDoc[at] = d;
        // Float32Array stores round the float64 product to float32, as numpy's assignment does.
        postingScore[at] = (idf[t] as number) * (tf / (lengthNorm + tf));
      }
    }

    return {
      params: this.params,
      numDocs,
      avgdl,
      vocab,
      idf,
      docLen: this.docLen.slice(0, numDocs),
      postingStart,
      postingDoc,
      postingScore,
    };
  }
}

/**
 * Builds an index from tokenized documents (e.g. `tokenize(text)` of each document).
 * Document numbers are positions in `docTokens`.
 */
export function buildBm25Index(docTokens: Iterable<readonly string[]>, params: Partial<Bm25Params> = {}): Bm25Index {
  const builder = new Bm25IndexBuilder(params);
  const vocab = new Map<string, number>();
  let ids = new Int32Array(1024);
  for (const tokens of docTokens) {
    if (tokens.length > ids.length) ids = new Int32Array(Math.max(tokens.length, ids.length * 2));
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as string;
      let id = vocab.get(token);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(token, id);
      }
      ids[i] = id;
    }
    builder.addDoc(ids, tokens.length);
  }
  return builder.finish(vocab);
}

/** Fills in bm25s defaults and checks the values. */
export function resolveParams(params: Partial<Bm25Params>): Readonly<Bm25Params> {
  const k1 = params.k1 ?? BM25S_DEFAULT_PARAMS.k1;
  const b = params.b ?? BM25S_DEFAULT_PARAMS.b;
  if (!Number.isFinite(k1) || k1 < 0) throw new RangeError(`BM25 k1 must be a finite number >= 0, got ${k1}`);
  if (!Number.isFinite(b) || b < 0 || b > 1) throw new RangeError(`BM25 b must be a number in [0, 1], got ${b}`);
  return Object.freeze({ k1, b });
}

function growInt32(a: Int32Array, min: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(min, a.length * 2));
  grown.set(a);
  return grown;
}
