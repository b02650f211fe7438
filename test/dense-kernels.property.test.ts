/**
 * The dense-retrieval kernels against their plain definitions:
 *
 * - Exact search. Plain definition: every document's score is the inner product summed in double,
 *   components in order, rounded once to float32; hits sorted by score descending, then document id
 *   in descending UTF-8 byte order (trec_eval's rule), the first min(k, N). The blocked JavaScript
 *   kernel `exactTopK` (retrieval/dense/indexes/exact.ts: 4 queries per document load, documents in tiles of 512)
 *   and the GEMM-screened `exactTopKFast` (indexes/exact-fast.ts: onnxruntime float32 GEMM over
 *   blocks of floor(16 Mi / N) queries, then exact re-scoring of the candidates) must equal it, bit
 *   for bit, ties included.
 * - Mean pooling. Plain definition: per component, the rows (real tokens) added in order into a
 *   double starting at 0, divided by their count, stored float32 (then L2-normalised in float32 on
 *   request). `sumRows` / `poolBatch` (pooling.ts: eight components in locals over chunks of 64
 *   tokens) must give the same bits, Float32 and Float64 states alike.
 *
 * Capacities crossed: query counts around Q_BLOCK = 4 (1..10), document counts at D_TILE = 512 · m
 * ± 2, dimensions 1..20 and 31..33 (not multiples of 4 or 8), k = 0, 1, N − 1, N, N + 1 and far
 * above N, exact score ties (duplicate vectors, zero vectors) across tiles and at the k cut; the
 * GEMM query block at N = 2^17 ± 1 (blocks of 127 or 128 queries) with the block ± 2 queries, and the
 * MIN_WORK = 2·10^7 switch between the kernels; pooled token counts at 64 · m ± 2 (m = 1..3),
 * hidden sizes 1..17 and 63..65, masks with gaps and either padding side, batches of 1..3 and
 * 16 ± 2 rows, with and without filler rows after the pooled ones.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { compareUtf8 } from '../src/metrics/rank.js';
import { exactTopK, type TopK, type VectorMatrix } from '../src/retrieval/dense/indexes/exact.js';
import { exactTopKFast } from '../src/retrieval/dense/indexes/exact-fast.js';
import { poolBatch, sumRows } from '../src/retrieval/dense/embedding/pooling.js';

const f32 = Math.fround;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// ---------------------------------------------------------------------------------------------
// Exact search

/** Distinct ids whose byte order differs from row order (non-ASCII prefixes, a bijection of the row). */
function makeIds(seed: number, n: number): string[] {
  const r = rng(seed ^ 0x7f4a7c15);
  return Array.from({ length: n }, (_, i) => {
    const u = r();
    const prefix = u < 0.2 ? 'é' : u < 0.35 ? '\u{1F600}' : u < 0.5 ? '\uFF5E' : 'd';
    return `${prefix}${(Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(36)}`;
  });
}

/** Vector families: random float32 values, values from a small set (exact ties), or cancelling ones. */
type Family = 'random' | 'coarse' | 'cancel';

/**
 * n vectors of dimension d: random float32 values of mixed signs and magnitudes ('random'), values
 * from a small set (exact ties, 'coarse'), or small values plus +B and −B in two components
 * ('cancel': the exact scores against a constant query differ by less than a float32 GEMM's
 * rounding error, so the GEMM can order them wrongly and only the screening margin saves the top-k).
 * Some rows are copies of earlier ones (duplicates: equal scores), some copies with one component
 * one ulp away (near ties), some all zero.
 */
function makeVectors(seed: number, n: number, d: number, family: Family): VectorMatrix {
  const r = rng(seed);
  const data = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    const u = r();
    if (u < 0.03) continue; // zero vector
    if (u < 0.35 && i > 0) {
      const from = Math.floor(r() * i);
      data.copyWithin(i * d, from * d, from * d + d);
      // or a near copy: one component one float32 ulp away
      if (u >= 0.25) {
        const j = i * d + Math.floor(r() * d);
        data[j] = nextUlp(data[j]!, r() < 0.5 ? 1 : -1);
      }
      continue;
    }
    for (let j = 0; j < d; j++) {
      if (family === 'coarse') data[i * d + j] = (Math.floor(r() * 5) - 2) / 2;
      else if (family === 'cancel') data[i * d + j] = f32((r() - 0.5) * 2 ** -Math.floor(r() * 12));
      else data[i * d + j] = f32((r() - 0.45) * 2 ** Math.floor(r() * 6 - 3));
    }
    if (family === 'cancel' && d >= 2) {
      // mostly first and last (a sum in component order absorbs the small ones in between)
      const big = 2 ** (8 + Math.floor(r() * 8));
      const j1 = r() < 0.7 ? 0 : Math.floor(r() * d);
      const j2 = r() < 0.7 && j1 !== d - 1 ? d - 1 : (j1 + 1 + Math.floor(r() * (d - 1))) % d;
      data[i * d + j1] = big;
      data[i * d + j2] = -big;
    }
  }
  return { data, rows: n, dim: d };
}

