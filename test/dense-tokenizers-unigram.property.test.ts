/**
 * The typed-array Unigram tokenizer (unigram-fast.ts: FastUnigram's lattice, its word memo, and
 * `installFastUnigram`'s direct encoder, which stops at the window and, for USE Lite's normaliser,
 * normalises only a head of a long text) against its plain definition, transformers.js's own
 * Unigram tokenizer: `tokenizer.encode(text, { add_special_tokens: false })` (all ids, and every cut
 * to a window: the first `limit` ids and min(n, limit + 1) for the count; that cut framed by
 * `frameHead` against `frameAndTruncate` of the whole list) and the model's own `tokenize` (which
 * the install replaces, so a tokenizer with the fast lattice must still give the reference ids).
 * The memo is also tied to the memo-less lattice (`exactIds`, tied to transformers.js above) word by
 * word, where comparing whole texts with transformers.js would take too long.
 *
 * Tokenizers, each loaded once: the bundled Universal Sentence Encoder Lite tokenizer (NFKC,
 * space → ▁, ▁ in front; 8,000 pieces; a 128-token window) and two hand-made vocabularies with
 * the same normaliser: one with exact and rounding-level ties (words split at ▁), one with ▁ inside
 * pieces (no splitting: the whole-text lattice).
 *
 * Capacities crossed: the lattice's position arrays (1,024 code units, doubled) and path (1,024
 * nodes) by words of every length from 1,024 - 2 to 1,024 + 2 units (and 2,048, and 4,096 for
 * words of vocabulary pieces; astral characters: two units a code point; unknown characters: one
 * node each), its node arrays (4,096, doubled) by those words and by texts of 1,024 ± 2 units on
 * the whole-text lattice;
 * the word memo's limit (2^18 words, then it starts over) ± 2 (inside a text, too), its slot table
 * and its id and score pools (2^16, doubled) by 2^k ± 2 distinct words (k = 4..16), every word
 * read again, and by one-piece words ending at every place from 2^16 - 12 to 2^16 + 12 (and
 * 2^17) of the pools; every capacity is met by FastUnigram instances that have seen nothing
 * before (a shared one keeps what it grew to); the window
 * (limits n - 2 … n + 2 of a text's n ids, 0 to 2, 128 ± 2) and the head path's threshold
 * (5 (limit + 1) + 64 units ± 2, heads cut before a space next to combining marks, NFKC
 * expansions, ASCII and non-ASCII tails).
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { FastUnigram, installFastUnigram, type ContentEncoder } from '../src/retrieval/dense/tokenizers/unigram-fast.js';
import { frameAndTruncate, frameHead, learnFrame, roomFor, type Frame } from '../src/retrieval/dense/tokenizers/token-frame.js';
import { useLiteDir } from '../src/models/use-lite/names.js';
import { modelsDir } from '../src/util/paths.js';
import { seededUniform } from './helpers/tiny-models.js';
import { TIED_VOCAB, writeUnigramTokenizer } from './helpers/unigram-vocab.js';

/** A tokenizer folder under this file's temporary root, with the test's window. */
const writeUnigram = (dir: string, vocab: [string, number][]): string => writeUnigramTokenizer(join(root, dir), vocab, WINDOW);

env.allowRemoteModels = false;

/** unigram-fast.ts's WORD_MEMO_LIMIT. */
const MEMO_LIMIT = 1 << 18;
/** USE Lite's window (model_max_length). */
const WINDOW = 128;

