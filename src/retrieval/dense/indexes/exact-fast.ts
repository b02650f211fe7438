/**
 * The exact top-k of exact.ts, computed fast: onnxruntime's float32 GEMM screens every
 * (query, document) pair, then only the documents that can still be in the exact top-k are
 * re-scored with the reference arithmetic (double accumulation, one rounding) and ranked by the
 * tie rule. The result is identical, bit for bit, to `exactTopK`.
 *
 * Why it is exact: for a d-term float32 dot product in any summation order (FMA or not),
 * |gemm - true| <= gamma_d * sum|q_j x_j| <= gamma_d * |q| * |x|, gamma_d = d*u / (1 - d*u),
 * u = 2^-24; the reference score differs from the true value by at most one float32 rounding.
 * So with E = (gamma_d + 2^-23) * |q| * max|x| (padded), every document of the exact top-k has
 * a GEMM score >= tau - 2E, tau = the k-th largest GEMM score: there are k documents with GEMM
 * score >= tau, hence true k-th best >= tau - E, and a top-k document's GEMM score is within E
 * of its true score. Those candidates (usually k plus a handful) are re-scored exactly.
 */
import { tieRanks } from '../../../metrics/rank.js';
import * as ort from 'onnxruntime-node';
import { attr, model, node, graph, serializeModel, valueInfo } from '../../../models/onnx/graph.js';
import { dotRows, exactTopK, rankCandidates, type TopK, type VectorMatrix } from './exact.js';

/** Below this many multiply-adds the plain JS kernel is used (no session start-up). */
const MIN_WORK = 2e7;
/** Score block held at once: about 16 M floats (64 MB). */
const BLOCK_FLOATS = 16 * 1024 * 1024;

const sessions = new Map<string, Promise<ort.InferenceSession>>();

/** Y = A · Bᵀ for A [m, d], B [n, d] (float32). */
function gemmModelBytes(): Uint8Array {
  const g = graph({
    name: 'scores',
    nodes: [node('Gemm', ['A', 'B'], ['Y'], { transB: attr.int(1) })],
    inputs: [valueInfo('A', 'float32', ['m', 'd']), valueInfo('B', 'float32', ['n', 'd'])],
    outputs: [valueInfo('Y', 'float32', ['m', 'n'])],
  });
  return serializeModel(model(g, { opset: 13 }));
}

function session(threads: number | undefined): Promise<ort.InferenceSession> {
  const key = String(threads ?? 'default');
  let s = sessions.get(key);
  if (!s) {
    const opts: ort.InferenceSession.SessionOptions = { interOpNumThreads: 1, logSeverityLevel: 3 };
    if (threads !== undefined) opts.intraOpNumThreads = threads;
    s = ort.InferenceSession.create(gemmModelBytes(), opts);
    sessions.set(key, s);
  }
  return s;
}

function rowNorms(m: VectorMatrix): Float64Array {
  const out = new Float64Array(m.rows);
  for (let r = 0; r < m.rows; r++) {
    let s = 0;
    const o = r * m.dim;
    for (let j = 0; j < m.dim; j++) s += m.data[o + j]! * m.data[o + j]!;
    out[r] = Math.sqrt(s);
  }
  return out;
}

/** k-th largest value of row[0..n) (k <= n), by a size-k min-heap. */
function kthLargest(row: Float32Array, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < row.length; i++) {
    const v = row[i]!;
    if (size < k) {
      let c = size++;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (heap[p]! <= v) break;
        heap[c] = heap[p]!;
        c = p;
      }
      heap[c] = v;
    } else if (v > heap[0]!) {
      let c = 0;
      for (;;) {
        const l = 2 * c + 1;
        if (l >= k) break;
        const r = l + 1;
        const m = r < k && heap[r]! < heap[l]! ? r : l;
        if (heap[m]! >= v) break;
        heap[c] = heap[m]!;
        c = m;
      }
      heap[c] = v;
    }
  }
  return heap[0]!;
}

export interface ExactFastOptions {
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
  /** Force the GEMM path even for small inputs (tests). */
  forceGemm?: boolean;
}

export async function exactTopKFast(
  docs: VectorMatrix,
  docIds: readonly string[],
  queries: VectorMatrix,
  k: number,
  o: ExactFastOptions = {},
): Promise<TopK[]> {
  const kk = Math.max(0, Math.min(k, docs.rows));
  const work = docs.rows * queries.rows * docs.dim;
  if (kk === 0 || docs.dim === 0 || (!o.forceGemm && work < MIN_WORK)) return exactTopK(docs, docIds, queries, k);
  if (docs.rows !== docIds.length) throw new Error(`exactTopK: ${docs.rows} vectors but ${docIds.length} ids`);
  if (docs.dim !== queries.dim) throw new Error(`exactTopK: document dimension ${docs.dim} != query dimension ${queries.dim}`);

  const d = docs.dim;
  const u = 2 ** -24;
  const gamma = (d * u) / (1 - d * u);
  const maxDocNorm = rowNorms(docs).reduce((a, b) => Math.max(a, b), 0);
  const qNorms = rowNorms(queries);
  const rank = tieRanks(docIds);
  const s = await session(o.threads);
  const B = new ort.Tensor('float32', docs.data.subarray(0, docs.rows * d), [docs.rows, d]);
  const block = Math.max(1, Math.min(queries.rows, Math.floor(BLOCK_FLOATS / docs.rows)));
  const out: TopK[] = [];
  for (let q0 = 0; q0 < queries.rows; q0 += block) {
    const nq = Math.min(block, queries.rows - q0);
    const A = new ort.Tensor('float32', queries.data.subarray(q0 * d, (q0 + nq) * d), [nq, d]);
    const res = await s.run({ A, B });
    const Y = res['Y']!.data as Float32Array;
    for (let i = 0; i < nq; i++) {
      const row = Y.subarray(i * docs.rows, (i + 1) * docs.rows);
      const tau = kthLargest(row, kk);
      const E = (gamma + 2 * u) * qNorms[q0 + i]! * maxDocNorm * (1 + 1e-6) + 1e-30;
      const floor = tau - 2 * E;
      const cand: number[] = [];
      for (let r = 0; r < docs.rows; r++) if (row[r]! >= floor) cand.push(r);
      const scores = cand.map((r) => dotRows(queries, q0 + i, docs, r));
      out.push(rankCandidates(cand, scores, rank, kk));
    }
    res['Y']!.dispose();
  }
  return out;
}