/** Queries for a family: 'cancel' ones are constant vectors (1 or 0.5 everywhere), so the big parts cancel exactly. */
function makeQueries(seed: number, nq: number, d: number, family: Family): VectorMatrix {
  if (family !== 'cancel') return makeVectors(seed ^ 0x3c6ef372, nq, d, family);
  return { data: Float32Array.from({ length: nq * d }, (_, i) => (Math.floor(i / d) % 2 === 0 ? 1 : 0.5)), rows: nq, dim: d };
}

/** The float32 next to x (one ulp up or down; x finite). */
function nextUlp(x: number, dir: 1 | -1): number {
  const b = new Float32Array([x]);
  const u = new Int32Array(b.buffer);
  if (x === 0) u[0] = dir > 0 ? 1 : -2147483647;
  else u[0]! += (x > 0) === dir > 0 ? 1 : -1;
  return b[0]!;
}

/** The plain definition (see the module comment). */
function plainTopK(D: VectorMatrix, ids: readonly string[], Q: VectorMatrix, k: number): TopK[] {
  const out: TopK[] = [];
  for (let q = 0; q < Q.rows; q++) {
    const all: { r: number; s: number }[] = [];
    for (let r = 0; r < D.rows; r++) {
      let s = 0;
      for (let j = 0; j < D.dim; j++) s += Q.data[q * Q.dim + j]! * D.data[r * D.dim + j]!;
      all.push({ r, s: f32(s) });
    }
    all.sort((a, b) => b.s - a.s || compareUtf8(ids[b.r]!, ids[a.r]!));
    const top = all.slice(0, Math.max(0, k));
    out.push({ indices: Int32Array.from(top, (x) => x.r), scores: Float32Array.from(top, (x) => x.s) });
  }
  return out;
}

function sameTopK(got: readonly TopK[], want: readonly TopK[]): boolean {
  if (got.length !== want.length) return false;
  for (let q = 0; q < want.length; q++) {
    const g = got[q]!;
    const w = want[q]!;
    if (g.indices.length !== w.indices.length) return false;
    for (let i = 0; i < w.indices.length; i++) if (g.indices[i] !== w.indices[i] || !Object.is(g.scores[i], w.scores[i])) return false;
  }
  return true;
}

function expectSameTopK(got: readonly TopK[], want: readonly TopK[], label: string): void {
  if (sameTopK(got, want)) return;
  const show = (t: readonly TopK[]) => t.map((x) => ({ indices: [...x.indices], scores: [...x.scores] }));
  expect(show(got), label).toEqual(show(want));
}

const near = (c: number) => [c - 2, c - 1, c, c + 1, c + 2];

