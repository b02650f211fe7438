/**
 * The BM25 fast paths against their plain definitions:
 *
 * - Index: the plain definition is `buildBm25Index(texts.map(tokenize))` (string tokens, one
 *   document at a time). The fast single-thread build (`buildBm25IndexFromTexts`: interned ids,
 *   builder segments) and the worker-thread build (parallel.ts / worker.ts / chunk.ts: chunks
 *   tokenized apart, merged in corpus order onto SharedArrayBuffers) must give the same index,
 *   field for field and byte for byte once serialized, for 1..4 threads. `Bm25IndexBuilder` fed
 *   term ids (one by one, as pairs, as adopted chunks) must give the index computed straight from
 *   the formulas (df, idf, per-posting float32 scores, postings by term then document).
 * - Scores: the plain definition is term-at-a-time over the postings, one float32 addition
 *   (`Math.fround`) per query token occurrence and document, in query-token order; hits are the
 *   documents with score > 0, ordered by score descending then tie rank descending (document
 *   number by default; trec_eval's doc id in descending UTF-8 byte order in a run), cut at k.
 *   `Bm25Searcher` with dense rows in JavaScript (groups of up to 4 rows) or in the WebAssembly SIMD
 *   kernel (simd.ts), the parallel query (workers, batches of queries) and the serial query must
 *   give exactly that, bit for bit.
 * - Serialization: `writeBm25IndexFile` → `readBm25IndexFile` (plain and shared) gives the index
 *   back field for field, and the file is `serializeBm25Index`'s bytes; the section layout equals
 *   its exact-integer definition (BigInt) at any size, 2 GiB and 4 GiB included.
 *
 * Capacities crossed: the builder's per-document arrays (1024 → doubled: 1024·2^k ± 2
 * documents), its term counts (4096: term ids up to 4096 ± 2) and distinct-term list (4096: one
 * document of 4096 ± 2 distinct terms), its pair segments (injected 1..9 pairs: documents that fill
 * one exactly, overflow it by one, or need one of their own); MIN_PARALLEL_DOCS (2000 ± 2
 * documents), every worker split point (chunks of one document each, a chunk boundary exactly at,
 * one character before and one after a chosen document, one chunk), query batches (1, 2, 3, 7 and
 * the default 64, query counts at multiples ± 2), k around the number of hits and above N;
 * SIMD_BLOCK_DOCS = 16 (document counts at 16·m ± 2, tails of 1..15 documents), the SIMD row list
 * (maxGroup, default 256: runs of 254..258 consecutive dense rows; injected 1..6), the WebAssembly
 * memory growth (rows past the first 16 of 64 KiB, 16384 ± 2 documents), the JS groups of 4 rows
 * (runs of 1..9 dense terms), dense-row thresholds (1, 2, N/4, default, none).
 *
 * The workers run the compiled code in dist/ (as in test/bm25-parallel.test.ts; `npm test` builds it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import type { Query, Run, ScoredDoc } from '../src/core/types.js';
import { compareUtf8, tieRanks } from '../src/metrics/rank.js';
import { Bm25IndexBuilder, buildBm25Index } from '../src/retrieval/bm25/build.js';
import { buildBm25IndexFromTexts } from '../src/retrieval/bm25/corpus.js';
import { Bm25Pool, MIN_PARALLEL_DOCS, buildBm25IndexParallel, queryBm25IndexParallel } from '../src/retrieval/bm25/parallel.js';
import { officialQueryTokens, queryBm25Index } from '../src/retrieval/bm25/query.js';
import { Bm25Searcher } from '../src/retrieval/bm25/search.js';
import { deserializeBm25Index, layout, readBm25IndexFile, serializeBm25Index, writeBm25IndexFile } from '../src/retrieval/bm25/serialize.js';
import { SIMD_BLOCK_DOCS, SimdRows } from '../src/retrieval/bm25/simd.js';
import { tokenize } from '../src/retrieval/bm25/tokenize.js';
import type { Bm25Hit, Bm25Index } from '../src/retrieval/bm25/types.js';
import { expectSameIndex } from './helpers/bm25-index.js';

const f32 = Math.fround;
const dir = mkdtempSync(join(tmpdir(), 'skr-bm25-prop-'));

const pools = new Map<number, Bm25Pool>();
/** One pool per thread count for the whole file (starting workers is the slow part). */
function pool(threads: number): Bm25Pool {
  let p = pools.get(threads);
  if (p === undefined) pools.set(threads, (p = new Bm25Pool(threads)));
  return p;
}
afterAll(async () => {
  await Promise.all([...pools.values()].map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Generated corpora and queries

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Words: a Zipf-like head (some in most documents: dense rows), unicode, case variants. */
const WORDS = [
  ...Array.from({ length: 150 }, (_, i) => `w${i}`),
  'café',
  'ΟΔΟΣ',
  'οδος',
  '数据库',
  'snake_case',
  'x²',
  'naïve',
  'Backup',
  'BACKUP',
];
const STOP = ['the', 'of', 'and', 'a', 'is'];

function pickWord(r: () => number): string {
  const u = r();
  if (u < 0.08) return STOP[Math.floor(r() * STOP.length)]!;
  return WORDS[Math.floor(WORDS.length * r() ** 3)]!;
}

/** n document texts: 0..maxLen words, separators varied; some empty, some exact repeats (ties). */
function makeTexts(seed: number, n: number, maxLen: number): string[] {
  const r = rng(seed);
  const texts: string[] = [];
  for (let d = 0; d < n; d++) {
    const u = r();
    if (u < 0.05) texts.push('');
    else if (u < 0.15 && d > 0) texts.push(texts[Math.floor(r() * d)]!);
    else {
      const len = Math.floor(r() * (maxLen + 1));
      const parts: string[] = [];
      for (let i = 0; i < len; i++) parts.push(pickWord(r));
      texts.push(parts.join(r() < 0.5 ? ' ' : ', '));
    }
  }
  return texts;
}

/** Query texts: short and long, stop words only (NONE), empty, unknown words, repeated tokens. */
function makeQueries(seed: number, n: number): Query[] {
  const r = rng(seed ^ 0x5bd1e995);
  return Array.from({ length: n }, (_, i) => {
    const u = r();
    let text: string;
    if (u < 0.05) text = '';
    else if (u < 0.1) text = 'the of and';
    else if (u < 0.13) text = 'zzqqxx unknownword';
    else if (u < 0.2) text = Array.from({ length: 30 + Math.floor(r() * 40) }, () => pickWord(r)).join(' ');
    else text = Array.from({ length: 1 + Math.floor(r() * 6) }, () => pickWord(r)).join(' ');
    return { id: `q${i}`, text };
  });
}

/** Distinct doc ids whose byte order differs from their number order (non-ASCII, shared prefixes). */
function makeIds(seed: number, n: number): string[] {
  const r = rng(seed ^ 0x1234567);
  return Array.from({ length: n }, (_, d) => {
    const u = r();
    const prefix = u < 0.2 ? 'é' : u < 0.4 ? '\u{1F600}' : u < 0.5 ? '\uFF5E' : 'd';
    return `${prefix}${(Math.imul(d + 1, 0x9e3779b1) >>> 0).toString(36)}`; // a bijection of d: distinct
  });
}

// ---------------------------------------------------------------------------------------------
// Plain definitions

/** Per-document float32 sums over the postings, one addition per query token, in query order. */
function plainScores(index: Bm25Index, tokens: readonly string[]): Float32Array {
  const acc = new Float32Array(index.numDocs);
  for (const token of tokens) {
    const t = index.vocab.get(token);
    if (t === undefined) continue;
    for (let j = index.postingStart[t]!; j < index.postingStart[t + 1]!; j++) {
      const d = index.postingDoc[j]!;
      acc[d] = f32(acc[d]! + index.postingScore[j]!);
    }
  }
  return acc;
}

/** Hits with score > 0, score descending then tie rank descending, the first k. */
function plainTop(index: Bm25Index, tokens: readonly string[], k: number, rank: (d: number) => number = (d) => d): Bm25Hit[] {
  const acc = plainScores(index, tokens);
  const hits: Bm25Hit[] = [];
  for (let d = 0; d < acc.length; d++) if (acc[d]! > 0) hits.push({ doc: d, score: acc[d]! });
  hits.sort((a, b) => b.score - a.score || rank(b.doc) - rank(a.doc));
  return hits.slice(0, k);
}

/** The official run: per query its tokens (NONE rule), plain top-k, ties by doc id bytes descending. */
function plainRun(index: Bm25Index, ids: readonly string[], queries: readonly Query[], k: number): Run {
  const run: Run = new Map();
  for (const q of queries) {
    const acc = plainScores(index, officialQueryTokens(q.text).tokens);
    const docs: ScoredDoc[] = [];
    for (let d = 0; d < acc.length; d++) if (acc[d]! > 0) docs.push({ docId: ids[d]!, score: acc[d]! });
    docs.sort((a, b) => b.score - a.score || compareUtf8(b.docId, a.docId));
    run.set(q.id, docs.slice(0, k));
  }
  return run;
}

/** `expectSameIndex` (test/helpers/bm25-index.ts), element by element first: expect() only on a mismatch (it is slow on 10^5 entries). */
function expectSame(a: Bm25Index, b: Bm25Index): void {
  const same = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  };
  const vocabSame = a.vocab.size === b.vocab.size && [...a.vocab].every(([t, id], i) => id === i && b.vocab.get(t) === id);
  const ok =
    vocabSame &&
    a.numDocs === b.numDocs &&
    Object.is(a.avgdl, b.avgdl) &&
    a.params.k1 === b.params.k1 &&
    a.params.b === b.params.b &&
    same(a.idf, b.idf) &&
    same(a.docLen, b.docLen) &&
    same(a.postingStart, b.postingStart) &&
    same(a.postingDoc, b.postingDoc) &&
    same(a.postingScore, b.postingScore);
  if (!ok) expectSameIndex(a, b);
}

function sameHits(got: readonly Bm25Hit[], want: readonly Bm25Hit[]): boolean {
  if (got.length !== want.length) return false;
  for (let i = 0; i < got.length; i++) if (got[i]!.doc !== want[i]!.doc || !Object.is(got[i]!.score, want[i]!.score)) return false;
  return true;
}

function expectSameRun(got: Run, want: Run): void {
  expect([...got.keys()]).toEqual([...want.keys()]);
  for (const [q, w] of want) {
    const g = got.get(q)!;
    const same = g.length === w.length && g.every((h, i) => h.docId === w[i]!.docId && Object.is(h.score, w[i]!.score));
    if (!same) expect(g, q).toEqual(w);
  }
}

// ---------------------------------------------------------------------------------------------

describe('BM25 worker threads = the single-thread build and query = the plain definition', () => {
  const docCounts = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...[-2, -1, 0, 1, 2].map((e) => MIN_PARALLEL_DOCS + e)) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 40 }) },
  );
  /** Where the chunks end: every document, at a chosen document (exactly, one char short, one over), one chunk. */
  const splits = fc.record({ kind: fc.constantFrom('every', 'at', 'before', 'after', 'one'), where: fc.double({ min: 0, max: 1, noNaN: true }) });
  const batches = fc.constantFrom(1, 2, 3, 7, 64);

  test.prop([fc.constantFrom(1, 2, 3, 4), docCounts, fc.integer(), splits, batches, fc.integer({ min: 0, max: 2 }), fc.integer({ min: -2, max: 2 }), fc.constantFrom(1, 3, 20, 5000)], {
    numRuns: 24,
  })('same index bytes and same runs for 1..4 threads, every split point and query batch', async (threads, n, seed, split, batch, m, delta, k) => {
    const texts = makeTexts(seed, n, 12);
    const ids = makeIds(seed, n);
    const queries = makeQueries(seed, Math.max(0, batch * m + delta));
    // Characters at which the chunk that holds document `at` closes (a chunk closes once its
    // characters reach chunkChars, and never after the last document).
    const at = Math.min(n - 1, Math.floor(split.where * n));
    let upTo = 0;
    for (let d = 0; d <= at; d++) upTo += texts[d]!.length;
    const chunkChars = split.kind === 'every' ? 1 : split.kind === 'one' ? Number.MAX_SAFE_INTEGER : Math.max(1, upTo + (split.kind === 'before' ? -1 : split.kind === 'after' ? 1 : 0));

    const serial = buildBm25IndexFromTexts(texts);
    const plain = buildBm25Index(texts.map((t) => tokenize(t)));
    expectSame(serial.index, plain);

    const p = pool(threads);
    const built = await buildBm25IndexParallel(p, texts, {}, undefined, chunkChars);
    expectSame(built.index, serial.index);
    expect(built.totalTokens).toBe(serial.totalTokens);
    expect(Buffer.compare(serializeBm25Index(built.index), serializeBm25Index(serial.index))).toBe(0);

    const want = plainRun(plain, ids, queries, k);
    const one = queryBm25Index(serial.index, ids, queries, k);
    expectSameRun(one.run, want);
    const par = await queryBm25IndexParallel(p, built.index, ids, queries, k, undefined, batch);
    expectSameRun(par.run, want);
    expect([par.stats.numQueries, par.stats.noneQueries, par.stats.emptyQueries]).toEqual([one.stats.numQueries, one.stats.noneQueries, one.stats.emptyQueries]);
    // the index built in process (not on shared memory), default batch
    const again = await queryBm25IndexParallel(p, serial.index, ids, queries, k);
    expectSameRun(again.run, want);
  });
});

