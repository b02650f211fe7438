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

/** Pairs per segment the builder allocates itself (a document with more gets a segment of its own size). */
const SEGMENT_PAIRS = 1 << 20;

/**
 * (term id, tf) pairs of consecutive documents: pairs [0, used) of `term` / `tf`, global pair
 * numbers [first, first + used). A document's pairs never span two segments.
 */
interface PairSegment {
  term: Int32Array;
  tf: Int32Array;
  used: number;
  first: number;
}

/**
 * Accumulates documents as (term, tf) pairs, then produces the index. The pairs are kept in
 * segments: fixed-size ones the builder fills (`addDoc`, `addDocPairs`), or a tokenized chunk's
 * own arrays, adopted without a copy (`addChunk`). No array is regrown, so the builder holds the
 * pairs once (plus at most one part-filled segment), and `finish` lets each segment go as soon as
 * its postings are placed: building costs the postings plus the pairs, not twice the pairs.
 * A builder is finished once.
 */
export class Bm25IndexBuilder {
  readonly params: Readonly<Bm25Params>;
  private numDocs = 0;
  private totalLength = 0;
  private docLen = new Int32Array(1024);
  /** Global number of (term, tf) pairs at the end of each document. */
  private docPairEnd = new Uint32Array(1024);
  private segments: PairSegment[] = [];
  /** The segment `addDoc` / `addDocPairs` write into (the last of `segments`), if any. */
  private open: PairSegment | undefined;
  private numPairs = 0;
  private counts = new Int32Array(1 << 12);
  private distinct = new Int32Array(1 << 12);
  private finished = false;
  private readonly segmentPairs: number;

  /** `segmentPairs`: pairs per segment the builder allocates (tests make it small; the index does not depend on it). */
  constructor(params: Partial<Bm25Params> = {}, opts: { segmentPairs?: number } = {}) {
    this.params = resolveParams(params);
    this.segmentPairs = opts.segmentPairs ?? SEGMENT_PAIRS;
    if (!Number.isInteger(this.segmentPairs) || this.segmentPairs < 1) throw new RangeError(`segmentPairs must be a positive integer, got ${this.segmentPairs}`);
  }

  /** The open segment, with room for `nd` more pairs (a new one when the open one is full). */
  private room(nd: number): PairSegment {
    if (this.finished) throw new Error('this BM25 index builder is finished');
    const open = this.open;
    if (open !== undefined && open.used + nd <= open.term.length) return open;
    const size = Math.max(this.segmentPairs, nd);
    const seg: PairSegment = { term: new Int32Array(size), tf: new Int32Array(size), used: 0, first: this.numPairs };
    this.segments.push(seg);
    this.open = seg;
    return seg;
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
    const seg = this.room(nd);
    const { term, tf } = seg;
    let p = seg.used;
    for (let j = 0; j < nd; j++) {
      const t = distinct[j] as number;
      term[p] = t;
      tf[p] = counts[t] as number;
      counts[t] = 0;
      p++;
    }
    seg.used = p;
    this.numPairs += nd;
    this.endDoc(length);
  }

  /**
   * Adds the next document from its distinct terms, given as (term id, tf) pairs
   * `terms[start, end)` / `tfs[start, end)` in order of first occurrence (what `addDoc` derives
   * from the token ids), and its length in tokens.
   */
  addDocPairs(terms: ArrayLike<number>, tfs: ArrayLike<number>, start: number, end: number, length: number): void {
    const nd = end - start;
    const seg = this.room(nd);
    const { term, tf } = seg;
    let p = seg.used;
    for (let j = start; j < end; j++) {
      const t = terms[j] as number;
      if (t < 0 || t !== (t | 0)) throw new RangeError(`invalid term id ${t}`);
      term[p] = t;
      tf[p] = tfs[j] as number;
      p++;
    }
    seg.used = p;
    this.numPairs += nd;
    this.endDoc(length);
  }