describe('exact inner-product top-k: blocked kernel and GEMM screening = dot products + full sort', () => {
  const docCounts = fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 0, max: 40 }) }, { weight: 1, arbitrary: fc.constantFrom(...near(512), ...near(1024)) });
  const families = fc.constantFrom<Family>('random', 'coarse', 'cancel');
  const dims = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(31, 32, 33));
  /** k relative to N: none, one, N − 1, N, N + 1, far above, or anywhere. */
  const ks = fc.oneof(fc.constantFrom('0', '1', 'n-1', 'n', 'n+1', 'big'), fc.integer({ min: 0, max: 60 }));
  const kOf = (k: string | number, n: number): number =>
    typeof k === 'number' ? k : { '0': 0, '1': 1, 'n-1': Math.max(0, n - 1), n, 'n+1': n + 1, big: n + 1000 }[k]!;

  test.prop([docCounts, fc.integer({ min: 0, max: 10 }), dims, ks, families, fc.integer()], { numRuns: 120 })(
    'exactTopK: query blocks of 4, document tiles of 512, any dimension, ties at the k cut',
    (n, nq, d, k, family, seed) => {
      const D = makeVectors(seed, n, d, family);
      const Q = makeQueries(seed, nq, d, family);
      const ids = makeIds(seed, n);
      const kk = kOf(k, n);
      expectSameTopK(exactTopK(D, ids, Q, kk), plainTopK(D, ids, Q, kk), `n=${n} q=${nq} d=${d} k=${kk}`);
    },
  );

  test.prop([docCounts, fc.integer({ min: 0, max: 10 }), dims, ks, families, fc.integer(), fc.constantFrom(undefined, 1, 2)], { numRuns: 60 })(
    'exactTopKFast (GEMM forced): the same hits and float32 scores, ties included',
    async (n, nq, d, k, family, seed, threads) => {
      const D = makeVectors(seed, n, d, family);
      const Q = makeQueries(seed, nq, d, family);
      const ids = makeIds(seed, n);
      const kk = kOf(k, n);
      const got = await exactTopKFast(D, ids, Q, kk, threads === undefined ? { forceGemm: true } : { forceGemm: true, threads });
      expectSameTopK(got, plainTopK(D, ids, Q, kk), `n=${n} q=${nq} d=${d} k=${kk}`);
    },
  );

  // N = 2^17 - 1 or 2^17: blocks of floor(16 Mi / N) = 128 queries; 2^17 + 1: blocks of 127.
  // Queries: the block ± 2 (one block, exactly one full block, a full block and a tail of 1 or 2).
  // The work (N · queries · 3) is above MIN_WORK = 2·10^7, so the GEMM path runs unforced.
  // Reference: exactTopK, tied to the plain definition above (a full sort of 128 K scores for each
  // of 130 queries would be slow).
  test.prop([fc.constantFrom(2 ** 17 - 1, 2 ** 17, 2 ** 17 + 1), fc.constantFrom(-2, -1, 0, 1, 2), fc.integer(), fc.constantFrom(300, 1000)], { numRuns: 4 })(
    'exactTopKFast at 2^17 ± 1 documents: query blocks of 127 or 128 ± 2, tails included',
    async (n, delta, seed, k) => {
      const nq = Math.floor(2 ** 24 / n) + delta;
      const d = 3;
      // 4096 distinct vectors (B, s, -B), B = 2^8..2^11, s in [0.45, 0.5), repeated: every top-k is
      // a run of exact ties broken by id bytes, and the GEMM, which sums in component order, rounds
      // B + s to a multiple of ulp(B): its scores are out of order by up to 2^-13 while the exact
      // ones are ~10^-5 apart, so only the screening margin keeps the exact top-k among the candidates.
      const r = rng(seed);
      const distinct = new Float32Array(4096 * d);
      for (let v = 0; v < 4096; v++) {
        const big = 2 ** (8 + Math.floor(r() * 4));
        distinct.set([big, f32(0.45 + 0.05 * r()), -big], v * d);
      }
      const data = new Float32Array(n * d);
      for (let i = 0; i < n; i++) {
        const v = (Math.imul(i, 0x9e3779b1) >>> 20) & 4095;
        data.set(distinct.subarray(v * d, v * d + d), i * d);
      }
      const D: VectorMatrix = { data, rows: n, dim: d };
      // constant queries whose norms span 2^-6 .. 2^6, period 13 (prime to the block sizes): each
      // query's margin must be its own norm's, in every block
      const Q: VectorMatrix = { data: Float32Array.from({ length: nq * d }, (_, i) => 2 ** ((Math.floor(i / d) % 13) - 6)), rows: nq, dim: d };
      const ids = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `é${i}` : `d${i}`));
      const got = await exactTopKFast(D, ids, Q, k);
      expectSameTopK(got, exactTopK(D, ids, Q, k), `n=${n} q=${nq} k=${k}`);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Mean pooling

/** Values whose additions round differently in another order: mixed magnitudes and signs, 0 and −0. */
function stateValue(r: () => number, float32: boolean): number {
  const u = r();
  if (u < 0.05) return -0;
  if (u < 0.1) return 0;
  const x = (r() - 0.4) * 10 ** Math.floor(r() * 9 - 4);
  return float32 ? f32(x) : x;
}

/** The plain sum: per component, a double from 0, the rows in order. */
function plainSumRows(data: ArrayLike<number>, offsets: ArrayLike<number>, n: number, H: number): Float64Array {
  const acc = new Float64Array(H);
  for (let j = 0; j < H; j++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += data[offsets[k]! + j]!;
    acc[j] = s;
  }
  return acc;
}

type Mask = number[] | Int32Array | BigInt64Array;

