/**
 * wordpiece-fast.ts gives exactly the ids transformers.js's WordPiece tokenizers give (whole, and
 * cut to a window), on the bundled GloVe tokenizer (whole-word vocabulary, Unicode `\w+` words)
 * and on a BERT-shaped tokenizer with `##` pieces, accent stripping and added tokens of every
 * kind (raw, normalised, lstrip/rstrip), over the project's own skills and seeded random texts
 * built to reach every path: the word memo, unknown and over-long words, texts holding an added
 * token (which go through transformers.js whole).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { classRunMembership, installFastWordPiece, splitterWords, WordTable } from '../src/retrieval/dense/tokenizers/wordpiece-fast.js';
import type { ContentEncoder } from '../src/retrieval/dense/tokenizers/unigram-fast.js';
import { bertTemplate, writeTokenizerFiles, type AddedToken } from '../src/models/onnx/tokenizer-json.js';
import { gloveEmbedderDir, GLOVE_EMBEDDER_NAME } from '../src/models/glove/convert.js';
import { useLiteDir } from '../src/models/use-lite/names.js';
import { modelsDir } from '../src/util/paths.js';
import { seededUniform } from './helpers/tiny-models.js';

env.allowRemoteModels = false;

interface Inner {
  model: Record<string, unknown>;
  encode: (t: string, o: { add_special_tokens: boolean }) => { ids: number[] };
}
const inner = (t: PreTrainedTokenizer): Inner => (t as unknown as { _tokenizer: Inner })._tokenizer;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-wordpiece-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Seeded uniform numbers in [0, 1). */
function rng(seed: number): () => number {
  const u = seededUniform(seed);
  return () => (u() + 1) / 2;
}

