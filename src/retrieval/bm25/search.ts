/**
 * BM25 query scoring and top-k selection with bm25s 0.3.3 semantics:
 * - scores accumulate in a float32 array, one `+=` per query token occurrence and document,
 *   in query-token order (numpy `np.add.at` on float32), so a token present 3 times counts 3 times;
 * - tokens absent from the index vocabulary are ignored; an empty token list scores nothing;
 * - the best min(k, N) documents are taken and only scores > 0 are kept (the official SkillRet
 *   script's filter), so fewer than k hits, or none, are possible.
 *
 * Speed: terms present in at least a quarter of the documents are scored from a dense float32
 * row (score per document, 0 where absent, built lazily and kept) in groups of up to four
 * consecutive query terms, one pass over the accumulator per group. Per document this adds the
 * same float32 values in the same order (adding 0 leaves a float32 sum unchanged), so the
 * scores are bit-identical to the plain term-at-a-time loop (tested), with fewer accumulator
 * loads and stores for the common terms that dominate long queries (~25% less query time on
 * the full-size benchmark).
 *
 * Tie order. bm25s picks the top k with `np.argpartition` + `np.argsort` (introselect /
 * quicksort; on x86 numpy 2.x dispatches to SIMD sorts), whose order among equal scores is
 * unspecified and differs by CPU, so it cannot be reproduced. Here equal scores are ordered by
 * a tie rank, higher first: by default the document number (so doc number descending); the
 * retriever passes each document's rank in byte order of its id, i.e. trec_eval's order
 * (score desc, doc id desc). Only which of several documents tied at the k-th score get in can
 * differ from a given bm25s run; every score, and every hit above the boundary score, is identical.
 */
import { SimdRows, simdAvailable } from './simd.js';
import type { Bm25Hit, Bm25Index } from './types.js';

export interface SearchOptions {
  /** Per document: larger wins a tie on score. Default: the document number. */
  tieRank?: ArrayLike<number>;
  /**
   * Terms with at least this many postings are scored from dense rows. Default
   * max(64, ceil(N / 4)); Infinity turns dense rows off. Results do not depend on it.
   */
  denseMinDf?: number;
  /**
   * Add dense rows with the WebAssembly SIMD kernel (simd.ts), any number of consecutive rows per
   * pass. Default: where the runtime has WebAssembly SIMD. Results do not depend on it (tested).
   */
  simd?: boolean;
}

/** Reusable query scorer for one index (keeps its score buffer between queries). */
export class Bm25Searcher {
  private acc: Float32Array;
  /** Accumulator and dense rows in WebAssembly memory (undefined: the JavaScript loops). */
  private readonly simd: SimdRows | undefined;
  private readonly denseAt = new Map<number, number>();
  private heapDoc: Int32Array = new Int32Array(64);
  private heapScore: Float64Array = new Float64Array(64);
  /** Terms with at least this many postings are scored from dense rows. */
  private readonly denseMinDf: number;
  private readonly denseRows = new Map<number, Float32Array>();
  private readonly group: Float32Array[] = [];
  private readonly tieRank: ArrayLike<number> | undefined;

  constructor(
    readonly index: Bm25Index,
    opts: SearchOptions = {},
  ) {
    const { tieRank } = opts;
    if (tieRank !== undefined && tieRank.length !== index.numDocs) {
      throw new RangeError(`tieRank has ${tieRank.length} entries for ${index.numDocs} documents`);
    }
    this.tieRank = tieRank;
    const simd = opts.simd ?? simdAvailable();
    this.simd = simd && index.numDocs > 0 ? new SimdRows(index.numDocs) : undefined;
    this.acc = this.simd ? this.simd.acc : new Float32Array(index.numDocs);
    this.denseMinDf = opts.denseMinDf ?? Math.max(64, Math.ceil(index.numDocs / 4));
  }