/** The plain index of documents given as term ids (vocabulary `t0..t{V-1}`), straight from the definitions in build.ts. */
function plainIndexOfIds(docs: readonly number[][], V: number, k1 = 1.5, b = 0.75): Bm25Index {
  const N = docs.length;
  const total = docs.reduce((s, d) => s + d.length, 0);
  const avgdl = N > 0 ? total / N : 0;
  const tfs = docs.map((d) => {
    const m = new Map<number, number>();
    for (const t of d) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const idf = new Float32Array(V);
  const postingStart = new Uint32Array(V + 1);
  const postingDoc: number[] = [];
  const postingScore: number[] = [];
  const docsOf: number[][] = Array.from({ length: V }, () => []);
  tfs.forEach((m, d) => [...m.keys()].sort((x, y) => x - y).forEach((t) => docsOf[t]!.push(d)));
  for (let t = 0; t < V; t++) {
    const df = docsOf[t]!.length;
    if (df > 0) idf[t] = Math.log(1 + (N - df + 0.5) / (df + 0.5));
    for (const d of docsOf[t]!) {
      const tf = tfs[d]!.get(t)!;
      postingDoc.push(d);
      postingScore.push(f32(idf[t]! * (tf / (k1 * (1 - b + (b * docs[d]!.length) / avgdl) + tf))));
    }
    postingStart[t + 1] = postingDoc.length;
  }
  return {
    params: { k1, b },
    numDocs: N,
    avgdl,
    vocab: new Map(Array.from({ length: V }, (_, t) => [`t${t}`, t] as [string, number])),
    idf,
    docLen: Int32Array.from(docs, (d) => d.length),
    postingStart,
    postingDoc: Int32Array.from(postingDoc),
    postingScore: Float32Array.from(postingScore),
  };
}

describe('Bm25IndexBuilder = the plain index, whatever its segments and the way documents come', () => {
  /** Documents as term ids: counts at 1024·2^k ± 2 (docLen / docPairEnd), ids up to 4096 ± 2 (counts), one document of 4096 ± 2 distinct terms (distinct). */
  const near = (c: number) => [c - 2, c - 1, c, c + 1, c + 2];
  test.prop(
    [
      fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(...near(1024), ...near(2048))),
      fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(...near(4096))),
      fc.boolean(),
      fc.integer({ min: 1, max: 9 }),
      fc.integer(),
    ],
    { numRuns: 40 },
  )('segments of 1..9 pairs, documents added one by one, as pairs and as adopted chunks', (n, V, wide, segmentPairs, seed) => {
    const r = rng(seed);
    const docs: number[][] = Array.from({ length: n }, () => {
      const len = r() < 0.1 ? 0 : Math.floor(r() * 2 * segmentPairs + 2); // pairs per document around the segment size
      return Array.from({ length: len }, () => Math.floor(V * r() ** 2));
    });
    if (wide && n > 0) docs[Math.floor(r() * n)] = Array.from({ length: V }, (_, t) => V - 1 - t); // every term once: V distinct
    const want = plainIndexOfIds(docs, V);
    const vocab = want.vocab as Map<string, number>;
    const pairsOf = (d: readonly number[]) => {
      const m = new Map<number, number>();
      for (const t of d) m.set(t, (m.get(t) ?? 0) + 1);
      return { terms: [...m.keys()], tfs: [...m.values()] };
    };
    // one by one
    const a = new Bm25IndexBuilder({}, { segmentPairs });
    for (const d of docs) a.addDoc(d);
    expectSame(a.finish(vocab), want);
    // mixed: addDoc, addDocPairs and chunks of 0..5 documents, in runs
    const m = new Bm25IndexBuilder({}, { segmentPairs });
    for (let i = 0; i < n; ) {
      const how = Math.floor(r() * 3);
      if (how === 0) m.addDoc(docs[i++]!);
      else if (how === 1) {
        const p = pairsOf(docs[i]!);
        const pad = Math.floor(r() * 3);
        m.addDocPairs([...Array(pad).fill(-1), ...p.terms], [...Array(pad).fill(0), ...p.tfs], pad, pad + p.terms.length, docs[i++]!.length);
      } else {
        const to = Math.min(n, i + Math.floor(r() * 6));
        const terms: number[] = [];
        const tfs: number[] = [];
        const ends: number[] = [];
        for (let d = i; d < to; d++) {
          const p = pairsOf(docs[d]!);
          terms.push(...p.terms);
          tfs.push(...p.tfs);
          ends.push(terms.length);
        }
        m.addChunk(Int32Array.from(terms), Int32Array.from(tfs), Uint32Array.from(ends), Int32Array.from(docs.slice(i, to), (d) => d.length));
        i = to;
      }
    }
    expectSame(m.finish(vocab), want);
  });
});

