/**
 * unigram-fast.ts gives exactly what transformers.js's Unigram tokenizer gives: the same pieces
 * from the lattice and the same ids from the direct encoder (word memo, in-context lattice for
 * words whose choice sits within rounding of another), on the bundled USE Lite tokenizer and on
 * hand-made vocabularies built to have exact and rounding-level ties.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { FastUnigram, installFastUnigram, normalizerKeepsHeads, type ContentEncoder } from '../src/retrieval/dense/tokenizers/unigram-fast.js';
import { frameAndTruncate, frameHead } from '../src/retrieval/dense/tokenizers/token-frame.js';
import { useLiteDir } from '../src/models/use-lite/names.js';
import { modelsDir } from '../src/util/paths.js';
import { TIED_VOCAB, writeUnigramTokenizer } from './helpers/unigram-vocab.js';
import { mulberry32 } from './helpers/mulberry32.js';

/** A tokenizer folder under this file's temporary root. */
const writeUnigram = (dir: string, vocab: [string, number][]): string => writeUnigramTokenizer(join(root, dir), vocab);

env.allowRemoteModels = false;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-unigram-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Inner {
  model: { tokenize: (s: string) => string[] } & Record<string, unknown>;
  normalizer: ((s: string) => string) | null;
  encode: (t: string, o: { add_special_tokens: boolean }) => { ids: number[] };
}
const inner = (t: PreTrainedTokenizer): Inner => (t as unknown as { _tokenizer: Inner })._tokenizer;

async function pair(folder: string): Promise<{ ref: PreTrainedTokenizer; fast: PreTrainedTokenizer; encode: ContentEncoder | null; lattice: boolean }> {
  const ref = await AutoTokenizer.from_pretrained(folder, { local_files_only: true });
  const fast = await AutoTokenizer.from_pretrained(folder, { local_files_only: true });
  const inst = installFastUnigram(inner(fast));
  return { ref, fast, encode: inst.encode, lattice: inst.lattice };
}

const rng = mulberry32;

function allIds(encode: ContentEncoder, text: string): number[] {
  const out: number[] = [];
  const n = encode(text, out, Number.POSITIVE_INFINITY);
  expect(n).toBe(out.length);
  return out;
}

function expectSame(ref: PreTrainedTokenizer, fast: PreTrainedTokenizer, encode: ContentEncoder, texts: readonly string[]): void {
  for (const text of texts) {
    const want = ref.encode(text, { add_special_tokens: false });
    // The model's tokenize replaced: transformers.js's own encode goes through it.
    expect(fast.encode(text, { add_special_tokens: false }), JSON.stringify(text.slice(0, 60))).toEqual(want);
    expect(allIds(encode, text), JSON.stringify(text.slice(0, 60))).toEqual(want);
    // Only the head, tokenised no further than needed: the same first ids, and a count that says
    // exactly whether the text has more than `limit` ids.
    for (const limit of new Set([0, 1, 5, 126, want.length - 1, want.length, want.length + 1].filter((l) => l >= 0))) {
      const head: number[] = [];
      expect(encode(text, head, limit), `limit ${limit}`).toBe(Math.min(want.length, limit + 1));
      expect(head, `limit ${limit}`).toEqual(want.slice(0, limit));
    }
  }
}

