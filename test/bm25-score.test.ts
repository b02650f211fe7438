import { describe, expect, it } from 'vitest';
import { Bm25IndexBuilder, buildBm25Index } from '../src/retrieval/bm25/build.js';
import { buildBm25IndexFromTexts } from '../src/retrieval/bm25/corpus.js';
import { bm25Retrieve, officialQueryTokens } from '../src/retrieval/bm25/query.js';
import { tieRanks as trecTieRanks } from '../src/metrics/rank.js';
import { Bm25Searcher, searchBm25 } from '../src/retrieval/bm25/search.js';
import { SimdRows, simdAvailable } from '../src/retrieval/bm25/simd.js';
import { tokenize } from '../src/retrieval/bm25/tokenize.js';
import { expectSameIndex } from './helpers/bm25-index.js';

const f32 = Math.fround;

/*
 * Toy corpus (k1 = 1.5, b = 0.75), English stop words:
 *   d0 "cat cat dog"  -> [cat, cat, dog]  dl = 3
 *   d1 "dog bird"     -> [dog, bird]      dl = 2
 *   d2 "the fish"     -> [fish]           dl = 1   ("the" is a stop word)
 * N = 3, avgdl = 6 / 3 = 2.
 * df: cat 1, dog 2, bird 1, fish 1.
 * idf(df=1) = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(8/3) = 0.9808292530117262 -> float32 0.9808292388916016
 * idf(df=2) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.47000362924573563 -> float32 0.4700036346912384
 * K_d = k1 * ((1 - b) + b * dl / avgdl):  d0 1.5 * (0.25 + 2.25 / 2) = 2.0625,
 *                                         d1 1.5 * (0.25 + 1.5 / 2)  = 1.5,
 *                                         d2 1.5 * (0.25 + 0.75 / 2) = 0.9375
 * term score = float32(idf32 * tf / (K_d + tf))  (float64 product, one rounding):
 *   cat@d0  = f32(0.9808292388916016 * 2 / 4.0625) = 0.4828697741031647
 *   dog@d0  = f32(0.4700036346912384 * 1 / 3.0625) = 0.15347057580947876
 *   dog@d1  = f32(0.4700036346912384 * 1 / 2.5)    = 0.18800145387649536
 *   bird@d1 = f32(0.9808292388916016 * 1 / 2.5)    = 0.39233168959617615
 *   fish@d2 = f32(0.9808292388916016 * 1 / 1.9375) = 0.5062344670295715
 * Query sums are float32 additions in query-token order:
 *   "cat dog" at d0 = f32(0.4828697741031647 + 0.15347057580947876) = 0.6363403797149658
 *     (a float64 sum would give 0.6363403499126434)
 * The same literals come out of bm25s 0.3.3 (test/fixtures/bm25s/tiny.json).
 */
const TOY = ['cat cat dog', 'dog bird', 'the fish'];
const IDF1 = f32(Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)));
const IDF2 = f32(Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)));
const CAT0 = f32(IDF1 * (2 / (1.5 * (0.25 + (0.75 * 3) / 2) + 2)));
const DOG0 = f32(IDF2 * (1 / (1.5 * (0.25 + (0.75 * 3) / 2) + 1)));
const DOG1 = f32(IDF2 * (1 / (1.5 * (0.25 + (0.75 * 2) / 2) + 1)));
const BIRD1 = f32(IDF1 * (1 / (1.5 * (0.25 + (0.75 * 2) / 2) + 1)));
const FISH2 = f32(IDF1 * (1 / (1.5 * (0.25 + (0.75 * 1) / 2) + 1)));

const toyIndex = () => buildBm25Index(TOY.map((t) => tokenize(t)));