describe('dense-row scoring (JavaScript groups of 4, WebAssembly SIMD) = the plain float32 sums', () => {
  /** Document counts at 16·m ± 2 (tails of 14, 15, 0, 1, 2 documents past whole SIMD blocks), and small ones. */
  const blockEdges = [1, 2, 4, 16].map((m) => SIMD_BLOCK_DOCS * m).flatMap((c) => [c - 2, c - 1, c, c + 1, c + 2]);
  const docCounts = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...blockEdges) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 13 }) });
  /** Dense-row thresholds: every term, df >= 2, a quarter of N, the default, none. */
  const thresholds = fc.constantFrom<'all' | 'two' | 'quarter' | 'default' | 'none'>('all', 'two', 'quarter', 'default', 'none');

  /**
   * Queries over the index's own terms: runs of 1..9 consecutive dense terms (the JS groups of 4)
   * between sparse ones, one run of 254..258 dense terms (the SIMD list of 256 rows), repeats.
   */
  function queries(index: Bm25Index, seed: number, minDf: number, runLen: number): string[][] {
    const r = rng(seed ^ 0x2545f491);
    const terms = [...index.vocab.keys()];
    const df = (t: string) => index.postingStart[index.vocab.get(t)! + 1]! - index.postingStart[index.vocab.get(t)!]!;
    const dense = terms.filter((t) => df(t) >= minDf);
    const sparse = terms.filter((t) => df(t) < minDf);
    const any = (list: string[]) => (list.length > 0 ? list[Math.floor(r() * list.length)]! : 'nosuchterm');
    const out: string[][] = [];
    for (let q = 0; q < 8; q++) {
      const tokens: string[] = [];
      const runs = 1 + Math.floor(r() * 4);
      for (let i = 0; i < runs; i++) {
        const len = 1 + Math.floor(r() * 9);
        for (let j = 0; j < len; j++) tokens.push(any(dense));
        if (r() < 0.7) tokens.push(any(sparse));
        if (r() < 0.2) tokens.push('nosuchterm');
      }
      out.push(tokens);
    }
    out.push(Array.from({ length: runLen }, () => any(dense)));
    out.push([...Array.from({ length: runLen }, () => any(dense)), any(sparse), any(dense)]);
    out.push(terms.slice(0, 40)); // many distinct rows: WebAssembly memory growth for large N
    return out;
  }

  test.prop([docCounts, fc.integer(), thresholds, fc.constantFrom(254, 255, 256, 257, 258), fc.boolean(), fc.constantFrom(0, 1, 2, 5, 20, 1000)], { numRuns: 60 })(
    'bit-identical scores and top-k (ties by tie rank) at SIMD block edges, group and list edges',
    (n, seed, threshold, runLen, byIds, k) => {
      const index = buildBm25IndexFromTexts(makeTexts(seed, n, 20)).index;
      const minDf = { all: 1, two: 2, quarter: Math.ceil(n / 4), default: Math.max(64, Math.ceil(n / 4)), none: Number.POSITIVE_INFINITY }[threshold];
      const denseMinDf = threshold === 'default' ? undefined : minDf;
      const ids = makeIds(seed, n);
      const tieRank = byIds ? tieRanks(ids) : undefined;
      const rank = tieRank ? (d: number) => tieRank[d]! : undefined;
      const js = new Bm25Searcher(index, { simd: false, denseMinDf, tieRank });
      const simd = new Bm25Searcher(index, { simd: true, denseMinDf, tieRank });
      for (const q of queries(index, seed, minDf, runLen)) {
        const want = plainTop(index, q, k, rank);
        for (const [name, s] of [['js', js], ['simd', simd]] as const) {
          const got = s.search(q, k);
          if (!sameHits(got, want)) expect({ name, n, q: q.length, got }).toEqual({ name, n, q: q.length, got: want });
        }
      }
    },
  );

  test.prop([fc.constantFrom(16382, 16383, 16384, 16385, 16386), fc.integer()], { numRuns: 3 })(
    '16384 ± 2 documents: rows of 64 KiB, the memory grows past its first 16 rows while searching',
    (n, seed) => {
      const index = buildBm25IndexFromTexts(makeTexts(seed, n, 6)).index;
      const simd = new Bm25Searcher(index, { simd: true, denseMinDf: 1 });
      const js = new Bm25Searcher(index, { simd: false, denseMinDf: 1 });
      const terms = [...index.vocab.keys()];
      // 5 queries of 8 distinct terms: 40 rows, allocated across the growth
      for (let q = 0; q < 5; q++) {
        const tokens = terms.slice(8 * q, 8 * q + 8);
        tokens.push(tokens[0]!);
        const want = plainTop(index, tokens, 50);
        expect(sameHits(simd.search(tokens, 50), want)).toBe(true);
        expect(sameHits(js.search(tokens, 50), want)).toBe(true);
      }
    },
  );

  test.prop(
    [
      fc.oneof(fc.constantFrom(...blockEdges), fc.integer({ min: 1, max: 40 })),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 70 }),
      fc.integer(),
    ],
    { numRuns: 150 },
  )('SimdRows.add = per document, row by row float32 additions (any maxGroup, flushes, growth)', (n, maxGroup, numRows, seed) => {
    const r = rng(seed);
    const rows = new SimdRows(n, maxGroup);
    const want = new Float32Array(n);
    for (let d = 0; d < n; d++) rows.acc[d] = want[d] = f32(r() * 1e-3);
    const ats: number[] = [];
    const values: Float32Array[] = [];
    for (let i = 0; i < numRows; i++) {
      const { at, row } = rows.allocRow();
      const v = Float32Array.from({ length: n }, () => (r() < 0.3 ? 0 : f32((r() - 0.2) * 10 ** Math.floor(r() * 8 - 4))));
      row.set(v);
      ats.push(at);
      values.push(v);
    }
    // rows pushed in a scrambled order, some twice, flushed now and then
    for (let i = 0; i < numRows + 5; i++) {
      const j = Math.floor(r() * numRows);
      rows.push(ats[j]!);
      for (let d = 0; d < n; d++) want[d] = f32(want[d]! + values[j]![d]!);
      if (r() < 0.1) rows.flush();
    }
    rows.flush();
    const got = rows.acc;
    for (let d = 0; d < n; d++) if (!Object.is(got[d], want[d])) expect({ d, got: got[d] }).toEqual({ d, got: want[d] });
  });
});