  /**
   * Adds the next `docLen.length` documents from a tokenized chunk (worker threads, chunk.ts):
   * document i's pairs are `terms` / `tfs` [docPairEnd[i - 1], docPairEnd[i]) (from 0), its
   * length `docLen[i]`. The builder keeps `terms` and `tfs` as they are (no copy): the caller
   * must not change them afterwards. Term ids are checked by `finish`.
   */
  addChunk(terms: Int32Array, tfs: Int32Array, docPairEnd: Uint32Array, docLen: Int32Array): void {
    if (this.finished) throw new Error('this BM25 index builder is finished');
    const n = docLen.length;
    const used = n > 0 ? (docPairEnd[n - 1] as number) : 0;
    if (docPairEnd.length !== n || terms.length < used || tfs.length < used) {
      throw new RangeError(`a chunk of ${n} documents with ${docPairEnd.length} pair ends and ${terms.length}/${tfs.length} pairs`);
    }
    this.open = undefined;
    if (used > 0) this.segments.push({ term: terms, tf: tfs, used, first: this.numPairs });
    const first = this.numPairs;
    let prev = 0;
    for (let d = 0; d < n; d++) {
      const end = docPairEnd[d] as number;
      if (end < prev || end > used) throw new RangeError(`chunk document ${d}: pair end ${end} after ${prev} (of ${used})`);
      prev = end;
      this.numPairs = first + end;
      this.endDoc(docLen[d] as number);
    }
    this.numPairs = first + used;
  }

  private endDoc(length: number): void {
    const d = this.numDocs++;
    if (d >= this.docLen.length) {
      this.docLen = growInt32(this.docLen, d + 1);
      const grown = new Uint32Array(this.docLen.length);
      grown.set(this.docPairEnd);
      this.docPairEnd = grown;
    }
    this.docLen[d] = length;
    this.docPairEnd[d] = this.numPairs;
    this.totalLength += length;
  }

  /**
   * Computes idf, term scores and postings. `vocab` maps every term to its id; all ids used in
   * `addDoc` must be < vocab.size and the ids must be 0..size-1 in Map insertion order.
   * `shared`: allocate the postings and idf on SharedArrayBuffers, so that worker threads can
   * search the index without a copy (same values either way).
   */
  finish(vocab: ReadonlyMap<string, number>, shared = false): Bm25Index {
    if (this.finished) throw new Error('this BM25 index builder is finished');
    this.finished = true;
    const { k1, b } = this.params;
    const numDocs = this.numDocs;
    const numTerms = vocab.size;
    const numPairs = this.numPairs;
    let expected = 0;
    for (const id of vocab.values()) {
      if (id !== expected) throw new RangeError(`vocab ids must be 0..${numTerms - 1} in insertion order (got ${id} at ${expected})`);
      expected++;
    }
    // Taken from the builder, so that each segment can be let go once placed.
    const segments: (PairSegment | undefined)[] = this.segments;
    this.segments = [];
    this.open = undefined;

    const df = new Int32Array(numTerms);
    for (const seg of segments) {
      const term = seg!.term;
      for (let p = 0; p < seg!.used; p++) {
        const t = term[p] as number;
        if (t < 0 || t >= numTerms) throw new RangeError(`term id ${t} is not in the vocabulary (size ${numTerms})`);
        df[t] = (df[t] as number) + 1;
      }
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
    const docPairEnd = this.docPairEnd;
    let d = 0;
    for (let s = 0; s < segments.length; s++) {
      const { term, tf, used, first } = segments[s]!;
      segments[s] = undefined;
      const last = first + used;
      let p = first;
      // Documents whose pairs end in this segment (an empty one at its start included).
      for (; d < numDocs && (docPairEnd[d] as number) <= last; d++) {
        const end = docPairEnd[d] as number;
        if (p === end) continue;
        const dl = this.docLen[d] as number;
        const lengthNorm = k1 * (oneMinusB + (b * dl) / avgdl);
        for (; p < end; p++) {
          const t = term[p - first] as number;
          const f = tf[p - first] as number;
          const at = cursor[t] as number;
          cursor[t] = at + 1;
          postingDoc[at] = d;
          // Float32Array stores round the float64 product to float32, as numpy's assignment does.
          postingScore[at] = (idf[t] as number) * (f / (lengthNorm + f));
        }
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
