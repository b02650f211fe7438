/**
 * cl100k_base counts by memoised pieces (tokens.ts) equal js-tiktoken's own `encode` on texts with
 * every kind of piece; the persisted count cache (token-cache.ts) answers a warm run from disk.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../src/data/dataset.js';
import { TokenCountCache } from '../src/injection/token-cache.js';
import { cl100kEncoder, cl100kRanks, countTokens, countTokensByMatches } from '../src/injection/tokens.js';
import { SAMPLE_DIR, sampleExists } from './helpers/shared.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-tokens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXTS = [
  '',
  'hello world',
  '<|endoftext|> special <|fim_prefix|>',
  "It's they'll I'M we'd you've THEY'RE",
  '  a   b\n\n\t c \r\n\r\n  ',
  '日本語のテキスト、句読点。 😀👍🏽 ñ é ü Ωmega',
  '12345678 3.14159 0x1F 1e-7 2026-12-01',
  '```ts\nconst x = await fetch("https://example.com/api?q=1&r=2");\n```\n',
  'supercalifragilisticexpialidocious antidisestablishmentarianism'.repeat(3),
  'x'.repeat(3000),
  ' \u00a0\u2028\u3000 ',
  '## Heading\n- item one\n- item two\n\n> quote -- dash — em dash … ellipsis',
];

describe('countTokens', () => {
  it("reads the rank file into exactly js-tiktoken's rank map (bytes as Latin-1 keys)", () => {
    const lib = (cl100kEncoder() as unknown as { rankMap: Map<string, number> }).rankMap;
    const ours = cl100kRanks();
    expect(ours.size).toBe(lib.size);
    expect(ours.size).toBeGreaterThan(100_000);
    for (const [bytes, rank] of lib) expect(ours.get(String.fromCharCode(...bytes.split(',').map(Number)))).toBe(rank);
  });

  it('equals js-tiktoken encode(text).length on every kind of piece', () => {
    for (const t of TEXTS) expect(countTokens(t), JSON.stringify(t.slice(0, 40))).toBe(cl100kEncoder().encode(t, [], []).length);
    // pieces seen before (memoised) in new combinations
    const mixed = TEXTS.join(' ');
    expect(countTokens(mixed)).toBe(cl100kEncoder().encode(mixed, [], []).length);
  });

  it('equals encode on seeded random texts of every character class (surrogates, marks, line breaks)', () => {
    // characters that sit on the pattern's edges: contractions, letters of many scripts, digits
    // (ASCII and not), punctuation runs, every kind of white space and line break, emoji (pairs),
    // lone surrogates (a code point of their own under the u flag), combining marks
    const alphabet = [
      ...'aZqé日ñßΩж', ..."'sStTdDmMllLLrReEvV", ...'0123٣४', ...'.,;:!?-_/\\()[]{}<>#*`"~|@$%^&+=',
      ' ', '  ', '\n', '\r', '\r\n', '\t', '\u00a0', '\u2028', '\u3000', '\u000b', '\u000c',
      '😀', '👍🏽', '\ud83d', '\ude00', '\u0301', '\u200d', '<|endoftext|>',
    ];
    let seed = 12345;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    const enc = cl100kEncoder();
    for (let i = 0; i < 3000; i++) {
      const len = 1 + Math.floor(rand() * (i < 2500 ? 12 : 200));
      let t = '';
      for (let j = 0; j < len; j++) t += alphabet[Math.floor(rand() * alphabet.length)];
      const want = enc.encode(t, [], []).length;
      expect(countTokens(t), JSON.stringify(t)).toBe(want);
      expect(countTokensByMatches(t), JSON.stringify(t)).toBe(want);
    }
    // long pieces (one word, one number run, one punctuation run): many merges, ties among equal pairs
    for (let i = 0; i < 30; i++) {
      const letters = ['ab', 'aab', 'xyzzy', 'éà', '日本'][i % 5]!;
      const len = 50 + Math.floor(rand() * 600);
      let t = i % 7 === 0 ? ' ' : '';
      for (let j = 0; j < len; j++) t += i % 3 === 2 ? '=-_.'[Math.floor(rand() * 4)] : letters[Math.floor(rand() * letters.length)];
      expect(countTokens(t), t.slice(0, 40)).toBe(enc.encode(t, [], []).length);
    }
  });
});

if (!sampleExists) console.log(`skipping the cl100k comparison on the sample: ${SAMPLE_DIR} is absent`);

describe.skipIf(!sampleExists)('countTokens on the shared SkillRet sample', () => {
  it('equals encode on every SKILL.md and query text', async () => {
    const ds = await loadDataset({ path: SAMPLE_DIR, split: 'test' });
    const enc = cl100kEncoder();
    const texts = [...ds.skills.map((s) => s.skillMd), ...ds.queries.map((q) => q.text)];
    expect(texts.length).toBeGreaterThan(100);
    for (const t of texts) expect(countTokens(t), t.slice(0, 60)).toBe(enc.encode(t, [], []).length);
    // the pieces of the whole sample, in one text
    const all = texts.join('\n');
    expect(countTokens(all)).toBe(enc.encode(all, [], []).length);
  });
});

describe('TokenCountCache', () => {
  it('stores counts by text hash and answers from the file on the next open', () => {
    const a = TokenCountCache.open(dir, true);
    expect(TEXTS.map((t) => a.count(t))).toEqual(TEXTS.map(countTokens));
    a.save();
    const file = join(dir, 'tokens', readdirSync(join(dir, 'tokens'))[0]!);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    expect(Object.keys(doc)).toHaveLength(new Set(TEXTS).size);
    // a forged count proves the second open reads the file instead of counting
    const h = Object.keys(doc).find((k) => doc[k] === countTokens('hello world'))!;
    writeFileSync(file, JSON.stringify({ ...doc, [h]: 999 }));
    expect(TokenCountCache.open(dir, true).count('hello world')).toBe(999);
  });

  it('ignores an unreadable file and writes nothing when the cache is off', () => {
    const sub = join(dir, 'bad');
    const a = TokenCountCache.open(sub, true);
    a.count('hello world');
    a.save();
    const file = join(sub, 'tokens', 'cl100k_base-v1.json');
    writeFileSync(file, '{"broken');
    expect(TokenCountCache.open(sub, true).count('hello world')).toBe(2);
    const off = join(dir, 'off');
    const c = TokenCountCache.open(off, false);
    expect(c.count('hello world')).toBe(2);
    c.save();
    expect(() => readdirSync(off)).toThrow();
  });
});
