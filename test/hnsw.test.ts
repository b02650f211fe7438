import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exactTopK, type TopK, type VectorMatrix } from '../src/retrieval/dense/indexes/exact.js';
import { buildHnsw, buildOrLoadHnsw, hnswKey, hnswTopK, DEFAULT_HNSW } from '../src/retrieval/dense/indexes/hnsw.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Unit vectors around a few hundred random centres: embedding-like (clustered, anisotropic). */
function clustered(rows: number, dim: number, seed: number, centres = 60): VectorMatrix {
  const r = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const C = Array.from({ length: centres }, () => Array.from({ length: dim }, gauss));
  const data = new Float32Array(rows * dim);
  for (let i = 0; i < rows; i++) {
    const c = C[Math.floor(r() * centres)]!;
    let n = 0;
    for (let j = 0; j < dim; j++) {
      const v = c[j]! + 0.6 * gauss();
      data[i * dim + j] = v;
      n += v * v;
    }
    for (let j = 0; j < dim; j++) data[i * dim + j] = data[i * dim + j]! / Math.sqrt(n);
  }
  return { data, rows, dim };
}

function overlap(a: TopK[], b: TopK[], k: number): number {
  let s = 0;
  a.forEach((x, q) => {
    const want = new Set([...b[q]!.indices].slice(0, k));
    s += [...x.indices].slice(0, k).filter((i) => want.has(i)).length / k;
  });
  return s / a.length;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skr-hnsw-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const D = clustered(2000, 32, 1);
const Q = clustered(100, 32, 2);
const ids = Array.from({ length: D.rows }, (_, i) => `doc-${i}`);

describe('HNSW index', () => {
  it('recovers the exact top-10 (overlap >= 0.99) with the default parameters, scores re-computed exactly', async () => {
    const logs: string[] = [];
    const h = await buildOrLoadHnsw(D, DEFAULT_HNSW, { cacheDir: dir, useCache: false, log: (l) => logs.push(l) });
    const approx = hnswTopK(h.index, D, ids, Q, 10, DEFAULT_HNSW.efSearch);
    const exact = exactTopK(D, ids, Q, 10);
    expect(overlap(approx, exact, 10)).toBeGreaterThanOrEqual(0.99);
    // Wherever HNSW found the same document, it carries the exact float32 score.
    const exactScore = new Map<string, number>();
    exact.forEach((t, q) => t.indices.forEach((i, r) => exactScore.set(`${q}:${i}`, t.scores[r]!)));
    approx.forEach((t, q) =>
      t.indices.forEach((i, r) => {
        const e = exactScore.get(`${q}:${i}`);
        if (e !== undefined) expect(t.scores[r]).toBe(e);
      }),
    );
    expect(h.info.path).toBeNull();
    expect(logs).toEqual([]);
  });

  it('a tiny efSearch loses recall (the check above can fail)', () => {
    const idx = buildHnsw(D, { M: 4, efConstruction: 8, seed: 1 });
    const approx = hnswTopK(idx, D, ids, Q, 10, 1);
    expect(overlap(approx, exactTopK(D, ids, Q, 10), 10)).toBeLessThan(0.99);
  });

  it('builds deterministically: two builds give byte-identical files', () => {
    const p = { M: 16, efConstruction: 100, seed: 7 };
    const a = join(dir, 'a.bin');
    const b = join(dir, 'b.bin');
    buildHnsw(D, p).writeIndexSync(a);
    buildHnsw(D, p).writeIndexSync(b);
    const ba = readFileSync(a);
    expect(ba.length).toBeGreaterThan(D.rows * D.dim * 4);
    expect(ba.equals(readFileSync(b))).toBe(true);
    // A different seed changes the graph.
    const c = join(dir, 'c.bin');
    buildHnsw(D, { ...p, seed: 8 }).writeIndexSync(c);
    expect(ba.equals(readFileSync(c))).toBe(false);
  });

  it('persists under <cacheDir>/hnsw/<key>.bin and reuses it; a damaged file is rebuilt with one log line', async () => {
    const cacheDir = join(dir, 'cache');
    const p = { M: 16, efConstruction: 100, efSearch: 64, seed: 3 };
    const logs: string[] = [];
    const o = { cacheDir, useCache: true, log: (l: string) => logs.push(l) };
    const first = await buildOrLoadHnsw(D, p, o);
    expect(first.info.reused).toBe(false);
    expect(first.info.path).toBe(join(cacheDir, 'hnsw', `${hnswKey(D, p)}.bin`));
    const r1 = hnswTopK(first.index, D, ids, Q, 10, p.efSearch);

    const second = await buildOrLoadHnsw(D, p, o);
    expect(second.info.reused).toBe(true);
    expect(hnswTopK(second.index, D, ids, Q, 10, p.efSearch)).toEqual(r1);

    // efSearch is a query-time setting: same key.
    expect(hnswKey(D, { ...p, efSearch: 999 } as typeof p)).toBe(hnswKey(D, p));
    // Different vectors or build parameters: different key.
    expect(hnswKey(D, { ...p, M: 8 })).not.toBe(hnswKey(D, p));
    const D2 = { ...D, data: D.data.slice() };
    D2.data[0] = D2.data[0]! + 1e-3;
    expect(hnswKey(D2, p)).not.toBe(hnswKey(D, p));

    const path = first.info.path!;
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 100)); // truncated
    const third = await buildOrLoadHnsw(D, p, o);
    expect(third.info.reused).toBe(false);
    expect(third.info.rebuiltBecause).toMatch(/^its bin file is \d+ bytes, expected \d+$/);
    // The report names the entry (the graph's size and SHA-256 beside it) that vouches for the graph file.
    const entry = path.replace(/\.bin$/, '.json');
    expect(logs).toEqual([`cache: hnsw entry ${entry} is damaged (${third.info.rebuiltBecause}); computing it again`]);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readdirSync(join(cacheDir, 'hnsw')).sort()).toEqual([`${hnswKey(D, p)}.bin`, `${hnswKey(D, p)}.json`]);

    // A bit flipped in the graph, the graph gone, the entry damaged: each reported once and rebuilt.
    const flipped = Buffer.from(bytes);
    flipped[flipped.length >> 1]! ^= 4;
    const entryText = readFileSync(entry, 'utf8');
    const damages: [() => void, RegExp][] = [
      [() => writeFileSync(path, flipped), /^its bin file fails its SHA-256 check$/],
      [() => rmSync(path), /^its bin file is missing$/],
      [() => writeFileSync(entry, entryText.replace(/"size":(\d)/, (_m, d: string) => `"size":${(Number(d) + 1) % 10}`)), /^checksum mismatch$/],
      [() => writeFileSync(entry, entryText.slice(0, 40)), /^no header line$/],
    ];
    for (const [damage, why] of damages) {
      damage();
      logs.length = 0;
      const again = await buildOrLoadHnsw(D, p, o);
      expect(again.info.reused).toBe(false);
      expect(again.info.rebuiltBecause).toMatch(why);
      expect(logs).toEqual([`cache: hnsw entry ${entry} is damaged (${again.info.rebuiltBecause}); computing it again`]);
      expect(hnswTopK(again.index, D, ids, Q, 10, p.efSearch)).toEqual(r1);
      expect(readFileSync(path).equals(bytes)).toBe(true);
      expect(readFileSync(entry, 'utf8')).toBe(entryText);
    }
    // A graph without its entry is not trusted (nothing vouches for it): rebuilt, silently.
    rmSync(entry);
    logs.length = 0;
    expect((await buildOrLoadHnsw(D, p, o)).info.reused).toBe(false);
    expect(logs).toEqual([]);
  });
});
