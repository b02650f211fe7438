/**
 * cl100k_base counts by memoised pieces (tokens.ts) equal js-tiktoken's own `encode` on texts with
 * every kind of piece; the persisted count cache (token-cache.ts) answers a warm run from disk.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TokenCountCache } from '../src/injection/token-cache.js';
import { cl100kEncoder, countTokens } from '../src/injection/tokens.js';

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
  it('equals js-tiktoken encode(text).length on every kind of piece', () => {
    for (const t of TEXTS) expect(countTokens(t), JSON.stringify(t.slice(0, 40))).toBe(cl100kEncoder().encode(t, [], []).length);
    // pieces seen before (memoised) in new combinations
    const mixed = TEXTS.join(' ');
    expect(countTokens(mixed)).toBe(cl100kEncoder().encode(mixed, [], []).length);
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