describe('FastUnigram on the bundled USE Lite tokenizer', () => {
  it('same ids as transformers.js on the fixture texts, long documents, tables and odd characters', async () => {
    const folder = useLiteDir(modelsDir());
    const { ref, fast, encode, lattice } = await pair(folder);
    expect(lattice).toBe(true);
    expect(encode).not.toBeNull();
    const skills = readFileSync(join(import.meta.dirname, '..', 'data', 'mini', 'skills', 'test.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { name: string; description: string; skill_md?: string });
    const docs = skills.map((s) => `${s.name} | ${s.description} | ${s.skill_md ?? ''}`);
    const table = '| a | b |\n|-----------|--------|\n| --- | ---- |\n|------|---------------|----------|\n';
    const long = Array.from({ length: 30 }, (_, i) => `${docs[i % docs.length]!}\n\n${table.repeat(1 + (i % 4))}`).join(' ');
    const texts = [
      ...docs,
      long,
      table.repeat(40),
      '----- ------ ------- -------- ========= ::::::: ....... ,,,,,,',
      'emoji 😀👍🏽 and a lone \ud800 surrogate \udc00, ﬁ ① ｆｕｌｌ, \uFFFD\uFFFD unknown ☃☃ runs',
      '',
      ' ',
      '   leading and trailing   ',
      // Heads cut before spaces (unigram-fast.ts's encodeFromHead) land next to combining marks,
      // ligatures, NFKC's longest expansion (U+FDFA), Hangul jamo and a space-free tail.
      Array.from({ length: 400 }, (_, i) => ['word', 'e\u0301', '\u0301x', 'ﬁ', '\uFDFA', '\u1100\u1161', 'ᄀ ᅡ', '①', 'x\u200b'][i % 9]).join(' '),
      `${'plain ascii words '.repeat(80)}${'漢字かな'.repeat(300)}`,
      `${'漢字かな'.repeat(300)} then spaces ${'a b '.repeat(300)}`,
    ];
    expectSame(ref, fast, encode!, texts);
  });

  it('normalises and tokenises a long text only as far as the window needs', async () => {
    const fast = await AutoTokenizer.from_pretrained(useLiteDir(modelsDir()), { local_files_only: true });
    const ref = await AutoTokenizer.from_pretrained(useLiteDir(modelsDir()), { local_files_only: true });
    const t = inner(fast);
    const original = t.normalizer!;
    const seen: number[] = [];
    const recording = Object.assign((s: string) => (seen.push(s.length), original(s)), { config: (original as unknown as { config: unknown }).config });
    t.normalizer = recording;
    const { encode } = installFastUnigram(t);
    const text = 'A long skill document, with déjà vu — and ﬁ ligatures. '.repeat(400); // ~22k units
    const want = ref.encode(text, { add_special_tokens: false });
    seen.length = 0;
    const head: number[] = [];
    expect(encode!(text, head, 127)).toBe(128);
    expect(head).toEqual(want.slice(0, 127));
    expect(Math.max(...seen)).toBeLessThan(4096);
    seen.length = 0;
    expect(allIds(encode!, text)).toEqual(want); // no limit: the whole text
    expect(seen).toEqual([text.length]);
  });
});

describe('normalizerKeepsHeads', () => {
  const nfkc = { type: 'NFKC' };
  const space = { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' };
  const start = { type: 'Replace', pattern: { Regex: '\\A(?=[\\s\\S])' }, content: '\u2581' };
  it("holds for USE Lite's normaliser and the steps it is made of, in any order", () => {
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [nfkc, space, start] })).toBe(true);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [start, space, { type: 'NFC' }] })).toBe(true);
    expect(normalizerKeepsHeads(space)).toBe(true);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { String: '\n' }, content: ' ' }, space] })).toBe(true);
  });
  it('is refused where the cut would not be a word boundary or a step is not known to keep heads', () => {
    expect(normalizerKeepsHeads(null)).toBe(false);
    expect(normalizerKeepsHeads(nfkc)).toBe(false); // the space stays a space: no word mark at the cut
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [space, { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }] })).toBe(false);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [{ type: 'Lowercase' }, space] })).toBe(false);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [{ type: 'NFKD' }, space] })).toBe(false);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { String: '  ' }, content: '\u2581' }, space] })).toBe(false);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { String: 'x' }, content: 'yy' }, space] })).toBe(false);
    expect(normalizerKeepsHeads({ type: 'Sequence', normalizers: [{ type: 'Replace', pattern: { Regex: '\\s+' }, content: '\u2581' }, space] })).toBe(false);
  });
});