const root = mkdtempSync(join(tmpdir(), 'skr-dense-unigram-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// The tokenizers.

interface UnigramModel {
  vocab: string[];
  scores: number[];
  tokens_to_ids: Map<string, number>;
  unk_token_id: number;
  unk_score: number;
}
interface Inner {
  model: UnigramModel;
  normalizer: (s: string) => string;
}
const inner = (t: PreTrainedTokenizer): Inner => (t as unknown as { _tokenizer: Inner })._tokenizer;

interface Case {
  name: string;
  /** The reference: transformers.js untouched. */
  ref: PreTrainedTokenizer;
  /** Another copy whose model's `tokenize` runs on FastUnigram. */
  fast: PreTrainedTokenizer;
  encode: ContentEncoder;
  frame: Frame;
  normalize: (s: string) => string;
  /** A FastUnigram over the same vocabulary, built when asked (each gets an empty memo). */
  fresh: () => FastUnigram;
  /** Words from the vocabulary (pieces without their ▁). */
  words: readonly string[];
}

async function makeCase(name: string, dir: string): Promise<Case> {
  const ref = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  const fast = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  const inst = installFastUnigram(inner(fast));
  if (!inst.lattice || inst.encode === null) throw new Error(`${name}: the fast Unigram encoder does not apply`);
  const m = inner(ref).model;
  const words = [...new Set(m.vocab.map((p) => p.replace(/^\u2581/, '')).filter((w) => w !== '' && !/[\s\u2581]/.test(w)))];
  return {
    name,
    ref,
    fast,
    encode: inst.encode,
    frame: learnFrame((t, s) => ref.encode(t, { add_special_tokens: s })),
    normalize: inner(ref).normalizer,
    fresh: () => new FastUnigram(m.vocab, m.scores, m.tokens_to_ids, m.unk_token_id, m.unk_score),
    words,
  };
}


// The tied vocabulary of the Unigram tests (helpers/unigram-vocab.ts), plus astral and combining
// pieces (units and code points differ) and one-piece words for the memo's pools.
const TIED: [string, number][] = [
  ...TIED_VOCAB,
  ['𝒜', -1.5],
  ['𝒜a', -1.6],
  ['é', -0.9],
  ['e\u0301x', -2.2],
  // words of one piece each (▁qa … ▁qz), to store at every single place of the memo's pools
  ...[...'abcdefghijklmnopqrstuvwxyz'].flatMap((ch): [string, number][] => [[`\u2581q${ch}`, -0.5], [`\u2581x${ch}`, -0.5]]),
];
/** The same with pieces that hold ▁ inside: no splitting at ▁, the lattice runs over whole texts. */
const INNER_MARK: [string, number][] = [...TIED, ['a\u2581b', -0.5], ['c\u2581', -1.1], ['\u2581\u2581', -1.3]];

const USE = await makeCase('use-lite', useLiteDir(modelsDir()));
const TIED_CASE = await makeCase('tied', writeUnigram('tied', TIED));
const INNER_CASE = await makeCase('inner-mark', writeUnigram('inner-mark', INNER_MARK));
const CASES = [USE, TIED_CASE, INNER_CASE];
const BY_NAME = new Map(CASES.map((c) => [c.name, c]));
const byName = (name: string): Case => BY_NAME.get(name)!;

// ---------------------------------------------------------------------------------------------
// The comparison.

function sameIds(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) throw new Error(`${what}: id ${i} is ${got[i]}, expected ${want[i]} (of ${want.length})`);
  if (got.length !== want.length) throw new Error(`${what}: ${got.length} ids, expected ${want.length}`);
}

const near = (x: number) => [x - 2, x - 1, x, x + 1, x + 2];

/**
 * The installed encoder gives the tokenizer's own ids of `text`, all of them and cut to each window
 * (`limits`, besides 0 to 2, n ± 2 and 128 ± 2), and framed; the fast tokenizer object too.
 */
function expectSameIds(c: Case, text: string, limits: readonly number[] = [], few = false): number[] {
  const want = c.ref.encode(text, { add_special_tokens: false });
  const what = `${c.name} ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)} (${text.length} units)`;
  sameIds(c.fast.encode(text, { add_special_tokens: false }), want, `${what}: the tokenizer with the fast lattice`);
  const all: number[] = [];
  const n = c.encode(text, all, Number.POSITIVE_INFINITY);
  if (n !== want.length) throw new Error(`${what}: count ${n}, expected ${want.length}`);
  sameIds(all, want, what);
  const cuts = few ? [0, want.length - 1, roomFor(c.frame, WINDOW)] : [0, 1, 2, ...near(want.length), ...near(roomFor(c.frame, WINDOW))];
  for (const limit of new Set([...cuts, ...limits].filter((l) => l >= 0))) {
    const head: number[] = [];
    const got = c.encode(text, head, limit);
    if (got !== Math.min(want.length, limit + 1)) throw new Error(`${what}: limit ${limit}: count ${got}, expected ${Math.min(want.length, limit + 1)}`);
    sameIds(head, want.slice(0, limit), `${what}: limit ${limit}`);
  }
  const framing = c.frame.prefix.length + c.frame.suffix.length;
  for (const maxLength of new Set((few ? [WINDOW] : [1, 2, ...near(want.length + framing), WINDOW]).filter((m) => m >= 1))) {
    const head: number[] = [];
    const got = c.encode(text, head, roomFor(c.frame, maxLength));
    expect(frameHead(head, got, c.frame, maxLength), `${what}: maxLength ${maxLength}`).toEqual(frameAndTruncate(want, c.frame, maxLength));
  }
  return want;
}

/**
 * FastUnigram instances that have seen nothing yet (their work arrays at their first sizes, which
 * a shared instance would have outgrown) give transformers.js's pieces (`tokenize`) and ids (the
 * memo-less `exactIds`, and `encodeInto` with its word memo) for the normalised `text`.
 */
function expectFreshLattice(c: Case, text: string): void {
  const normalized = c.normalize(text);
  const what = `${c.name} ${JSON.stringify(text.slice(0, 40))}… (${normalized.length} units normalised)`;
  const refModel = inner(c.ref).model as unknown as { tokenize: (s: string) => string[] };
  expect(c.fresh().tokenize(normalized), `${what}: pieces`).toEqual(refModel.tokenize(normalized));
  const want = c.ref.encode(text, { add_special_tokens: false });
  sameIds(c.fresh().exactIds(normalized), want, `${what}: exactIds`);
  const out: number[] = [];
  expect(c.fresh().encodeInto(normalized, out, Number.POSITIVE_INFINITY)).toBe(want.length);
  sameIds(out, want, `${what}: encodeInto`);
}

// ---------------------------------------------------------------------------------------------
// Texts.

/** Characters NFKC changes or keeps, combining marks, astral, lone surrogates, controls, the word mark and the unknown piece. */
const CHARS = [
  ...'abcxyzABC019-|.,:;!?\'"()[]{}<>/\\_',
  ...['é', 'É', 'ß', 'İ', 'ﬁ', '①', '²', '½', 'ｆ', 'ä', 'ñ', '漢', '字', '한', 'ع', 'ש', '\uFDFA', '\u1100', '\u1161', '\u3131'],
  ...['\u0301', '\u0308', '\u00ad', '\u200b', '\u200d', '\ufffd', '\u0000', '\u0001', '\u007f', '\u2581'],
  ...['😀', '🏽', '𝒜', '𐐷', '\ud800', '\udc00', '\udbff', '☃'],
];
/** Separators: spaces NFKC maps to a space and others it keeps, none, controls. */
const SEPS = [' ', ' ', ' ', '', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\u0085', '\u2028', '\u2581'];

const pick = <T>(a: readonly T[]) => fc.nat(a.length - 1).map((i) => a[i]!);

function partArb(c: Case): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: pick(c.words) },
    { weight: 3, arbitrary: fc.array(pick(c.words), { minLength: 2, maxLength: 4 }).map((ws) => ws.join('')) },
    { weight: 3, arbitrary: fc.string({ unit: pick(CHARS), minLength: 1, maxLength: 10 }) },
    { weight: 1, arbitrary: fc.tuple(pick(c.words), pick(['\u0301', '\u0308', 'ﬁ', '😀', '\ud800'])).map(([w, m]) => w.replace(/^(.)/, `$1${m}`)) },
  );
}

