/**
 * BM25 tokenizing's fast paths against the plain definition of bm25s 0.3.3's tokenizer
 * (test/helpers/bm25-plain.ts: `toLowerCase()`, the regex `(?<!\w)\w\w+(?!\w)` with Python's
 * Unicode `\w` = `[\p{L}\p{N}_]`, English stop words dropped, the vocabulary in order of first
 * appearance; the reference itself pinned to CPython's output below):
 *
 * - `findWordRuns` (word runs on a table of BMP word units, surrogate pairs decoded, FNV-1a hashed
 *   as it goes, into a reused `WordRuns` buffer of 2048 runs, doubled when full): the regex's
 *   matches and `fnv1a` of each, with the buffer injected at 1–5 runs and documents of 2048 / 4096
 *   runs ± 2; `tokenize` = the plain tokens (stop words: bm25s's, none, others; lower-casing on/off);
 * - `TokenTable` (FNV-keyed open addressing: 4096 slots rehashed at more than half full, per-id
 *   hashes of 1024 and offsets of 1025 grown together, a code-unit pool of 2^14): ids equal a Map's
 *   in first-seen order at 2^k ± 2 distinct tokens for k = 10…17 (each read again after every
 *   growth, absent ones absent), and pools filled to 2^14…2^17 ± 2 units;
 * - `buildBm25IndexFromTexts` (corpus.ts): the same vocabulary (order included), document lengths
 *   and index as the plain tokens, at vocabularies whose table (33 stop words + terms) holds
 *   2^k ± 2 tokens for k = 10…17, and documents of 2048 / 4096 runs ± 2 (its id buffer) and 4096
 *   distinct terms ± 2 (the builder's per-document arrays);
 * - `tokenizeChunk` (chunk.ts): exactly the plain chunk (tokens, per-document pair ends, lengths,
 *   terms and tfs in first-occurrence order) at 2^14 ± 2 local terms (its tf array), 4096 ± 2
 *   distinct terms in one document and 2^16 ± 2 pairs in a chunk (its pair arrays);
 *   `mergeChunk` over chunks cut at arbitrary documents (empty chunks, empty documents, the
 *   CHUNK_CHARS rule of parallel.ts with the limit at a document's end ± 1) gives the plain index;
 * - on worker threads (parallel.ts, the compiled worker): the same index for document counts and
 *   chunk sizes around the split points.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bm25IndexBuilder } from '../src/retrieval/bm25/build.js';
import { mergeChunk, tokenizeChunk } from '../src/retrieval/bm25/chunk.js';
import { buildBm25IndexFromTexts } from '../src/retrieval/bm25/corpus.js';
import { Bm25Pool, buildBm25IndexParallel } from '../src/retrieval/bm25/parallel.js';
import { BM25S_STOPWORDS_EN, ENGLISH_STOPWORDS } from '../src/retrieval/bm25/stopwords.js';
import { TokenTable, fnv1a } from '../src/retrieval/bm25/token-table.js';
import { WordRuns, findWordRuns, tokenize } from '../src/retrieval/bm25/tokenize.js';
import type { Bm25Index } from '../src/retrieval/bm25/types.js';
import { plainChunk, plainIndex, plainTokenize, plainVocab, plainWordRuns } from './helpers/bm25-plain.js';

const NUM_STOP = BM25S_STOPWORDS_EN.length; // 33

/** `got` and `want` hold the same values (Object.is) in the same order; the first difference is reported (cheaper than toEqual on 10^5 items). */
function expectSame(got: ArrayLike<unknown>, want: ArrayLike<unknown>, what: string): void {
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) {
    if (i >= got.length || i >= want.length || !Object.is(got[i], want[i])) {
      expect.unreachable(`${what}: first difference at ${i} of ${got.length} / ${want.length}: got ${JSON.stringify(got[i])}, want ${JSON.stringify(want[i])}`);
    }
  }
}