describe('BM25 scores (bm25s 0.3.3 lucene, float32)', () => {
  it('matches the hand computation step by step', () => {
    expect(IDF1).toBe(0.9808292388916016);
    expect(IDF2).toBe(0.4700036346912384);
    expect([CAT0, DOG0, DOG1, BIRD1, FISH2]).toEqual([
      0.4828697741031647, 0.15347057580947876, 0.18800145387649536, 0.39233168959617615, 0.5062344670295715,
    ]);
    const index = toyIndex();
    expect(index.numDocs).toBe(3);
    expect(index.avgdl).toBe(2);
    expect([...index.docLen]).toEqual([3, 2, 1]);
    expect([...index.vocab]).toEqual([
      ['cat', 0],
      ['dog', 1],
      ['bird', 2],
      ['fish', 3],
    ]);
    expect([...index.idf]).toEqual([IDF1, IDF2, IDF1, IDF1]);
    expect([...index.postingStart]).toEqual([0, 1, 3, 4, 5]);
    expect([...index.postingDoc]).toEqual([0, 0, 1, 1, 2]);
    expect([...index.postingScore]).toEqual([CAT0, DOG0, DOG1, BIRD1, FISH2]);
  });

  it('sums in float32, in query order', () => {
    const hits = searchBm25(toyIndex(), tokenize('cat dog'), 20);
    expect(hits).toEqual([
      { doc: 0, score: 0.6363403797149658 },
      { doc: 1, score: DOG1 },
    ]);
    expect(hits[0]!.score).toBe(f32(CAT0 + DOG0));
    expect(hits[0]!.score).not.toBe(CAT0 + DOG0);
  });

  it('counts a repeated query token each time', () => {
    const hits = searchBm25(toyIndex(), tokenize('fish fish cat'), 20);
    // d2: f32(FISH2 + FISH2) = 1.012468934059143 (bm25s), d0: CAT0
    expect(hits).toEqual([
      { doc: 2, score: 1.012468934059143 },
      { doc: 0, score: CAT0 },
    ]);
    expect(searchBm25(toyIndex(), ['dog', 'dog', 'dog'], 20)[0]).toEqual({ doc: 1, score: f32(f32(DOG1 + DOG1) + DOG1) });
  });

  it('ignores tokens not in the vocabulary', () => {
    const index = toyIndex();
    expect(searchBm25(index, ['zebra', 'cat', 'the', 'unicorn'], 20)).toEqual(searchBm25(index, ['cat'], 20));
    expect(searchBm25(index, ['zebra'], 20)).toEqual([]);
  });

  it('returns nothing for an empty query', () => {
    expect(searchBm25(toyIndex(), [], 20)).toEqual([]);
  });

  it('drops documents scoring 0 and handles k > N', () => {
    // only d1 contains "bird": k = 20 > N = 3 still yields a single hit
    expect(searchBm25(toyIndex(), ['bird'], 20)).toEqual([{ doc: 1, score: BIRD1 }]);
    expect(searchBm25(toyIndex(), ['dog'], 1)).toEqual([{ doc: 1, score: DOG1 }]);
    expect(searchBm25(toyIndex(), ['dog'], 0)).toEqual([]);
    expect(() => searchBm25(toyIndex(), ['dog'], -1)).toThrow(RangeError);
    expect(() => searchBm25(toyIndex(), ['dog'], 1.5)).toThrow(RangeError);
  });

  it('applies k1 and b', () => {
    const index = buildBm25Index(TOY.map((t) => tokenize(t)), { k1: 1.2, b: 0.5 });
    // cat@d0 with K_d = 1.2 * (0.5 + 0.5 * 3 / 2) = 1.5
    expect(searchBm25(index, ['cat'], 5)).toEqual([{ doc: 0, score: f32(IDF1 * (2 / (1.2 * (0.5 + (0.5 * 3) / 2) + 2))) }]);
    expect(() => buildBm25Index([], { b: 2 })).toThrow(RangeError);
    expect(() => buildBm25Index([], { k1: Number.NaN })).toThrow(RangeError);
  });

  it('gives empty documents length 0 (they count in avgdl but never match)', () => {
    const index = buildBm25Index([tokenize('cat'), tokenize('the a of'), tokenize('')]);
    expect([...index.docLen]).toEqual([1, 0, 0]);
    expect(index.avgdl).toBe(1 / 3);
    // idf(df=1, N=3) again; K_0 = 1.5 * (0.25 + 0.75 * 1 / (1/3))
    expect(searchBm25(index, ['cat'], 3)).toEqual([{ doc: 0, score: f32(IDF1 * (1 / (1.5 * (0.25 + 0.75 / (1 / 3)) + 1))) }]);
  });

  it('builds the same index from raw texts as from tokenize()', () => {
    const texts = ['Cat cat DOG', 'dog, bird!', 'The fish', '', 'ΟΔΟΣ café cafe\u0301 𝐀𝐁 x²'];
    const a = buildBm25IndexFromTexts(texts).index;
    const b = buildBm25Index(texts.map((t) => tokenize(t)));
    expectSameIndex(a, b);
  });

  it('rejects term ids outside the vocabulary', () => {
    const builder = new Bm25IndexBuilder();
    builder.addDoc([0, 1]);
    expect(() => builder.finish(new Map([['a', 0]]))).toThrow(RangeError);
    expect(() => new Bm25IndexBuilder().addDoc([-1])).toThrow(RangeError);
  });
});