  /** Term ids of the query tokens found in the vocabulary, in order, with repeats. */
  termIds(queryTokens: readonly string[]): number[] {
    const ids: number[] = [];
    for (const token of queryTokens) {
      const id = this.index.vocab.get(token);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** Top min(k, N) documents with score > 0, best first (ties: higher tie rank first). */
  search(queryTokens: readonly string[], k: number): Bm25Hit[] {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be an integer >= 0, got ${k}`);
    return this.searchTerms(this.termIds(queryTokens), k);
  }

  /** `search` for the query's term ids (`termIds(queryTokens)`): the index's vocabulary is not used. */
  searchTerms(terms: readonly number[], k: number): Bm25Hit[] {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be an integer >= 0, got ${k}`);
    const { numDocs } = this.index;
    if (terms.length === 0 || k === 0 || numDocs === 0) return [];
    this.accumulate(terms);
    const hits = this.selectTop(Math.min(k, numDocs));
    this.acc.fill(0);
    return hits;
  }

  /** Adds every query term's scores into `acc`, per document in query-term order. */
  private accumulate(terms: readonly number[]): void {
    if (this.simd !== undefined) {
      this.accumulateSimd(this.simd, terms);
      return;
    }
    const { postingStart, postingDoc, postingScore } = this.index;
    const acc = this.acc;
    const group = this.group;
    group.length = 0;
    for (const t of terms) {
      const start = (postingStart[t] as number) | 0;
      const end = (postingStart[t + 1] as number) | 0;
      if (end - start >= this.denseMinDf) {
        group.push(this.denseRow(t, start, end));
        if (group.length === 4) addRows(acc, group);
      } else {
        if (group.length > 0) addRows(acc, group);
        addPostings(acc, postingDoc, postingScore, start, end);
      }
    }
    if (group.length > 0) addRows(acc, group);
  }

  /** `accumulate` with the dense rows in WebAssembly memory: the same additions in the same order. */
  private accumulateSimd(simd: SimdRows, terms: readonly number[]): void {
    const { postingStart, postingDoc, postingScore } = this.index;
    const minDf = this.denseMinDf;
    // Rows first: allocating one may grow the memory, which moves the accumulator's view.
    for (const t of terms) {
      if (((postingStart[t + 1] as number) - (postingStart[t] as number)) >= minDf && !this.denseAt.has(t)) {
        const { at, row } = simd.allocRow();
        for (let j = postingStart[t] as number, end = postingStart[t + 1] as number; j < end; j++) row[postingDoc[j] as number] = postingScore[j] as number;
        this.denseAt.set(t, at);
      }
    }
    const acc = (this.acc = simd.acc);
    for (const t of terms) {
      const start = (postingStart[t] as number) | 0;
      const end = (postingStart[t + 1] as number) | 0;
      if (end - start >= minDf) simd.push(this.denseAt.get(t) as number);
      else {
        simd.flush();
        addPostings(acc, postingDoc, postingScore, start, end);
      }
    }
    simd.flush();
  }

  private denseRow(t: number, start: number, end: number): Float32Array {
    let row = this.denseRows.get(t);
    if (row === undefined) {
      row = new Float32Array(this.index.numDocs);
      const { postingDoc, postingScore } = this.index;
      for (let j = start; j < end; j++) row[postingDoc[j] as number] = postingScore[j] as number;
      this.denseRows.set(t, row);
    }
    return row;
  }

  /** Partial selection with a size-k min-heap (worst kept hit at the root). */
  private selectTop(k: number): Bm25Hit[] {
    const acc = this.acc;
    const rank = this.tieRank;
    if (this.heapDoc.length < k) {
      this.heapDoc = new Int32Array(k);
      this.heapScore = new Float64Array(k);
    }
    const hd = this.heapDoc;
    const hs = this.heapScore;
    const rankOf = (d: number): number => (rank === undefined ? d : (rank[d] as number));
    // a is worse than b
    const worse = (sa: number, da: number, sb: number, db: number): boolean =>
      sa < sb || (sa === sb && rankOf(da) < rankOf(db));
    let size = 0;
    const n = acc.length;
    for (let d = 0; d < n; d++) {
      const s = acc[d] as number;
      if (!(s > 0)) continue;
      if (size < k) {
        // sift up
        let i = size++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          const ps = hs[parent] as number;
          const pd = hd[parent] as number;
          if (!worse(s, d, ps, pd)) break;
          hs[i] = ps;
          hd[i] = pd;
          i = parent;
        }
        hs[i] = s;
        hd[i] = d;
      } else if (worse(hs[0] as number, hd[0] as number, s, d)) {
        // replace root, sift down
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= size) break;
          let c = l;
          const r = l + 1;
          if (r < size && worse(hs[r] as number, hd[r] as number, hs[l] as number, hd[l] as number)) c = r;
          if (!worse(hs[c] as number, hd[c] as number, s, d)) break;
          hs[i] = hs[c] as number;
          hd[i] = hd[c] as number;
          i = c;
        }
        hs[i] = s;
        hd[i] = d;
      }
    }
    const hits: Bm25Hit[] = [];
    for (let i = 0; i < size; i++) hits.push({ doc: hd[i] as number, score: hs[i] as number });
    hits.sort((x, y) => y.score - x.score || rankOf(y.doc) - rankOf(x.doc));
    return hits;
  }
}

/** acc[d] += scores[j] for the postings start..end-1 (float32 store rounds each sum). */
function addPostings(acc: Float32Array, docs: Int32Array, scores: Float32Array, start: number, end: number): void {
  for (let j = start; j < end; j++) {
    const d = docs[j] as number;
    acc[d] = (acc[d] as number) + (scores[j] as number);
  }
}

/** Adds 1-4 dense rows in order, rounding to float32 after each addition, then empties `rows`. */
function addRows(acc: Float32Array, rows: Float32Array[]): void {
  const n = acc.length;
  const f = Math.fround;
  const r0 = rows[0] as Float32Array;
  const r1 = (rows[1] ?? r0) as Float32Array;
  const r2 = (rows[2] ?? r0) as Float32Array;
  const r3 = (rows[3] ?? r0) as Float32Array;
  switch (rows.length) {
    case 1:
      for (let d = 0; d < n; d++) acc[d] = (acc[d] as number) + (r0[d] as number);
      break;
    case 2:
      for (let d = 0; d < n; d++) acc[d] = f((acc[d] as number) + (r0[d] as number)) + (r1[d] as number);
      break;
    case 3:
      for (let d = 0; d < n; d++) acc[d] = f(f((acc[d] as number) + (r0[d] as number)) + (r1[d] as number)) + (r2[d] as number);
      break;
    case 4:
      for (let d = 0; d < n; d++) {
        acc[d] = f(f(f((acc[d] as number) + (r0[d] as number)) + (r1[d] as number)) + (r2[d] as number)) + (r3[d] as number);
      }
      break;
    default:
      throw new Error(`addRows: ${rows.length} rows`);
  }
  rows.length = 0;
}

/**
 * Scores one tokenized query (use `tokenize`; apply the NONE rule first if you want the
 * official behaviour, see `queryTokens`) and returns the top min(k, N) hits with score > 0.
 */
export function searchBm25(index: Bm25Index, queryTokens: readonly string[], k: number, opts: SearchOptions = {}): Bm25Hit[] {
  return new Bm25Searcher(index, opts).search(queryTokens, k);
}