/** The plain pooling of the first `rows` rows (see the module comment). */
function plainPool(data: ArrayLike<number>, mask: ArrayLike<number | bigint>, B: number, T: number, H: number, pooling: 'mean' | 'cls' | 'last_token', normalize: boolean, rows: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < rows; b++) {
    const real: number[] = [];
    for (let t = 0; t < T; t++) if (Number(mask[b * T + t]) !== 0) real.push(t);
    const acc = new Float64Array(H);
    if (pooling === 'mean') {
      for (let j = 0; j < H; j++) {
        let s = 0;
        for (const t of real) s += data[(b * T + t) * H + j]!;
        acc[j] = s / real.length;
      }
    } else {
      const t = pooling === 'cls' ? real[0]! : real[real.length - 1]!;
      for (let j = 0; j < H; j++) acc[j] = data[(b * T + t) * H + j]!;
    }
    const v = Float32Array.from(acc);
    if (normalize) {
      let ss = 0;
      for (let j = 0; j < H; j++) ss += v[j]! * v[j]!;
      const norm = Math.max(Math.sqrt(ss), 1e-12);
      for (let j = 0; j < H; j++) v[j] = v[j]! / norm;
    }
    out.push(v);
  }
  return out;
}

describe('blocked mean pooling = the plain per-component sums, bit for bit', () => {
  const tokenCounts = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...near(64), ...near(128), ...near(192)) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 70 }) });
  const hiddens = fc.oneof(fc.integer({ min: 1, max: 17 }), fc.constantFrom(63, 64, 65));

  test.prop([tokenCounts, hiddens, fc.boolean(), fc.integer(), fc.boolean()], { numRuns: 300 })(
    'sumRows: chunks of 64 rows, eight components in locals, any tail',
    (n, H, float32, seed, repeats) => {
      const r = rng(seed);
      const rowsAvailable = n + 5;
      const data = float32 ? new Float32Array(rowsAvailable * H) : new Float64Array(rowsAvailable * H);
      for (let i = 0; i < data.length; i++) data[i] = stateValue(r, float32);
      // rows in any order, with gaps, some taken twice
      const offsets = Int32Array.from({ length: n }, (_, k) => (repeats ? Math.floor(r() * rowsAvailable) : (k + Math.floor(r() * 5)) % rowsAvailable) * H);
      const acc = Float64Array.from({ length: H }, () => r() * 1e6); // sumRows starts from 0 whatever acc held
      sumRows(acc, data, offsets, n, H);
      const want = plainSumRows(data, offsets, n, H);
      for (let j = 0; j < H; j++) if (!Object.is(acc[j], want[j])) expect({ n, H, j, got: acc[j] }).toEqual({ n, H, j, got: want[j] });
    },
  );

  test.prop(
    [
      fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom(...near(16))),
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...near(64), ...near(128)) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 9 }) }),
      hiddens,
      fc.constantFrom<'mean' | 'cls' | 'last_token'>('mean', 'mean', 'cls', 'last_token'),
      fc.boolean(),
      fc.boolean(),
      fc.constantFrom<'numbers' | 'int32' | 'bigint'>('numbers', 'int32', 'bigint'),
      fc.integer({ min: 0, max: 2 }),
      fc.integer(),
    ],
    { numRuns: 150 },
  )('poolBatch: token counts at 64·m ± 2, masks with gaps, either padding side, filler rows', (B, T, H, pooling, normalize, float32, maskKind, fillers, seed) => {
    const r = rng(seed);
    const data = float32 ? new Float32Array(B * T * H) : new Float64Array(B * T * H);
    for (let i = 0; i < data.length; i++) data[i] = stateValue(r, float32);
    const rows = Math.max(0, B - Math.min(fillers, B));
    const bits: number[] = [];
    for (let b = 0; b < B; b++) {
      const real = Math.floor(r() * (T + 1));
      const left = r() < 0.3; // left padding (decoders)
      const gaps = r() < 0.4; // holes anywhere
      const row = Array.from({ length: T }, (_, t) => (left ? t >= T - real : t < real) && !(gaps && r() < 0.3) ? 1 : 0);
      // every pooled row keeps a real token; filler rows after them may have none
      if (b < rows && !row.includes(1)) row[Math.floor(r() * T)] = 1;
      bits.push(...row);
    }
    const mask: Mask = maskKind === 'numbers' ? bits : maskKind === 'int32' ? Int32Array.from(bits) : BigInt64Array.from(bits, (x) => BigInt(x));
    const got = poolBatch({ data, batch: B, tokens: T, hidden: H }, mask, pooling, normalize, rows);
    const want = plainPool(data, mask, B, T, H, pooling, normalize, rows);
    expect(got.length).toBe(want.length);
    got.forEach((v, b) => {
      for (let j = 0; j < H; j++) if (!Object.is(v[j], want[b]![j])) expect({ b, j, got: v[j] }).toEqual({ b, j, got: want[b]![j] });
    });
  });
});