function textArb(c: Case): fc.Arbitrary<string> {
  return fc.array(fc.tuple(partArb(c), pick(SEPS)), { maxLength: 40 }).map((ps) => ps.map(([p, s]) => p + s).join(''));
}

/** A seeded random source of [0, 1). */
function rng(seed: number): () => number {
  const u = seededUniform(seed);
  return () => (u() + 1) / 2;
}

/** `count` distinct words: vocabulary words, pairs of them, random letters (by turns), each unique by a counter. */
function distinctWords(c: Case, count: number, seed: number): string[] {
  const r = rng(seed);
  const out = new Set<string>();
  for (let k = 0; out.size < count; k++) {
    const w = c.words[Math.floor(r() * c.words.length)]!;
    const tag = k.toString(36);
    if (k % 3 === 0) out.add(`${w}${tag}`);
    else if (k % 3 === 1) out.add(`${w}${c.words[Math.floor(r() * c.words.length)]!}${tag}`);
    else out.add(Array.from({ length: 1 + Math.floor(r() * 6) }, () => 'abcdefghijklmnopqrstuvwxyzé'[Math.floor(r() * 27)]!).join('') + tag);
  }
  return [...out];
}

function shuffled<T>(a: readonly T[], seed: number): T[] {
  const r = rng(seed ^ 0x2545f491);
  const b = [...a];
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [b[i], b[j]] = [b[j]!, b[i]!];
  }
  return b;
}