const SUBWORDS = ['un', '##aff', '##able', '##s', '##ed', '##ing', 'play', 'skill', '##ful', 'run', '##ner', 'é', 'cafe'];
const WORDS = ['the', 'a', 'skill', 'agent', 'retrieve', 'document', 'query', 'unaffable', 'playing', 'runner', 'data', 'x'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PUNCT = [...'.,;:!?()[]{}<>"\'`-_/\\|@#$%^&*+=~'];
const ADDED: AddedToken[] = [
  { id: 0, content: '[PAD]' },
  { id: 1, content: '[UNK]' },
  { id: 2, content: '[CLS]' },
  { id: 3, content: '[SEP]' },
  { id: 4, content: '[MASK]', lstrip: true },
  { id: 5, content: '<Note>', normalized: true, special: false },
  { id: 6, content: '<|tool|>', rstrip: true, special: false },
];

/** A BERT-shaped tokenizer folder: BertNormalizer (lower case, accents stripped), BertPreTokenizer, WordPiece with ## pieces. */
function writeBert(): string {
  const dir = join(root, 'bert');
  mkdirSync(dir, { recursive: true });
  const vocab: Record<string, number> = {};
  for (const t of ADDED) vocab[t.content] = t.id;
  for (const t of [...WORDS, ...SUBWORDS, ...LETTERS, ...[...LETTERS].map((c) => `##${c}`), ...PUNCT]) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  writeTokenizerFiles(
    dir,
    {
      model: { type: 'WordPiece', vocab, unkToken: '[UNK]', maxInputCharsPerWord: 24 },
      normalizer: { type: 'BertNormalizer', lowercase: true, stripAccents: true },
      preTokenizer: { type: 'BertPreTokenizer' },
      addedTokens: ADDED,
      template: bertTemplate(),
    },
    { tokenizerClass: 'BertTokenizer', roles: { unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]' }, modelMaxLength: 512, doLowerCase: true },
  );
  return dir;
}

/** Seeded texts mixing vocabulary words and pieces, random letters, punctuation, non-ASCII, added tokens, long words. */
function randomTexts(seed: number, count: number, extraWords: readonly string[] = []): string[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  // letters, marks and digits in and out of \w (also astral: 𝒜 and 𐐷 are letters, 😀 is not), spaces, controls, lone surrogates
  const nonAscii = ['é', 'É', 'ß', 'İ', 'ﬁ', '①', '²', '½', 'ｆ', '😀', '𝒜', '𐐷', '漢', 'ä', 'ñ', '\u0301', '\u00a0', '\u2003', '\u0000', '\t', '\n', '\ud800', '\udc00', '_'];
  const texts: string[] = [];
  for (let t = 0; t < count; t++) {
    const parts: string[] = [];
    const n = Math.floor(r() * 40);
    for (let i = 0; i < n; i++) {
      const k = r();
      if (k < 0.3) parts.push(pick([...WORDS, ...extraWords]));
      else if (k < 0.45) parts.push(Array.from({ length: 1 + Math.floor(r() * 12) }, () => pick([...LETTERS])).join(''));
      else if (k < 0.55) parts.push(pick(PUNCT) + pick(WORDS) + pick(PUNCT));
      else if (k < 0.7) parts.push(pick(WORDS) + pick(nonAscii) + pick(WORDS));
      else if (k < 0.78) parts.push(pick(SUBWORDS).replace('##', '') + pick(SUBWORDS).replace('##', ''));
      else if (k < 0.84) parts.push(pick(ADDED).content);
      else if (k < 0.88) parts.push('##' + pick(WORDS));
      else if (k < 0.9) parts.push('w'.repeat(20 + Math.floor(r() * 10)));
      else parts.push(pick(nonAscii));
    }
    const sep = () => pick([' ', ' ', ' ', '', '  ', '\n', '\t']);
    texts.push(parts.map((p) => p + sep()).join(''));
  }
  return texts;
}

/** Checks `encode` against the tokenizer's own ids on `texts`: whole, and cut to several windows. */
function expectSameIds(ref: PreTrainedTokenizer, encode: ContentEncoder, texts: readonly string[]): number {
  let checked = 0;
  for (const text of texts) {
    const want = ref.encode(text, { add_special_tokens: false });
    const all: number[] = [];
    expect(encode(text, all, Number.POSITIVE_INFINITY), JSON.stringify(text.slice(0, 60))).toBe(want.length);
    expect(all).toEqual(want);
    for (const limit of [0, 1, 3, Math.floor(want.length / 2), want.length - 1, want.length, want.length + 1]) {
      if (limit < 0) continue;
      const head: number[] = [];
      expect(encode(text, head, limit)).toBe(Math.min(want.length, limit + 1));
      expect(head).toEqual(want.slice(0, limit));
    }
    checked++;
  }
  return checked;
}

describe('installFastWordPiece on a BERT-shaped tokenizer (## pieces, accents, added tokens)', () => {
  it('gives the tokenizer\'s own ids on seeded random texts, whole and cut to a window', async () => {
    const dir = writeBert();
    const ref = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
    const fast = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
    const { encode } = installFastWordPiece(inner(fast));
    expect(encode).not.toBeNull();
    const texts = randomTexts(7, 1500);
    // the texts reach every path: added tokens (raw and normalised), pieces, unknown and over-long words
    expect(texts.some((t) => t.includes('[MASK]'))).toBe(true);
    expect(texts.some((t) => t.toLowerCase().includes('<note>'))).toBe(true);
    const ids = texts.flatMap((t) => ref.encode(t, { add_special_tokens: false }));
    expect(ids).toContain(1); // [UNK]
    expect(ids).toContain(4); // [MASK] as an added token
    expect(ids).toContain(5); // <Note>, matched after normalisation
    expect(expectSameIds(ref, encode!, texts)).toBe(1500);
    // a second pass reads every word from the memo
    expect(expectSameIds(ref, encode!, texts.slice(0, 300))).toBe(300);
  });

  it('knows the added tokens its splitters cut at (raw ones and normalised ones)', async () => {
    const fast = await AutoTokenizer.from_pretrained(writeBert(), { local_files_only: true });
    const t = inner(fast) as unknown as { splitter_unnormalized: { trie: Record<string, unknown> }; splitter_normalized: { trie: Record<string, unknown> } };
    expect(splitterWords(t.splitter_unnormalized.trie).sort()).toEqual(['<|tool|>', '[CLS]', '[MASK]', '[PAD]', '[SEP]', '[UNK]']);
    expect(splitterWords(t.splitter_normalized.trie)).toEqual(['<note>']);
  });

  it('refuses to be used when it disagrees with the tokenizer on a probe text', async () => {
    const fast = await AutoTokenizer.from_pretrained(writeBert(), { local_files_only: true });
    const t = inner(fast);
    const own = t.encode.bind(t);
    // the tokenizer now gives one more id than its pipeline: the probes must catch it
    t.encode = (text, o) => {
      const r = own(text, o);
      return { ...r, ids: text.includes('test') ? [...r.ids, 9] : r.ids };
    };
    expect(() => installFastWordPiece(t)).toThrow(/fast WordPiece encoder disagrees/);
  });

  it('leaves other tokenizers alone (Unigram, unknown fusion)', async () => {
    const use = await AutoTokenizer.from_pretrained(useLiteDir(modelsDir()), { local_files_only: true });
    expect(installFastWordPiece(inner(use)).encode).toBeNull();
    const fast = await AutoTokenizer.from_pretrained(writeBert(), { local_files_only: true });
    inner(fast).model['fuse_unk'] = true;
    expect(installFastWordPiece(inner(fast)).encode).toBeNull();
    expect(installFastWordPiece(null).encode).toBeNull();
  });
});

describe('installFastWordPiece on the bundled GloVe tokenizer', () => {
  it("gives the tokenizer's own ids on the project's skills and on seeded random texts", async () => {
    const dir = gloveEmbedderDir(modelsDir());
    const ref = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
    const fast = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
    const { encode } = installFastWordPiece(inner(fast));
    expect(encode, GLOVE_EMBEDDER_NAME).not.toBeNull();
    const skills = readFileSync(new URL('../data/mini/skills/test.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map((s) => [s['name'], s['description'], s['skill_md']].filter((x) => typeof x === 'string').join(' | '));
    expect(skills.length).toBeGreaterThan(10);
    const texts = [...skills, ...randomTexts(11, 400, ['retrieval', 'kubernetes', 'naïve', 'über', '2024', '__init__'])];
    const ids = texts.flatMap((t) => ref.encode(t, { add_special_tokens: false }));
    expect(ids).toContain(1); // unknown words
    expect(new Set(ids).size).toBeGreaterThan(500);
    expect(expectSameIds(ref, encode!, texts)).toBe(texts.length);
  });
});

describe('classRunMembership', () => {
  it("answers as GloVe's compiled \\w class does for every code point, and applies to nothing else", async () => {
    const glove = await AutoTokenizer.from_pretrained(gloveEmbedderDir(modelsDir()), { local_files_only: true });
    const pre = (inner(glove) as unknown as { pre_tokenizer: { pattern: RegExp } }).pre_tokenizer;
    const member = classRunMembership(pre);
    expect(member).not.toBeNull();
    const one = new RegExp(`^${pre.pattern.source.slice(0, -1)}$`, 'u');
    let inClass = 0;
    for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x30000 ? 1 : 97) {
      const want = one.test(String.fromCodePoint(cp));
      if (member!(cp) !== want) expect([cp, member!(cp)]).toEqual([cp, want]);
      if (want) inClass++;
    }
    expect(inClass).toBeGreaterThan(100_000); // letters, marks, digits of every script
    const bert = await AutoTokenizer.from_pretrained(writeBert(), { local_files_only: true });
    expect(classRunMembership((inner(bert) as unknown as { pre_tokenizer: unknown }).pre_tokenizer)).toBeNull();
    expect(classRunMembership({ config: { type: 'Split', invert: true }, pattern: /[a-z]+|[0-9]/gu })).toBeNull();
    expect(classRunMembership({ config: { type: 'Split', invert: false }, pattern: /[a-z]+/gu })).toBeNull();
    expect(classRunMembership({ config: { type: 'Split', invert: true }, pattern: /[a-z]+/gi })).toBeNull();
    expect(classRunMembership({ config: { type: 'Split', invert: true }, pattern: /[a-z]+/gu })!(0x61)).toBe(true);
    expect(classRunMembership(null)).toBeNull();
  });
});

describe('WordTable', () => {
  it('tells words apart by their units, whatever their hash, and keeps every word and its ids as it grows', () => {
    const t = new WordTable();
    const text = 'ab abc a ba';
    // one hash for all: only the units decide
    const ab = t.add(text, 0, 2, 7, [10, 11]);
    expect(t.find(text, 3, 6, 7)).toBe(-1); // "abc": longer
    expect(t.find(text, 7, 8, 7)).toBe(-1); // "a": a prefix
    expect(t.find(text, 9, 11, 7)).toBe(-1); // "ba": same length
    const abc = t.add(text, 3, 6, 7, [12]);
    expect(t.find(text, 0, 2, 7)).toBe(ab);
    expect(t.find(text, 3, 6, 7)).toBe(abc);
    const ids = (e: number) => Array.from(t.ids.subarray(t.idStart(e), t.idEnd(e)));
    expect(ids(ab)).toEqual([10, 11]);
    expect(ids(abc)).toEqual([12]);
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}é`);
    const entries = words.map((w, i) => t.add(w, 0, w.length, (i * 2654435761) | 0, [i, i + 1, i + 2].slice(0, 1 + (i % 3))));
    words.forEach((w, i) => {
      expect(t.find(w, 0, w.length, (i * 2654435761) | 0)).toBe(entries[i]);
      expect(ids(entries[i]!)).toEqual([i, i + 1, i + 2].slice(0, 1 + (i % 3)));
    });
    expect(t.size).toBe(20_002);
  });
});