describe('FastUnigram on hand-made vocabularies', () => {
  // Ties that rounding decides (helpers/unigram-vocab.ts); unknown characters (z, ☃) exercise unknown fusion.
  const vocab: [string, number][] = [...TIED_VOCAB];
  const alphabet = ['a', 'b', 'c', ' ', ' ', '-', '|', 'z', '☃', '\uFFFD', '\n'];
  const randomTexts = (seed: number, n: number, maxLen: number) => {
    const r = rng(seed);
    return Array.from({ length: n }, () => Array.from({ length: Math.floor(r() * maxLen) }, () => alphabet[Math.floor(r() * alphabet.length)]!).join(''));
  };

  it('splitting at ▁ with a word memo: same ids as transformers.js on random texts (ties included)', async () => {
    const { ref, fast, encode } = await pair(writeUnigram('tied', vocab));
    const f = new FastUnigram(vocab.map((v) => v[0]), vocab.map((v) => v[1]), new Map(vocab.map((v, i) => [v[0], i])), 0, -15);
    expect(f.splitsAtWordMark).toBe(true);
    // Long texts build a large running sum before each tie; short ones none.
    expectSame(ref, fast, encode!, [...randomTexts(1, 300, 60), ...randomTexts(2, 40, 3000)]);
  });

  it('a head cut at a word mark gives what the whole text gives, or says it cannot (ties and rounding included)', () => {
    const f = new FastUnigram(vocab.map((v) => v[0]), vocab.map((v) => v[1]), new Map(vocab.map((v, i) => [v[0], i])), 0, -15);
    let decided = 0;
    let undecided = 0;
    for (const raw of randomTexts(4, 60, 3000)) {
      const text = `\u2581${raw.replaceAll(' ', '\u2581')}`;
      for (const limit of [0, 3, 40, 200]) {
        const whole: number[] = [];
        const n = f.encodeInto(text, whole, limit);
        for (const cut of [text.indexOf('\u2581', 200), text.indexOf('\u2581', 1000), text.indexOf('\u2581', 2000)].filter((c) => c > 0)) {
          for (const [lo, hi] of [[text.length, text.length], [cut, 36 * text.length]]) {
            const head: number[] = [];
            const got = f.encodeHead(text.slice(0, cut), head, limit, lo!, hi!);
            if (got < 0) {
              undecided++;
              continue;
            }
            decided++;
            expect(got).toBe(n);
            expect(head).toEqual(whole);
          }
        }
      }
    }
    expect(decided).toBeGreaterThan(100);
    expect(undecided).toBeGreaterThan(0);
  });

  it('a piece with ▁ inside: no splitting, the plain lattice, still the same ids', async () => {
    const v: [string, number][] = [...vocab, ['a\u2581b', -0.5], ['c\u2581', -1.1]];
    const { ref, fast, encode } = await pair(writeUnigram('inner-mark', v));
    const f = new FastUnigram(v.map((x) => x[0]), v.map((x) => x[1]), new Map(v.map((x, i) => [x[0], i])), 0, -15);
    expect(f.splitsAtWordMark).toBe(false);
    expectSame(ref, fast, encode!, randomTexts(3, 200, 200));
  });
});

describe('frameHead', () => {
  it('frames the kept head exactly as frameAndTruncate frames the whole list', () => {
    const frame = { prefix: [101], suffix: [102] };
    for (const n of [0, 1, 5, 6, 7, 20]) {
      const content = Array.from({ length: n }, (_, i) => 1000 + i);
      for (const max of [1, 2, 3, 7, 8, 30]) {
        const keep = Math.max(0, Math.min(n, max - 2));
        expect(frameHead(content.slice(0, keep), n, frame, max)).toEqual(frameAndTruncate(content, frame, max));
      }
    }
    expect(() => frameHead([1], 5, frame, 10)).toThrow('frameHead: 1 ids given, 5 needed');
  });
});