describe('BM25 index files: write → read = the index', () => {
  test.prop([fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(...[1, 2, 4, 16].map((m) => SIMD_BLOCK_DOCS * m + 1))), fc.integer(), fc.boolean(), fc.constantFrom(1, 7, 100)], {
    numRuns: 40,
  })('round trip through the file (plain and shared memory): same fields, bytes, scores and top-k', (n, seed, shared, k) => {
    const index = buildBm25IndexFromTexts(makeTexts(seed, n, 15), { k1: 1.2 + (seed & 3) / 10, b: ((seed >>> 2) & 3) / 4 }).index;
    const file = join(dir, `index-${n}.bin`);
    writeBm25IndexFile(file, index);
    const bytes = readFileSync(file);
    expect(bytes.equals(serializeBm25Index(index))).toBe(true);
    expect(bytes.length % 8).toBe(0);
    const back = readBm25IndexFile(file, { shared });
    expectSame(back, index);
    expectSame(deserializeBm25Index(bytes), index);
    const a = new Bm25Searcher(index);
    const b = new Bm25Searcher(back, { denseMinDf: 1 });
    for (const q of makeQueries(seed, 10)) {
      const tokens = officialQueryTokens(q.text).tokens;
      const want = plainTop(index, tokens, k);
      expect(sameHits(a.search(tokens, k), want)).toBe(true);
      expect(sameHits(b.search(tokens, k), want)).toBe(true);
    }
  });

  /** Counts that put section ends around 2^31 and 2^32 bytes (the sizes themselves fit u32). */
  const near = (c: number) => [c - 2, c - 1, c, c + 1, c + 2];
  const counts = fc.constantFrom(0, 1, 2, 3, 5, ...near(2 ** 28), ...near(2 ** 29), ...near(2 ** 30 - 16), ...near(536870911));
  const blobBytes = fc.constantFrom(0, 1, 3, 7, 8, 9, ...near(2 ** 31), ...near(2 ** 32 - 8));

  test.prop([counts, counts, counts, blobBytes], { numRuns: 300 })('the section layout equals its exact-integer definition, past 2 GiB and 4 GiB', (n, v, p, vocabBytes) => {
    const align8 = (x: bigint) => ((x + 7n) / 8n) * 8n;
    let at = 64n;
    const want: bigint[] = [];
    for (const bytes of [4 * n, 4 * v, 4 * (v + 1), 4 * p, 4 * p, 4 * v, vocabBytes]) {
      want.push(at);
      at = align8(at + BigInt(bytes));
    }
    want.push(at, at + 32n);
    const L = layout(n, v, p, vocabBytes);
    expect([L.docLen, L.idf, L.postingStart, L.postingDoc, L.postingScore, L.termEnd, L.blob, L.checksum, L.total].map(BigInt)).toEqual(want);
  });
});