// ---------------------------------------------------------------------------------------------

describe('installFastUnigram = transformers.js encode (USE Lite and hand-made vocabularies)', () => {
  const caseText = fc.constantFrom(...CASES.map((c) => c.name)).chain((name) => fc.tuple(fc.constant(name), textArb(byName(name))));

  test.prop([caseText], { numRuns: 300 })('short texts: vocabulary words, NFKC changes, accents, astral and lone surrogates, ▁ and \uFFFD in the text', ([name, text]) => {
    expectSameIds(byName(name), text);
  });

  test.prop(
    {
      name: fc.constantFrom('use-lite', 'use-lite', 'tied'),
      words: fc.integer({ min: 120, max: 700 }),
      seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      // where non-ASCII words go (the tail a head is cut from: ASCII or not), and how spaces run
      nonAscii: fc.constantFrom('none', 'head', 'tail', 'all'),
      spaces: fc.constantFrom(' ', '  ', ' \u0301', '\u00a0 ', ' ﬁ', ' \uFDFA'),
      // long pieces: more than 5 units an id, so a head often cannot decide and a longer one is tried
      long: fc.boolean(),
    },
    { numRuns: 40 },
  )('long texts cut to windows around the head threshold (5 (limit + 1) + 64 units ± 2) and around their own length', ({ name, words, seed, nonAscii, spaces, long }) => {
    const c = byName(name);
    const r = rng(seed);
    const pool = long ? c.words.filter((w) => w.length >= 7) : c.words;
    const odd = ['déjà', 'naïve', 'ﬁne', '①', 'ｆｕｌｌ', '😀x', 'e\u0301', '漢字かな', '\ud800', '𝒜𝒜'];
    const parts: string[] = [];
    for (let i = 0; i < words; i++) {
      const inTail = i > words / 3;
      const wantOdd = nonAscii === 'all' || (nonAscii === 'head' && !inTail) || (nonAscii === 'tail' && inTail);
      parts.push(wantOdd && r() < 0.3 ? odd[Math.floor(r() * odd.length)]! : (pool.length > 0 ? pool : c.words)[Math.floor(r() * (pool.length > 0 ? pool : c.words).length)]!.replace(/[^\x20-\x7e]/g, 'q'));
      // mostly single spaces; now and then the chosen space run, or none
      const k = r();
      parts.push(k < 0.8 ? ' ' : k < 0.95 ? spaces : '');
    }
    const text = parts.join('');
    const threshold = Math.floor((text.length - 64) / 5) - 1;
    const small = Array.from({ length: 6 }, () => Math.floor(r() * Math.max(1, threshold)));
    expectSameIds(c, text, [...near(threshold), ...small]);
  });

  test.prop(
    {
      name: fc.constantFrom('use-lite', 'tied', 'inner-mark'),
      boundary: fc.constantFrom(1024, 2048, 4096),
      alphabet: fc.constantFrom('letters', 'unknown', 'astral', 'mixed'),
      around: fc.tuple(fc.string({ unit: pick(CHARS), maxLength: 6 }), fc.string({ unit: pick(CHARS), maxLength: 6 })),
    },
    { numRuns: 12 },
  )('one word of 1,024, 2,048 or 4,096 ± 2 code units: position, path and node arrays at their first sizes', ({ name, boundary: asked, alphabet, around }) => {
    const c = byName(name);
    // Unknown fusion is quadratic in the run's length (in transformers.js too): runs of unknown characters stay near 2,048.
    const boundary = alphabet === 'letters' ? asked : Math.min(asked, 2048);
    const letters = { letters: ['a', 'b', 'c', 'ab', 'e'], unknown: ['☃', 'ÿ', '\u0378'], astral: ['𝒜', '😀', '𐐷'], mixed: ['a', '☃', '𝒜', 'c', '-', '|'] }[alphabet];
    /** A word that is `units` UTF-16 units long once normalised (▁ in front): code points of the alphabet, a BMP one where an astral one would not fit. */
    const wordOf = (units: number): string => {
      let w = '';
      for (let i = 0; w.length < units - 1; i++) {
        const ch = letters[i % letters.length]!;
        w += w.length + ch.length <= units - 1 ? ch : 'a';
      }
      return w;
    };
    // Every length from boundary - 2 to boundary + 2, each on instances that have seen nothing yet.
    for (let units = boundary - 2; units <= boundary + 2; units++) expectFreshLattice(c, wordOf(units));
    const word = wordOf(boundary + 1);
    expectSameIds(c, word, [], true);
    expectSameIds(c, `${around[0]} ${word} ${around[1]}`, [], true);
    expectFreshLattice(c, `${around[0]} ${word} ${around[1]}`);
  });

  test.prop({ length: fc.constantFrom(1022, 1023, 1024, 1025, 1026, 2047, 2049, 4097), seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }) }, { numRuns: 15 })(
    'the whole-text lattice (pieces with ▁ inside): texts of 1,024 ± 2 units and more',
    ({ length, seed }) => {
      const r = rng(seed);
      const alphabet = ['a', 'b', 'c', ' ', ' ', '-', '|', 'z', '☃', '𝒜'];
      let text = '';
      while (text.length < length) text += alphabet[Math.floor(r() * alphabet.length)]!;
      const t = text.slice(0, length).replace(/[\ud800-\udbff]$/, 'a');
      expectSameIds(INNER_CASE, t);
      expectFreshLattice(INNER_CASE, t);
      // USE Lite's whole-text lattice over as many units (exactIds does not split at ▁)
      expectFreshLattice(USE, t);
    },
  );
});