/** The two indexes are equal in every field (test/helpers/bm25-index.ts's `expectSameIndex`, by `expectSame`). */
function expectSameBm25(a: Bm25Index, b: Bm25Index): void {
  expect(a.params).toEqual(b.params);
  expect(a.numDocs).toBe(b.numDocs);
  expect(a.avgdl).toBe(b.avgdl);
  expectSame([...a.vocab.keys()], [...b.vocab.keys()], 'vocab terms');
  expectSame([...a.vocab.values()], [...b.vocab.values()], 'vocab ids');
  expectSame(a.idf, b.idf, 'idf');
  expectSame(a.docLen, b.docLen, 'docLen');
  expectSame(a.postingStart, b.postingStart, 'postingStart');
  expectSame(a.postingDoc, b.postingDoc, 'postingDoc');
  expectSame(a.postingScore, b.postingScore, 'postingScore');
}

/** A small seeded generator (xorshift32). */
function rng(seed: number): () => number {
  let x = seed | 0 || 0x2545f491;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// Distinct tokens and texts made of them

const ASCII_DIGITS = 'abcdefghijklmnopqrstuvwxyz0123456789_';
// lower-case or caseless word characters: lower-casing leaves them (and tokens of them) as they are
const MIXED_DIGITS = [...'abcdefghijklmnopqrstuvwxyz0123456789_éжλßı日本ـ²٣', '𝐀', '𐐨', '𝟏'];

/**
 * Distinct token number i (a bijection of i and the seed spelled in base |digits| after a 'q'):
 * shape 0 ASCII, 1 with non-ASCII and astral letters, 2 long (a filler of 12–40 units in front).
 * None is a stop word, and each is its own only word run, lower-cased or not.
 */
const DIGITS = [[...ASCII_DIGITS], MIXED_DIGITS, MIXED_DIGITS];
const fillers = new Map<number, string>();
function distinctToken(i: number, seed: number, shape: number): string {
  const digits = DIGITS[shape]!;
  let x = (Math.imul(i, 0x9e3779b1) ^ seed) >>> 0;
  let s = 'q';
  do {
    s += digits[x % digits.length];
    x = Math.floor(x / digits.length);
  } while (x > 0);
  if (shape === 2) {
    let filler = fillers.get(seed);
    if (filler === undefined) {
      const r = rng(seed);
      filler = '';
      for (let n = 12 + (seed >>> 0) % 29; filler.length < n; ) filler += MIXED_DIGITS[Math.floor(r() * MIXED_DIGITS.length)];
      fillers.set(seed, filler);
    }
    s = filler + s;
  }
  return s;
}

/** Non-word separators: ASCII and not, combining marks, joiners, emoji, lone surrogates. */
const SEPARATORS = [' ', ' ', ' ', '  ', '\n', ', ', ' - ', "'", '’', '.', '\u200d', '\u0301', ' 🚀 ', '\u00a0', '\ud800', '\udfff', '\t', '/', ' x '];

interface Corpus {
  texts: string[];
  /** Distinct non-stop tokens over the corpus (what the vocabulary must hold). */
  distinct: number;
}

/**
 * `distinct` distinct tokens over `docs` documents, in order, each followed now and then by a
 * repeat of an earlier token or (with `stopWords`) a stop word in some case (not distinct tokens), the documents
 * cut at seeded places (some empty), the words joined by separators, ASCII tokens sometimes upper-cased.
 */
function makeCorpus(distinct: number, docs: number, seed: number, shape: number, extras: number, stopWords = true): Corpus {
  const r = rng(seed ^ 0x5bd1e995);
  const words: string[] = [];
  for (let i = 0; i < distinct; i++) {
    const t = distinctToken(i, seed, shape);
    words.push(shape === 0 && r() < 0.2 ? t.toUpperCase() : t);
    const more = r() < extras ? 1 + Math.floor(r() * 3) : 0;
    for (let k = 0; k < more; k++) {
      if (!stopWords || r() < 0.5) words.push(words[Math.floor(r() * words.length)]!);
      else {
        const sw = BM25S_STOPWORDS_EN[Math.floor(r() * NUM_STOP)]!;
        words.push(r() < 0.3 ? sw.toUpperCase() : r() < 0.5 ? sw[0]!.toUpperCase() + sw.slice(1) : sw);
      }
    }
  }
  const cuts = Array.from({ length: docs - 1 }, () => Math.floor(r() * (words.length + 1))).sort((a, b) => a - b);
  const texts: string[] = [];
  let from = 0;
  for (const c of [...cuts, words.length]) {
    let t = '';
    for (let i = from; i < c; i++) t += (i > from || r() < 0.5 ? SEPARATORS[Math.floor(r() * SEPARATORS.length)]! : '') + words[i]!;
    if (r() < 0.3) t += SEPARATORS[Math.floor(r() * SEPARATORS.length)];
    texts.push(t);
    from = c;
  }
  return { texts, distinct };
}

// random texts on every edge of Python's \w and lower-casing
const FRAGMENTS = [
  'Hello', 'WORLD', "It's", 'test-case', 'snake_case', 'CamelCase', 'a', 'I', 'x', 'ab', '__', '_', 'a1', '1a', '42', '3',
  'The', 'AND', 'of', 'To', 'is', 'WAS', 'will', 'with', 'their', 'THESE',
  'café', 'cafe\u0301', 'naïve', 'nai\u0308ve', 'İstanbul', 'İ', 'ΟΔΟΣ', 'Σ', 'σς', 'ǅungla', 'ß', 'ẞ', 'ﬁle', 'ᾈ',
  '数据库', '日本語', '한국어', 'x²', 'H₂O', '½', '１２３', 'ＡＢＣ', 'Ⅻ', '①', 'ـــ', '٣٤', '১২', '๑๒',
  '𝐁𝐨𝐥𝐝', '𝐀', '𝟏𝟐', '𐐀𐐁', '𐐀', '😀', '👍🏽', '\u200d', '\u200c', '\u0301', '\u00ad', '\ufdfa',
  '\ud800', '\udc00', '\ud835', '\udfff', ' ', '  ', '\n', '\r\n', '\t', '\u00a0', '\u2028', '\u3000', '-', "'", '’', '.', ',', '...',
];
const fragment = fc.oneof(
  { arbitrary: fc.constantFrom(...FRAGMENTS), weight: 6 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 4 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 6 }), weight: 2 },
  { arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'), weight: 1 },
);
const text = fc.array(fragment, { maxLength: 30 }).map((a) => a.join(''));

