import { describe, expect, it } from 'vitest';
import { compareIdBytes, exactTopK, tieRanks, toMatrix, type VectorMatrix } from '../src/retrieval/dense/indexes/exact.js';
import { exactTopKFast } from '../src/retrieval/dense/indexes/exact-fast.js';
import { overlapAtK } from '../src/retrieval/dense/indexes/hnsw-audit.js';
import type { Run } from '../src/core/types.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
}

function randomMatrix(rows: number, dim: number, seed: number, normalize = true): VectorMatrix {
  const r = rng(seed);
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows; i++) {
    let n = 0;
    for (let j = 0; j < dim; j++) {
      const v = r();
      data[i * dim + j] = v;
      n += v * v;
    }
    if (normalize) for (let j = 0; j < dim; j++) data[i * dim + j] = data[i * dim + j]! / Math.sqrt(n);
  }
  return { data, rows, dim };
}

/** Naive reference: all scores, sort by (score desc, id bytes desc). */
function naiveTopK(D: VectorMatrix, ids: string[], Q: VectorMatrix, k: number) {
  const out: { idx: number[]; scores: number[] }[] = [];
  for (let q = 0; q < Q.rows; q++) {
    const all = ids.map((_, r) => {
      let s = 0;
      for (let j = 0; j < D.dim; j++) s += Q.data[q * Q.dim + j]! * D.data[r * D.dim + j]!;
      return { r, s: Math.fround(s) };
    });
    all.sort((a, b) => b.s - a.s || compareIdBytes(ids[b.r]!, ids[a.r]!));
    const top = all.slice(0, k);
    out.push({ idx: top.map((x) => x.r), scores: top.map((x) => x.s) });
  }
  return out;
}

describe('exact inner-product top-k', () => {
  it('matches a naive full sort (scores are the float32 rounding of the exact dot)', () => {
    const D = randomMatrix(300, 24, 1);
    const Q = randomMatrix(9, 24, 2); // 9 = two full blocks of 4 + one partial
    const ids = Array.from({ length: 300 }, (_, i) => `d${String(i).padStart(3, '0')}`);
    const got = exactTopK(D, ids, Q, 10);
    const want = naiveTopK(D, ids, Q, 10);
    expect(got.map((g) => [...g.indices])).toEqual(want.map((w) => w.idx));
    expect(got.map((g) => [...g.scores])).toEqual(want.map((w) => w.scores));
  });

  it('breaks score ties by document id in descending byte order, also at the k cut', () => {
    // Five documents with the same vector (equal scores) and one better one.
    const D = toMatrix([
      Float32Array.from([1, 0]),
      Float32Array.from([1, 0]),
      Float32Array.from([1, 0]),
      Float32Array.from([2, 0]),
      Float32Array.from([1, 0]),
      Float32Array.from([1, 0]),
    ]);
    const ids = ['b', 'd', 'a', 'z', 'c', 'é']; // 'é' (0xC3 0xA9) sorts after every ASCII id by bytes
    const Q = toMatrix([Float32Array.from([1, 0])]);
    const top = exactTopK(D, ids, Q, 4)[0]!;
    expect([...top.indices].map((i) => ids[i])).toEqual(['z', 'é', 'd', 'c']);
    expect([...top.scores]).toEqual([2, 1, 1, 1]);
  });

  it('returns min(k, N) hits and handles k larger than the corpus', () => {
    const D = randomMatrix(3, 4, 5);
    const Q = randomMatrix(2, 4, 6);
    const got = exactTopK(D, ['x', 'y', 'z'], Q, 20);
    expect(got.map((g) => g.indices.length)).toEqual([3, 3]);
  });

  it('tieRanks orders ids by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FF5E (3 bytes EF BD 9E) vs U+1F600 (4 bytes F0 9F 98 80): bytes say the emoji is larger,
    // UTF-16 code units say the opposite (0xFF5E > 0xD83D).
    const r = tieRanks(['\uFF5E', '\u{1F600}', 'a']);
    expect([...r]).toEqual([1, 2, 0]);
  });
});

describe('exact top-k via GEMM screening', () => {
  it('is identical, bit for bit, to the reference kernel (random unit vectors)', async () => {
    const D = randomMatrix(500, 48, 11);
    const Q = randomMatrix(40, 48, 12);
    const ids = Array.from({ length: 500 }, (_, i) => `id-${i}`);
    const ref = exactTopK(D, ids, Q, 20);
    const fast = await exactTopKFast(D, ids, Q, 20, { forceGemm: true });
    expect(fast.map((t) => [...t.indices])).toEqual(ref.map((t) => [...t.indices]));
    expect(fast.map((t) => [...t.scores])).toEqual(ref.map((t) => [...t.scores]));
  });

  it('keeps exact ties and unnormalised vectors right', async () => {
    const base = randomMatrix(60, 8, 21, false);
    // Duplicate every vector under another id, scale some rows: many exact ties, varied norms.
    const rows: Float32Array[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const v = base.data.slice(i * 8, i * 8 + 8).map((x) => x * (1 + (i % 3)));
      rows.push(v, v.slice());
      ids.push(`a${i}`, `b${i}`);
    }
    const D = toMatrix(rows);
    const Q = randomMatrix(7, 8, 22, false);
    const ref = exactTopK(D, ids, Q, 15);
    const fast = await exactTopKFast(D, ids, Q, 15, { forceGemm: true });
    expect(fast.map((t) => [...t.indices])).toEqual(ref.map((t) => [...t.indices]));
    // Each tie pair appears b before a (descending bytes).
    const first = ref[0]!;
    for (let r = 0; r + 1 < first.indices.length; r += 2) {
      expect(ids[first.indices[r]!]!.startsWith('b')).toBe(true);
      expect(first.scores[r]).toBe(first.scores[r + 1]);
    }
  });
});

describe('overlapAtK', () => {
  const run = (lists: Record<string, [string, number][]>): Run =>
    new Map(Object.entries(lists).map(([q, l]) => [q, l.map(([docId, score]) => ({ docId, score }))]));

  it('averages |approx top-k ∩ exact top-k| / k over the exact run queries', () => {
    const exact = run({
      q1: [['a', 0.9], ['b', 0.8], ['c', 0.7], ['d', 0.6]],
      q2: [['x', 0.5], ['y', 0.4], ['z', 0.3], ['w', 0.2]],
    });
    const approx = run({
      q1: [['a', 0.9], ['c', 0.7], ['d', 0.6], ['e', 0.1]], // top2 {a,c} ∩ {a,b} = 1; top4: {a,c,d} = 3
      q2: [['x', 0.5], ['y', 0.4], ['z', 0.3], ['w', 0.2]], // identical
    });
    const o = overlapAtK(approx, exact, [2, 4]);
    expect(o['2']).toBeCloseTo((1 / 2 + 1) / 2, 12);
    expect(o['4']).toBeCloseTo((3 / 4 + 1) / 2, 12);
  });

  it('counts a query missing from the approximate run as 0 and ranks by score, not list order', () => {
    const exact = run({ q1: [['b', 0.1], ['a', 0.9]], q2: [['x', 1]] });
    const approx = run({ q1: [['b', 0.1], ['a', 0.9]] });
    expect(overlapAtK(approx, exact, [1])).toEqual({ '1': 0.5 });
  });
});