describe('the word memo = no memo: 2^k ± 2 distinct words, each read again', () => {
  /** Every 2^k ± 2 from 2^4 to 2^16: the memo's pools (2^16 ids and scores) fill past their first size from 2^14 words on. */
  const BOUNDARIES = Array.from({ length: 13 }, (_, i) => 2 ** (i + 4)).flatMap((p) => [p - 2, p - 1, p, p + 1, p + 2]);

  /**
   * Each word through the memo (stored, and read from it at once) against the memo-less lattice,
   * then read back again after all the others (all of them, or `again` of them in a seeded order).
   */
  function memoAgainstLattice(c: Case, words: readonly string[], seed: number, again = words.length): void {
    const fast = c.fresh();
    const plain = c.fresh();
    const memoIds = (w: string) => {
      const out: number[] = [];
      fast.encodeInto(w, out, Number.POSITIVE_INFINITY);
      return out;
    };
    // One normalisation for all (NFKC keeps the words apart: they hold no space), split before each ▁.
    const normalized = c.normalize(words.join(' ')).split(/(?=\u2581)/);
    expect(normalized.length).toBe(words.length);
    const want = normalized.map((w, i) => {
      const ids = plain.exactIds(w);
      sameIds(memoIds(w), ids, `${c.name} word ${i} ${JSON.stringify(w)}`);
      return ids;
    });
    const order = shuffled(normalized.map((_, i) => i), seed).slice(0, again);
    for (const i of order) sameIds(memoIds(normalized[i]!), want[i]!, `${c.name} word ${i} ${JSON.stringify(normalized[i])} read back`);
    // Texts of the words stored where the id and score pools grew (2^16, 2^17, … ids or pieces),
    // twice over, against transformers.js: a later word's lattice starts from the running score
    // the remembered scores add up to.
    let stored = 0;
    let next = 1 << 16;
    want.forEach((ids, i) => {
      stored += ids.length;
      for (; stored >= next; next *= 2) {
        const around = words.slice(Math.max(0, i - 24), i + 24).join(' ');
        const text = `${around} ${around}`;
        const out: number[] = [];
        fast.encodeInto(c.normalize(text), out, Number.POSITIVE_INFINITY);
        sameIds(out, c.ref.encode(text, { add_special_tokens: false }), `${c.name}: the words stored where the pools passed ${next}`);
      }
    });
  }

  test.prop({ name: fc.constantFrom('use-lite', 'tied'), count: fc.constantFrom(...BOUNDARIES), seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }) }, { numRuns: 12 })(
    'the memo at every size of its slot table and pools, every word read back after them all',
    ({ name, count, seed }) => {
      const c = byName(name);
      const words = name === 'tied' ? Array.from({ length: count }, (_, i) => `abc${i.toString(3).replaceAll('0', 'a').replaceAll('1', 'b').replaceAll('2', 'c')}-c`) : distinctWords(c, count, seed);
      memoAgainstLattice(c, words, seed);
      // and a text of them, against transformers.js
      const r = rng(seed);
      expectSameIds(c, Array.from({ length: 60 }, () => words[Math.floor(r() * words.length)]!).join(' '));
    },
  );

  test.prop({ name: fc.constantFrom('use-lite', 'tied'), pool: fc.constantFrom(1 << 16, 1 << 17), seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }) }, { numRuns: 4 })(
    'a word ends at every place from 2^16 - 12 to 2^16 + 12 (or 2^17) of the id and score pools, each read back',
    ({ name, pool, seed }) => {
      const c = byName(name);
      const measure = c.fresh();
      /** Pieces of a word alone (its ids and its path's scores stored), or -1 when unknown pieces fuse (ids < pieces). */
      const size = (w: string): number => {
        const n = c.normalize(w);
        const pieces = measure.tokenize(n).length;
        return measure.exactIds(n).length === pieces ? pieces : -1;
      };
      const singles = (name === 'tied' ? [...'abcdefghijklmnopqrstuvwxyz'].flatMap((ch) => [`q${ch}`, `x${ch}`]) : c.words).filter((w) => !/[^a-z]/.test(w) && size(w) === 1);
      // (a digit in each: no fill word is a one-piece word)
      const fill = name === 'tied' ? (i: number) => `abc${i.toString(3).replaceAll('0', 'a').replaceAll('1', 'b').replaceAll('2', 'c')}-c` : (i: number) => `${c.words[(seed + i) % c.words.length]!}${i}`;
      const words: string[] = [];
      let stored = 0;
      let i = 0;
      // words of several pieces until the next would pass 12 before the place, then one-piece words across it, then more
      for (; ; i++) {
        const w = fill(i);
        const n = size(w);
        if (n < 0) continue;
        if (stored + n > pool - 12) break;
        words.push(w);
        stored += n;
      }
      expect(singles.length).toBeGreaterThan(pool + 12 - stored);
      for (let j = 0; stored < pool + 12; j++, stored++) words.push(singles[j]!);
      for (let k = 0; k < 30; i++) {
        if (size(fill(i)) > 0) words.push(fill(i)), k++;
      }
      expect(new Set(words).size).toBe(words.length);
      memoAgainstLattice(c, words, seed);
    },
  );

  test.prop([fc.integer({ min: MEMO_LIMIT - 2, max: MEMO_LIMIT + 2 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })], { numRuns: 1 })(
    'USE Lite: 2^18 ± 2 distinct words (the memo starts over), each against the memo-less lattice, some read back',
    (count, seed) => {
      memoAgainstLattice(USE, distinctWords(USE, count, seed), seed, 5000);
    },
  );

  test.prop([fc.integer({ min: -3, max: 2 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })], { numRuns: 2 })(
    'USE Lite: the memo starts over inside a text compared with transformers.js (2^18 - 3 … 2^18 + 2 words before it)',
    (offset, seed) => {
      // A memo filled with exactly 2^18 + offset distinct words, then texts whose new words cross
      // the limit (offset < 0) or follow the fresh start (offset >= 0), with words from before it.
      const fast = USE.fresh();
      const words = distinctWords(USE, MEMO_LIMIT + offset + 40, seed);
      const fill = words.slice(0, MEMO_LIMIT + offset);
      const fresh = words.slice(MEMO_LIMIT + offset);
      const sink: number[] = [];
      for (let i = 0; i < fill.length; i += 4096) fast.encodeInto(USE.normalize(fill.slice(i, i + 4096).join(' ')), sink, 0);
      const r = rng(seed);
      const old = Array.from({ length: 40 }, () => fill[Math.floor(r() * fill.length)]!);
      const text = fresh.flatMap((w, i) => [w, old[i]!]).join(' ');
      for (const t of [text, text, shuffled([...fresh, ...old], seed).join(' ')]) {
        const out: number[] = [];
        fast.encodeInto(USE.normalize(t), out, Number.POSITIVE_INFINITY);
        sameIds(out, USE.ref.encode(t, { add_special_tokens: false }), `memo at 2^18 ${offset >= 0 ? '+' : ''}${offset}`);
      }
    },
  );
});

describe('FastUnigram.tokenize = the model\'s own tokenize', () => {
  it('gives the same pieces as transformers.js on texts that cross the position and node arrays', () => {
    const m = inner(USE.ref).model as unknown as { tokenize: (s: string) => string[] };
    const fast = USE.fresh();
    for (const raw of ['', 'a', `${'déjà vu ﬁ 😀 \ud800 '.repeat(60)}`, 'x'.repeat(1025), '☃'.repeat(4097)]) {
      const s = USE.normalize(raw);
      expect(fast.tokenize(s)).toEqual(m.tokenize(s));
    }
  });
});