describe('tie order', () => {
  // four identical documents tie exactly; d1 differs
  const index = buildBm25Index(['backup plan', 'other text', 'backup plan', 'backup plan', 'backup plan'].map((t) => tokenize(t)));

  it('orders equal scores by document number, descending, by default', () => {
    const hits = searchBm25(index, ['backup'], 10);
    expect(hits.map((h) => h.doc)).toEqual([4, 3, 2, 0]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    // at the k boundary the higher-ranked tied documents are kept
    expect(searchBm25(index, ['backup'], 2).map((h) => h.doc)).toEqual([4, 3]);
  });

  it('follows a given tie rank (trec_eval: doc id descending by UTF-8 bytes)', () => {
    const ids = ['b', 'z', 'é', 'a', 'c'];
    const rank = trecTieRanks(ids);
    // byte order: a < b < c < z < é (0xC3 0xA9)
    expect([...rank]).toEqual([1, 3, 4, 0, 2]);
    const hits = new Bm25Searcher(index, { tieRank: rank }).search(['backup'], 3);
    expect(hits.map((h) => ids[h.doc])).toEqual(['é', 'c', 'b']);
    expect(() => new Bm25Searcher(index, { tieRank: new Int32Array(2) })).toThrow(RangeError);
  });

  it('selects the true top k out of many candidates', () => {
    // 500 documents with repeated "x" counts 1..10: heap selection must equal a full sort
    const docs = Array.from({ length: 500 }, (_, i) => tokenize(`${'xx '.repeat(1 + ((i * 7) % 10))} filler${i % 13}`));
    const idx = buildBm25Index(docs);
    const all = searchBm25(idx, ['xx', 'filler3'], 500);
    expect(all).toHaveLength(500);
    for (let i = 1; i < all.length; i++) {
      const a = all[i - 1]!;
      const b = all[i]!;
      expect(a.score > b.score || (a.score === b.score && a.doc > b.doc)).toBe(true);
    }
    for (const k of [1, 7, 20, 499]) expect(searchBm25(idx, ['xx', 'filler3'], k)).toEqual(all.slice(0, k));
  });
});

describe('dense-row scoring', () => {
  // 397 documents (not a whole number of SIMD blocks) over a small Zipf-like vocabulary: many terms in >= 1/4 of the documents
  let seed = 12345;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
  const pick = () => words[Math.floor(words.length * rnd() ** 3)]!;
  const docs = Array.from({ length: 397 }, () => Array.from({ length: 5 + Math.floor(rnd() * 200) }, pick));
  const index = buildBm25Index(docs);
  const queries = Array.from({ length: 40 }, () => Array.from({ length: 1 + Math.floor(rnd() * 60) }, pick));

  /** Plain per-document float32 sums over the postings, in query order. */
  function naive(query: string[]): Map<number, number> {
    const acc = new Map<number, number>();
    for (const token of query) {
      const t = index.vocab.get(token);
      if (t === undefined) continue;
      for (let j = index.postingStart[t]!; j < index.postingStart[t + 1]!; j++) {
        const d = index.postingDoc[j]!;
        acc.set(d, f32((acc.get(d) ?? 0) + index.postingScore[j]!));
      }
    }
    return acc;
  }

  it.each([false, true])('gives bit-identical scores with dense rows on, off and everywhere (WebAssembly SIMD %s)', (simd) => {
    const dense = new Bm25Searcher(index, { simd });
    const sparse = new Bm25Searcher(index, { denseMinDf: Number.POSITIVE_INFINITY, simd });
    const allDense = new Bm25Searcher(index, { denseMinDf: 1, simd });
    let denseTerms = 0;
    for (let t = 0; t < index.vocab.size; t++) if (index.postingStart[t + 1]! - index.postingStart[t]! >= 100) denseTerms++;
    expect(denseTerms).toBeGreaterThan(20);
    for (const q of queries) {
      const expected = [...naive(q)].map(([doc, score]) => ({ doc, score })).sort((a, b) => b.score - a.score || b.doc - a.doc);
      expect(sparse.search(q, 400)).toEqual(expected);
      expect(dense.search(q, 400)).toEqual(expected);
      expect(allDense.search(q, 400)).toEqual(expected);
      expect(dense.search(q, 20)).toEqual(expected.slice(0, 20));
    }
  });
});

describe('official query handling', () => {
  it('replaces a query without tokens by "none" (stop words kept off)', () => {
    expect(officialQueryTokens('the and of a')).toEqual({ tokens: ['none'], none: true });
    expect(officialQueryTokens('')).toEqual({ tokens: ['none'], none: true });
    expect(officialQueryTokens('x y ①')).toEqual({ tokens: ['none'], none: true });
    expect(officialQueryTokens('Backup the DB')).toEqual({ tokens: ['backup', 'db'], none: false });
    // a query of unknown words keeps its tokens (no NONE): it simply retrieves nothing
    expect(officialQueryTokens('qwertyuiop')).toEqual({ tokens: ['qwertyuiop'], none: false });
  });

  it('runs end to end into a Run with every query present', () => {
    const { run, stats } = bm25Retrieve(
      ['t1', 't2', 't3', 't4'],
      [...TOY, 'none of these'],
      [
        { id: 'a', text: 'cat dog' },
        { id: 'b', text: 'the' },
        { id: 'c', text: 'zebra' },
      ],
      { k: 20 },
    );
    expect([...run.keys()]).toEqual(['a', 'b', 'c']);
    expect(run.get('a')!.map((d) => d.docId)).toEqual(['t1', 't2']);
    // "the" -> NONE -> token "none", found in t4 ("none of these" -> [none])
    expect(run.get('b')!.map((d) => d.docId)).toEqual(['t4']);
    expect(run.get('c')).toEqual([]);
    expect(stats).toMatchObject({ numDocs: 4, numQueries: 3, noneQueries: 1, emptyQueries: 1, vocabSize: 5, totalTokens: 7 });
    expect(() => bm25Retrieve(['a'], [], [], { k: 1 })).toThrow(RangeError);
  });
});

describe('WebAssembly SIMD dense rows', () => {
  it('is available on this runtime (Node 20)', () => {
    expect(simdAvailable()).toBe(true);
  });

  it('adds rows in order with float32 rounding after each addition, across flushes and memory growth', () => {
    let seed = 99;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const n = 37;
    const rows = new SimdRows(n, 3);
    const expected = new Float32Array(n);
    for (let d = 0; d < n; d++) rows.acc[d] = expected[d] = f32(rnd() * 1e-3);
    const ats: number[] = [];
    const values: Float32Array[] = [];
    for (let r = 0; r < 40; r++) {
      const { at, row } = rows.allocRow();
      const v = Float32Array.from({ length: n }, () => (rnd() < 0.3 ? 0 : f32(rnd() * 10 ** Math.floor(rnd() * 8 - 4))));
      row.set(v);
      ats.push(at);
      values.push(v);
    }
    // the accumulator survives memory growth (40 rows outgrow the initial 16)
    for (let d = 0; d < n; d++) expect(rows.acc[d]).toBe(expected[d]);
    for (let r = 0; r < 40; r++) {
      rows.push(ats[r]!);
      for (let d = 0; d < n; d++) expected[d] = f32(expected[d]! + values[r]![d]!);
    }
    rows.flush();
    expect(rows.queued).toBe(0);
    expect([...rows.acc]).toEqual([...expected]);
    // the plain float64 sum rounded once differs somewhere: the order of roundings is what is tested
    const once = Array.from({ length: n }, (_, d) => f32(values.reduce((s, v) => s + v[d]!, 0)));
    expect(once).not.toEqual([...expected]);
  });
});

describe('index builder segments', () => {
  // Docs as token-id lists over one vocabulary (an empty doc first, in the middle and last).
  const texts = ['', 'cat cat dog', 'dog bird', 'the fish fish', '', 'bird cat dog fish', 'ΟΔΟΣ café', 'dog', ''];
  const reference = buildBm25Index(texts.map((t) => tokenize(t)));
  const vocab = reference.vocab;
  const docIds = texts.map((t) => tokenize(t).map((w) => vocab.get(w)!));
  const pairsOf = (ids: number[]): { terms: number[]; tfs: number[] } => {
    const terms: number[] = [];
    const tfs: number[] = [];
    for (const t of ids) {
      const at = terms.indexOf(t);
      if (at < 0) terms.push(t), tfs.push(1);
      else tfs[at]!++;
    }
    return { terms, tfs };
  };
  const same = (a: ReturnType<typeof buildBm25Index>): void => expectSameIndex(a, reference);

  it.each([1, 2, 3, 5, 1 << 20])('gives the same index with segments of %i pairs', (segmentPairs) => {
    const builder = new Bm25IndexBuilder({}, { segmentPairs });
    for (const ids of docIds) builder.addDoc(ids);
    same(builder.finish(vocab));
  });

  it('gives the same index when chunks are adopted between documents added one by one', () => {
    const builder = new Bm25IndexBuilder({}, { segmentPairs: 4 });
    const chunk = (from: number, to: number): void => {
      const terms: number[] = [];
      const tfs: number[] = [];
      const ends: number[] = [];
      const lens: number[] = [];
      for (let d = from; d < to; d++) {
        const p = pairsOf(docIds[d]!);
        terms.push(...p.terms);
        tfs.push(...p.tfs);
        ends.push(terms.length);
        lens.push(docIds[d]!.length);
      }
      // spare capacity past the last pair is ignored
      builder.addChunk(Int32Array.from([...terms, 99]), Int32Array.from([...tfs, 99]), Uint32Array.from(ends), Int32Array.from(lens));
    };
    builder.addDoc(docIds[0]!);
    chunk(1, 3);
    const p3 = pairsOf(docIds[3]!);
    builder.addDocPairs(p3.terms, p3.tfs, 0, p3.terms.length, docIds[3]!.length);
    chunk(4, 5); // one empty document
    builder.addDoc(docIds[5]!);
    chunk(6, 6); // no documents
    chunk(6, 9);
    same(builder.finish(vocab));
  });

  it('checks adopted term ids and is finished once', () => {
    const bad = new Bm25IndexBuilder();
    bad.addChunk(Int32Array.from([0, -1]), Int32Array.from([1, 1]), Uint32Array.from([2]), Int32Array.from([2]));
    expect(() => bad.finish(new Map([['a', 0]]))).toThrow(/term id -1/);
    expect(() => new Bm25IndexBuilder().addChunk(Int32Array.from([0]), Int32Array.from([1]), Uint32Array.from([2]), Int32Array.from([2]))).toThrow(RangeError);
    const once = new Bm25IndexBuilder();
    once.addDoc([0]);
    once.finish(new Map([['a', 0]]));
    expect(() => once.finish(new Map([['a', 0]]))).toThrow(/finished/);
    expect(() => once.addDoc([0])).toThrow(/finished/);
  });
});