describe('the plain reference is CPython re + bm25s 0.3.3', () => {
  it('on cases whose tokens CPython 3.11 / bm25s 0.3.3 gave (test/bm25-tokenize.test.ts)', () => {
    const cases: Array<[string, string[]]> = [
      ["Hello, World! It's a test-case: snake_case and CamelCase.", ['hello', 'world', 'it', 'test', 'case', 'snake_case', 'and', 'camelcase']],
      ['cafe\u0301 nai\u0308ve', ['cafe', 'nai', 've']],
      ['x² E=mc² H₂O ½ ⅔ 10³', ['x²', 'mc²', 'h₂o', '10³']],
      ['İstanbul İİ', ['stanbul']],
      ['ΟΔΟΣ ΣΑΣ Σ σς ΌΣΟΣ.', ['οδος', 'σας', 'σς', 'όσος']],
      ['𝐁𝐨𝐥𝐝 𝐀 𝟏𝟐 𐐀𐐁', ['𝐁𝐨𝐥𝐝', '𝟏𝟐', '𐐨𐐩']],
      ['Ⅻ ⅻ ① ⑳', []],
      ['ab\ud800cd\udc00ef \ud835\udc00x', ['ab', 'cd', 'ef', '𝐀x']],
      ['zero\u200dwidth\u200cjoiner', ['zero', 'width', 'joiner']],
    ];
    for (const [t, want] of cases) expect(plainTokenize(t, null), JSON.stringify(t)).toEqual(want);
    expect(plainTokenize('The AND Of To IS was WILL with')).toEqual([]);
  });

  it('makes the corpora it says (distinct tokens, each its own word run)', () => {
    for (const shape of [0, 1, 2]) {
      const toks = Array.from({ length: 3000 }, (_, i) => distinctToken(i, 12345 + shape, shape));
      expect(new Set(toks).size).toBe(3000);
      for (const t of toks) expect(plainTokenize(t), t).toEqual([t]);
      const c = makeCorpus(3000, 17, 99 + shape, shape, 0.5);
      expect(plainVocab(c.texts.map((x) => plainTokenize(x))).size).toBe(3000);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** The word runs `findWordRuns` leaves in `runs` as [start, end, hash] triples. */
function runsOf(s: string, runs: WordRuns): number[][] {
  const n = findWordRuns(s, runs);
  expect(runs.count).toBe(n);
  const out: number[][] = [];
  for (let r = 0; r < n; r++) out.push([runs.data[3 * r]!, runs.data[3 * r + 1]!, runs.data[3 * r + 2]!]);
  return out;
}
const plainRuns = (s: string): number[][] => plainWordRuns(s).map(([a, b]) => [a, b, fnv1a(s, a, b)]);

describe('findWordRuns and tokenize = the regex', () => {
  test.prop([fc.array(text, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 5 })], { numRuns: 400 })(
    'word runs, offsets and hashes, in a reused buffer injected at 1–5 runs',
    (texts, capacity) => {
      const runs = new WordRuns();
      runs.data = new Int32Array(3 * capacity);
      for (const t of texts) {
        const s = t.toLowerCase();
        expect(runsOf(s, runs), JSON.stringify(s)).toEqual(plainRuns(s));
        expect(runsOf(t, runs), JSON.stringify(t)).toEqual(plainRuns(t)); // not lower-cased: upper case, 'İ' as it is
      }
    },
  );

  test.prop([text, fc.constantFrom<'en' | 'none' | 'custom'>('en', 'none', 'custom'), fc.boolean()], { numRuns: 500 })(
    'tokens, with bm25s stop words, none or others, lower-cased or not',
    (t, which, lower) => {
      const stop = which === 'en' ? ENGLISH_STOPWORDS : which === 'none' ? null : new Set(['hello', 'café', '日本語', 'ab', 'The', '𝐁𝐨𝐥𝐝']);
      const got = which === 'en' ? tokenize(t, { lower }) : tokenize(t, { stopwords: stop, lower });
      expect(got, JSON.stringify(t)).toEqual(plainTokenize(t, stop, lower));
    },
  );

  test.prop([fc.constantFrom(2046, 2047, 2048, 2049, 2050, 4094, 4095, 4096, 4097, 4098), fc.integer({ min: 0, max: 2 }), fc.integer()], { numRuns: 30 })(
    'documents of 2048 / 4096 word runs ± 2 in the default buffer (it doubles), read again after',
    (count, shape, seed) => {
      const c = makeCorpus(count, 1, seed, shape, 0);
      const runs = new WordRuns();
      const small = 'ab cd';
      expect(runsOf(small, runs)).toEqual(plainRuns(small));
      const s = c.texts[0]!.toLowerCase();
      const got = runsOf(s, runs);
      expect(got.length).toBe(count);
      expectSame(got.flat(), plainRuns(s).flat(), 'runs');
      expect(runsOf(small, runs)).toEqual(plainRuns(small));
    },
  );
});

// ---------------------------------------------------------------------------------------------

/** Every 2^k ± 2 for k = 10…17: the table's per-id arrays grow at 2^k, its slots at 2^(k-1) + 1. */
const TABLE_BOUNDARIES = Array.from({ length: 8 }, (_, i) => 2 ** (i + 10)).flatMap((p) => [p - 2, p - 1, p, p + 1, p + 2]);

describe('TokenTable = a Map in first-seen order', () => {
  test.prop([fc.constantFrom(...TABLE_BOUNDARIES), fc.integer({ min: 0, max: 2 }), fc.integer(), fc.constantFrom('intern', 'internHashed', 'add')], { numRuns: 25 })(
    'distinct tokens 2^k ± 2 (k = 10…17), each read again after every growth',
    (count, shape, seed, how) => {
      const tokens = Array.from({ length: count }, (_, i) => distinctToken(i, seed, shape));
      const table = new TokenTable();
      const put = (t: string, k: number): number => {
        if (how === 'add') return table.add(t);
        const s = `${'«'.repeat(k % 3)}${t}»`; // the token inside a larger string
        const a = k % 3;
        return how === 'intern' ? table.intern(s, a, a + t.length) : table.internHashed(s, a, a + t.length, fnv1a(s, a, a + t.length));
      };
      const ids = tokens.map(put);
      expectSame(ids, tokens.map((_, i) => i), 'ids');
      expect(table.size).toBe(count);
      // read again, last first and then interleaved, after all growth
      const again: number[] = [];
      for (let i = count - 1; i >= 0; i--) again.push(put(tokens[i]!, i + 1));
      expectSame(again, tokens.map((_, i) => count - 1 - i), 'ids read again');
      const found: number[] = [];
      for (let i = 0; i < count; i += 1 + (i % 5)) found.push(table.get(` ${tokens[i]!} `, 1, 1 + tokens[i]!.length) - i);
      expect(found.every((d) => d === 0)).toBe(true);
      for (let i = count; i < count + 8; i++) expect(table.get(distinctToken(i, seed, shape), 0, distinctToken(i, seed, shape).length)).toBe(-1);
      expect(table.size).toBe(count);
      expectSame(table.tokens(), tokens, 'tokens');
    },
  );

  test.prop([fc.constantFrom(2 ** 14, 2 ** 15, 2 ** 16, 2 ** 17), fc.constantFrom(4, 8, 16), fc.integer({ min: -2, max: 2 }), fc.integer()], { numRuns: 30 })(
    'tokens filling the code-unit pool to 2^14…2^17 ± 2 units (the first one longer by the difference)',
    (poolUnits, units, delta, seed) => {
      // fixed-length distinct strings: i (shifted by the seed) in base 26, `len` letters (26^4 > 2^17 / 4 + 1 tokens);
      // the first is `delta` longer or shorter, so none equals another
      const tok = (i: number, len: number): string => {
        let x = i + ((seed >>> 0) % 1000);
        let s = '';
        while (s.length < len) {
          s += String.fromCharCode(0x61 + (x % 26));
          x = Math.floor(x / 26);
        }
        return s;
      };
      const count = poolUnits / units + 1;
      const tokens = Array.from({ length: count }, (_, i) => tok(i, i === 0 ? units + delta : units));
      expect(new Set(tokens).size).toBe(count);
      // the last token but one ends at poolUnits + delta units; the last crosses the pool's end in any case
      expect(tokens.slice(0, -1).reduce((a, t) => a + t.length, 0)).toBe(poolUnits + delta);
      const table = new TokenTable();
      expectSame(tokens.map((t) => table.add(t)), tokens.map((_, i) => i), 'ids');
      expectSame(tokens.map((t) => table.get(`.${t}`, 1, 1 + t.length)), tokens.map((_, i) => i), 'ids read again');
      expectSame(table.tokens(), tokens, 'tokens');
    },
  );
});

// ---------------------------------------------------------------------------------------------

function expectPlainCorpusIndex(texts: readonly string[], stop: ReadonlySet<string> | null, distinct: number): void {
  const docs = texts.map((t) => plainTokenize(t, stop));
  const vocab = plainVocab(docs);
  expect(vocab.size).toBe(distinct);
  const got = buildBm25IndexFromTexts(texts, {}, { stopwords: stop });
  expectSame([...got.index.vocab.keys()], [...vocab.keys()], 'vocabulary in order');
  expectSame(got.index.docLen, docs.map((d) => d.length), 'document lengths');
  expect(got.totalTokens).toBe(docs.reduce((a, d) => a + d.length, 0));
  expectSameBm25(got.index, plainIndex(texts, stop));
}

/** Vocabularies whose table (stop words first) holds 2^k ± 2 tokens, k = 10…17; the cheaper more often. */
const vocabBoundary = fc.oneof(
  { arbitrary: fc.constantFrom(...TABLE_BOUNDARIES.filter((b) => b < 2 ** 14)), weight: 6 },
  { arbitrary: fc.constantFrom(...TABLE_BOUNDARIES.filter((b) => b > 2 ** 13 && b < 2 ** 16)), weight: 3 },
  { arbitrary: fc.constantFrom(...TABLE_BOUNDARIES.filter((b) => b > 2 ** 15)), weight: 1 },
);

describe('buildBm25IndexFromTexts = the plain tokens, vocabulary order included', () => {
  test.prop([vocabBoundary, fc.boolean(), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 2 }), fc.integer()], { numRuns: 12 })(
    'table sizes 2^k ± 2 (k = 10…17) with and without the 33 stop words',
    (tableSize, withStop, docs, shape, seed) => {
      const stop = withStop ? ENGLISH_STOPWORDS : null;
      const distinct = tableSize - (withStop ? NUM_STOP : 0);
      const c = makeCorpus(distinct, docs, seed, shape, 0.3, withStop);
      expectPlainCorpusIndex(c.texts, stop, distinct);
    },
  );

  test.prop([fc.array(text, { maxLength: 40 })], { numRuns: 120 })('random texts of every edge of \\w and lower-casing', (texts) => {
    const docs = texts.map((t) => plainTokenize(t));
    expectPlainCorpusIndex(texts, ENGLISH_STOPWORDS, plainVocab(docs).size);
  });

  test.prop([fc.integer({ min: 0, max: 2 }), fc.integer()], { numRuns: 2 })(
    'documents of 2048 / 4096 ± 2 word runs (kept terms), or of 4096 ± 2 distinct terms, in one corpus',
    (shape, seed) => {
      // One document of each size base - 2 … base + 2 (ascending or descending), between others:
      // 'runs': n word runs, stop words and repeats among them; 'terms': n word runs, all kept (the
      // id buffer holds n); 'distinct': n distinct terms, and some repeats and stop words.
      function check(base: number, what: 'runs' | 'terms' | 'distinct', ascending: boolean): void {
        const docOf = (n: number): string => {
          if (what === 'distinct') return makeCorpus(n, 1, seed, shape, 0.2).texts[0]!;
          const src = makeCorpus(Math.floor(n * 0.6), 1, seed, shape, 1, what === 'runs').texts[0]!;
          const words = plainWordRuns(src).map(([a, b]) => src.slice(a, b));
          while (words.length < n) words.push(words[words.length >> 1]!);
          const doc = words.slice(0, n).join(' ');
          expect(plainWordRuns(doc.toLowerCase()).length).toBe(n);
          if (what === 'terms') expect(plainTokenize(doc).length).toBe(n);
          return doc;
        };
        const sizes = [-2, -1, 0, 1, 2].map((d) => base + d);
        if (!ascending) sizes.reverse();
        const texts = [makeCorpus(50, 1, seed + 1, shape, 0.5).texts[0]!];
        for (const n of sizes) texts.push(docOf(n), 'a doc between');
        texts.push(docOf(base + 1).toUpperCase());
        const docs = texts.map((t) => plainTokenize(t));
        expectPlainCorpusIndex(texts, ENGLISH_STOPWORDS, plainVocab(docs).size);
        const chunk = tokenizeChunk(texts, BM25S_STOPWORDS_EN);
        expectPlainChunk(chunk, plainChunk(texts, BM25S_STOPWORDS_EN));
        // and in a reused word-run buffer
        const runs = new WordRuns();
        for (const t of texts) expectSame(runsOf(t.toLowerCase(), runs).flat(), plainRuns(t.toLowerCase()).flat(), 'runs');
      }
      for (const base of [2048, 4096]) for (const what of ['runs', 'terms', 'distinct'] as const) for (const ascending of [true, false]) check(base, what, ascending);
    },
  );
});

// ---------------------------------------------------------------------------------------------

function expectPlainChunk(chunk: ReturnType<typeof tokenizeChunk>, plain: ReturnType<typeof plainChunk>): void {
  expectSame(chunk.tokens, plain.tokens, 'chunk tokens');
  expectSame(chunk.docPairEnd, plain.docPairEnd, 'docPairEnd');
  expectSame(chunk.docLen, plain.docLen, 'docLen');
  expectSame(chunk.pairTerm, plain.pairTerm, 'pairTerm');
  expectSame(chunk.pairTf, plain.pairTf, 'pairTf');
}

/** Merges chunks of `texts` cut at `bounds` (ascending, from 0 to texts.length) as parallel.ts does. */
function mergeChunks(texts: readonly string[], bounds: readonly number[]): { index: Bm25Index; total: number } {
  const builder = new Bm25IndexBuilder();
  const vocab = new Map<string, number>();
  let total = 0;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const part = texts.slice(bounds[i], bounds[i + 1]);
    const chunk = tokenizeChunk(part, BM25S_STOPWORDS_EN);
    expectPlainChunk(chunk, plainChunk(part, BM25S_STOPWORDS_EN));
    total += mergeChunk(builder, vocab, chunk);
  }
  return { index: builder.finish(vocab), total };
}

/** parallel.ts's cut: a chunk ends after the document that brings it to `chunkChars` characters. */
function charBounds(texts: readonly string[], chunkChars: number): number[] {
  const bounds = [0];
  let chars = 0;
  for (let d = 0; d < texts.length; d++) {
    chars += texts[d]!.length;
    if (chars >= chunkChars && d + 1 < texts.length) {
      bounds.push(d + 1);
      chars = 0;
    }
  }
  bounds.push(texts.length);
  return bounds;
}

function expectPlainMerged(texts: readonly string[], bounds: readonly number[]): void {
  const { index, total } = mergeChunks(texts, bounds);
  const docs = texts.map((t) => plainTokenize(t));
  expectSame([...index.vocab.keys()], [...plainVocab(docs).keys()], 'vocabulary in order');
  expect(total).toBe(docs.reduce((a, d) => a + d.length, 0));
  expectSameBm25(index, plainIndex(texts));
}

describe('tokenizeChunk = the plain chunk, and chunks merged = the plain index', () => {
  test.prop([fc.constantFrom(2 ** 14 - 2, 2 ** 14 - 1, 2 ** 14, 2 ** 14 + 1, 2 ** 14 + 2), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 2 }), fc.integer()], {
    numRuns: 10,
  })('2^14 ± 2 terms in one chunk (its tf array), in one or many documents', (distinct, docs, shape, seed) => {
    const c = makeCorpus(distinct, docs, seed, shape, 0.3);
    const chunk = tokenizeChunk(c.texts, BM25S_STOPWORDS_EN);
    expect(chunk.tokens.length).toBe(distinct);
    expectPlainChunk(chunk, plainChunk(c.texts, BM25S_STOPWORDS_EN));
    const none = tokenizeChunk(c.texts, null);
    expectPlainChunk(none, plainChunk(c.texts, null));
  });

  test.prop([fc.integer({ min: -2, max: 2 }), fc.constantFrom(1024, 2048, 4096, 8192), fc.integer({ min: 0, max: 2 }), fc.integer()], { numRuns: 8 })(
    '2^16 ± 2 (term, tf) pairs in one chunk (its pair arrays)',
    (delta, perDoc, shape, seed) => {
      // 65536 / perDoc documents of perDoc distinct terms each (drawn from a pool of 9000 terms, with
      // repeats inside a document), the last one delta terms more or fewer
      const pool = Array.from({ length: 9000 }, (_, i) => distinctToken(i, seed, shape));
      const r = rng(seed);
      const numDocs = 65536 / perDoc;
      const texts = Array.from({ length: numDocs }, (_, d) => {
        const k = perDoc + (d === numDocs - 1 ? delta : 0);
        const start = Math.floor(r() * pool.length);
        const words: string[] = [];
        for (let j = 0; j < k; j++) {
          words.push(pool[(start + j) % pool.length]!);
          if (r() < 0.1) words.push(words[Math.floor(r() * words.length)]!, 'the');
        }
        return words.join(' ');
      });
      const chunk = tokenizeChunk(texts, BM25S_STOPWORDS_EN);
      expect(chunk.pairTerm.length).toBe(65536 + delta);
      expectPlainChunk(chunk, plainChunk(texts, BM25S_STOPWORDS_EN));
    },
  );

  test.prop([fc.array(text, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 120 })(
    'random texts cut into chunks at any documents (empty chunks too), merged in order',
    (texts, cutSeeds) => {
      const cuts = cutSeeds.map((c) => c % (texts.length + 1)).sort((a, b) => a - b);
      expectPlainMerged(texts, [0, ...cuts, texts.length]);
    },
  );

  test.prop([fc.integer({ min: 1, max: 60 }), fc.integer({ min: 200, max: 3000 }), fc.integer({ min: -1, max: 1 }), fc.integer({ min: 0, max: 2 }), fc.integer()], { numRuns: 60 })(
    "parallel.ts's CHUNK_CHARS cut with the limit at a document's end ± 1",
    (docs, distinct, off, shape, seed) => {
      const c = makeCorpus(distinct, docs, seed, shape, 0.4);
      // the limit: the characters of the first few documents, ± 1
      const r = rng(seed);
      const upTo = Math.floor(r() * docs);
      let chars = 0;
      for (let d = 0; d <= upTo; d++) chars += c.texts[d]!.length;
      const bounds = charBounds(c.texts, Math.max(1, chars + off));
      expectPlainMerged(c.texts, bounds);
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('on worker threads (the compiled worker in dist/)', () => {
  let pool: Bm25Pool;
  beforeAll(() => {
    pool = new Bm25Pool(2);
  });
  afterAll(async () => {
    await pool.close();
  });

  test.prop([fc.integer({ min: 1, max: 12 }), fc.integer({ min: -1, max: 1 }), fc.integer({ min: 1, max: 4 }), fc.integer()], { numRuns: 10 })(
    'the same index for document counts and chunk sizes around the split points (1, 2, 4 chunks per worker ± 1)',
    async (docs, off, chunksPerLane, seed) => {
      const c = makeCorpus(200 + docs * 30, docs, seed, seed & 1, 0.4);
      const total = c.texts.reduce((a, t) => a + t.length, 0);
      const chunkChars = Math.max(1, Math.floor(total / (2 * chunksPerLane)) + off);
      const built = await buildBm25IndexParallel(pool, c.texts, {}, undefined, chunkChars);
      const docsTok = c.texts.map((t) => plainTokenize(t));
      expectSame([...built.index.vocab.keys()], [...plainVocab(docsTok).keys()], 'vocabulary in order');
      expect(built.totalTokens).toBe(docsTok.reduce((a, d) => a + d.length, 0));
      expectSameBm25(built.index, plainIndex(c.texts));
    },
  );
});
