/**
 * Exact brute-force inner-product top-k over float32 vectors (docs/protocol.md §3).
 *
 * Each score is the inner product accumulated in double precision and rounded once to float32
 * (`Math.fround`): deterministic, independent of blocking, and within an ulp or so of the
 * float32 matmul the paper ran. Ranking: score descending, ties by document id in descending
 * byte order (the trec_eval rule), so the top-k cut is reproducible when float32 scores tie.
 */
import { compareUtf8 as compareIdBytes, tieRanks } from '../../../metrics/rank.js';

export { compareIdBytes, tieRanks };

/** Row-major float32 matrix: row i = data[i*dim .. (i+1)*dim). */
export interface VectorMatrix {
  data: Float32Array;
  rows: number;
  dim: number;
}

/** Ranked hits of one query: document row indices and their float32 scores, best first. */
export interface TopK {
  indices: Int32Array;
  scores: Float32Array;
}

/** Packs vectors (all of one dimension) into a row-major matrix. */
export function toMatrix(vectors: readonly Float32Array[], dim?: number): VectorMatrix {
  const d = dim ?? vectors[0]?.length ?? 0;
  const data = new Float32Array(vectors.length * d);
  vectors.forEach((v, i) => {
    if (v.length !== d) throw new Error(`vector ${i} has dimension ${v.length}, expected ${d}`);
    data.set(v, i * d);
  });
  return { data, rows: vectors.length, dim: d };
}

/** float32 inner product of row `a` of A and row `b` of B (double accumulation, one rounding). */
export function dotRows(A: VectorMatrix, a: number, B: VectorMatrix, b: number): number {
  const d = A.dim;
  const x = A.data;
  const y = B.data;
  let s = 0;
  const oa = a * d;
  const ob = b * d;
  for (let j = 0; j < d; j++) s += x[oa + j]! * y[ob + j]!;
  return Math.fround(s);
}

/** Min-heap of (score, tie rank) holding the current best k; root = worst kept hit. */
class TopKHeap {
  readonly idx: Int32Array;
  readonly score: Float64Array;
  size = 0;
  constructor(
    readonly k: number,
    private readonly rank: Int32Array,
  ) {
    this.idx = new Int32Array(k);
    this.score = new Float64Array(k);
  }
  /** true when hit (s, i) ranks below hit (t, j). */
  private worse(s: number, i: number, t: number, j: number): boolean {
    return s < t || (s === t && this.rank[i]! < this.rank[j]!);
  }
  offer(s: number, i: number): void {
    const { k, idx, score } = this;
    if (this.size < k) {
      let c = this.size++;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (!this.worse(s, i, score[p]!, idx[p]!)) break;
        idx[c] = idx[p]!;
        score[c] = score[p]!;
        c = p;
      }
      idx[c] = i;
      score[c] = s;
      return;
    }
    if (!this.worse(score[0]!, idx[0]!, s, i)) return; // not better than the worst kept
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= k) break;
      const r = l + 1;
      let m = l;
      if (r < k && this.worse(score[r]!, idx[r]!, score[l]!, idx[l]!)) m = r;
      if (!this.worse(score[m]!, idx[m]!, s, i)) break;
      idx[c] = idx[m]!;
      score[c] = score[m]!;
      c = m;
    }
    idx[c] = i;
    score[c] = s;
  }
  /** Threshold test without touching the heap: could (s, i) enter? */
  admits(s: number, i: number): boolean {
    return this.size < this.k || this.worse(this.score[0]!, this.idx[0]!, s, i);
  }
  drain(): TopK {
    const n = this.size;
    const order = Array.from({ length: n }, (_, t) => t);
    order.sort((a, b) => this.score[b]! - this.score[a]! || this.rank[this.idx[b]!]! - this.rank[this.idx[a]!]!);
    const indices = new Int32Array(n);
    const scores = new Float32Array(n);
    order.forEach((t, r) => {
      indices[r] = this.idx[t]!;
      scores[r] = this.score[t]!;
    });
    return { indices, scores };
  }
}

/** Ranks candidate rows (with their float32 scores) by the tie rule, keeping the best k. */
export function rankCandidates(rows: ArrayLike<number>, scores: ArrayLike<number>, rank: Int32Array, k: number): TopK {
  const heap = new TopKHeap(Math.max(0, Math.min(k, rows.length)), rank);
  if (heap.k === 0) return { indices: new Int32Array(0), scores: new Float32Array(0) };
  for (let t = 0; t < rows.length; t++) heap.offer(scores[t]!, rows[t]!);
  return heap.drain();
}

const Q_BLOCK = 4;
const D_TILE = 512;

/**
 * Exact top-min(k, N) of every query by inner product. Blocked: documents are swept in tiles
 * of 512 rows (kept in cache while every query visits them), 4 queries share each document
 * row load. Scores: double accumulation, one rounding to float32.
 */
export function exactTopK(docs: VectorMatrix, docIds: readonly string[], queries: VectorMatrix, k: number): TopK[] {
  if (docs.rows !== docIds.length) throw new Error(`exactTopK: ${docs.rows} vectors but ${docIds.length} ids`);
  if (docs.rows > 0 && queries.rows > 0 && docs.dim !== queries.dim) {
    throw new Error(`exactTopK: document dimension ${docs.dim} != query dimension ${queries.dim}`);
  }
  const rank = tieRanks(docIds);
  const kk = Math.max(0, Math.min(k, docs.rows));
  const heaps = Array.from({ length: queries.rows }, () => new TopKHeap(kk, rank));
  if (kk === 0) return heaps.map((h) => h.drain());
  const d = docs.dim;
  const X = docs.data;
  const Q = queries.data;
  for (let t0 = 0; t0 < docs.rows; t0 += D_TILE) {
    const t1 = Math.min(docs.rows, t0 + D_TILE);
    for (let q0 = 0; q0 < queries.rows; q0 += Q_BLOCK) {
      const nq = Math.min(Q_BLOCK, queries.rows - q0);
      // Rows past the end alias the block's first query; their sums are computed but unused.
      const o0 = q0 * d;
      const o1 = (nq > 1 ? q0 + 1 : q0) * d;
      const o2 = (nq > 2 ? q0 + 2 : q0) * d;
      const o3 = (nq > 3 ? q0 + 3 : q0) * d;
      const h0 = heaps[q0]!;
      const h1 = heaps[nq > 1 ? q0 + 1 : q0]!;
      const h2 = heaps[nq > 2 ? q0 + 2 : q0]!;
      const h3 = heaps[nq > 3 ? q0 + 3 : q0]!;
      for (let r = t0; r < t1; r++) {
        const ox = r * d;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let j = 0; j < d; j++) {
          const x = X[ox + j]!;
          s0 += Q[o0 + j]! * x;
          s1 += Q[o1 + j]! * x;
          s2 += Q[o2 + j]! * x;
          s3 += Q[o3 + j]! * x;
        }
        const f0 = Math.fround(s0);
        if (h0.admits(f0, r)) h0.offer(f0, r);
        if (nq > 1) {
          const f1 = Math.fround(s1);
          if (h1.admits(f1, r)) h1.offer(f1, r);
        }
        if (nq > 2) {
          const f2 = Math.fround(s2);
          if (h2.admits(f2, r)) h2.offer(f2, r);
        }
        if (nq > 3) {
          const f3 = Math.fround(s3);
          if (h3.admits(f3, r)) h3.offer(f3, r);
        }
      }
    }
  }
  return heaps.map((h) => h.drain());
}
