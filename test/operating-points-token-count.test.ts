/**
 * cl100k_base counts by memoised pieces (tokens.ts) equal js-tiktoken's own `encode` on texts with
 * every kind of piece; its ASCII scanner ends each piece where cl100k's pattern does (at every
 * offset of seeded random texts) or hands it to the pattern; the persisted count cache
 * (token-cache.ts) answers a warm run from disk.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../src/data/dataset.js';
import { TokenCountCache, TOKENS_KIND } from '../src/operating-points/token-cache.js';
import { entryBody, forgeEntry } from './helpers/cache-damage.js';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { asciiPieceEnd, cl100kEncoder, cl100kRanks, countTokens, countTokensByMatches, fnv1a, lastScannedHash } from '../src/operating-points/token-count.js';
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

// the ASCII scanner (asciiPieceEnd): fragments for every branch of each alternative, ASCII and not
const SCANNER_ALPHABET = [
  // letters of both cases, digit runs (longer than 3)
  ...'aZqXm', 'Hello', 'wORLD', 'x', '0', '7', '42', '1234567', '00000',
  // contractions of both cases, and an apostrophe before other letters, digits, white space, the end
  "'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'Ve", "'ve", "'ll", "'LL", "'lL", "'d", "'D", "'m", "'M",
  "'r", "'v", "'l", "'x", "'sfoo", "'llama", "'rex", "'", "''", "'1", "' ", "'\n", "'é", "'ſ", "'K",
  // white space: single and in runs, ending and not ending in line breaks
  ' ', ' ', '  ', '   ', '\t', '\t\t', '\n', '\n', '\r\n', '\r', '\u000b', '\u000c', ' \n', '\n ', ' \t\n  ', '\n\n\t ', '\r\n\r\n', ' \r ',
  // punctuation (runs), control characters (neither white space nor letters)
  ...'.,;:!?-_/\\()[]{}<>#*`"~|@$%^&+=', '...', '**', '```', '-->', '\u0000', '\u0001', '\u0008', '\u000e', '\u001c', '\u001f', '\u007f',
  // not ASCII: letters, digits (Arabic-Indic, full-width), white space (nbsp, ideographic, line separator,
  // BOM), not-white-space NEL, marks, symbols, emoji (surrogate pairs), lone surrogates
  'é', 'ß', 'Ω', 'ж', 'λόγος', 'Привет', '日本', '٣', '٣٤٥', '３', '\u00a0', '\u3000', '\u2028', '\ufeff', '\u0085',
  '\u0301', '\u200d', '—', '…', '€', '😀', '👍🏽', '\ud83d', '\ude00',
];

/** Seeded random texts of `SCANNER_ALPHABET` fragments, `count` of them, up to `maxParts` fragments long. */
function scannerTexts(seed: number, count: number, maxParts: number): string[] {
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const parts = 1 + Math.floor(rand() * maxParts);
    let t = '';
    for (let j = 0; j < parts; j++) t += SCANNER_ALPHABET[Math.floor(rand() * SCANNER_ALPHABET.length)];
    out.push(t);
  }
  return out;
}

const MARKDOWN = [
  '---\nname: pdf-tools\ndescription: Extract text from PDFs. Use when the user asks about PDFs.\n---\n\n# PDF tools\n\n',
  '## Usage\n\n1. Install: `pip install pypdf==4.2.0`\n2. Run `python scripts/extract.py --in doc.pdf --out out.txt`\n\n- item one\n  - nested, with **bold** and _italics_\n',
  '```bash\ncurl -sSL https://example.com/api/v1/items?q=it%27s&limit=100 | jq \'.items[] | {id, name}\'\n```\n',
  '```ts\nexport function f(x: number): string {\r\n\treturn `${x}px`; // it\'s fine\r\n}\r\n```\r\n',
  '| col | value |\n|-----|------:|\n| a   | 1,234 |\n| b   | 56.78 |\n\n> Note: don\'t run this on prod; we\'ll fix it (see #123).\n',
  'See [the docs](https://docs.example.org/en/latest/guide.html#section-2) — or café/naïve/Ünïcödé notes, 日本語も。 😀\n\n\n   \n',
  '<!-- comment -->\n<div class="x">&nbsp;</div>\n\n\u00a0\u00a0indented\u3000text\u2028line\n\t\t- [ ] todo\n- [x] done   \n',
];

/** The end of the sticky pattern's match at `i` (-1 when none). */
function regexEnd(re: RegExp, text: string, i: number): number {
  re.lastIndex = i;
  return re.test(text) ? re.lastIndex : -1;
}

describe('the ASCII piece scanner', () => {
  const pat = (cl100k as { pat_str: string }).pat_str;
  const texts = [...scannerTexts(777, 4000, 14), ...scannerTexts(4242, 300, 120), ...MARKDOWN, MARKDOWN.join(''), ''];

  it("ends every piece where cl100k's pattern does, at every position, or hands the piece to the pattern", () => {
    const re = new RegExp(pat, 'uy');
    let scanned = 0;
    let fallbacks = 0;
    for (const t of texts) {
      for (let i = 0; i < t.length; i++) {
        const end = asciiPieceEnd(t, i, t.length);
        if (end < 0) {
          fallbacks++;
          continue;
        }
        scanned++;
        expect(end, `${JSON.stringify(t)} at ${i}`).toBe(regexEnd(re, t, i));
        expect(lastScannedHash(), `${JSON.stringify(t)} at ${i}`).toBe(fnv1a(t, i, end));
      }
    }
    // both paths taken often
    expect(scanned).toBeGreaterThan(50_000);
    expect(fallbacks).toBeGreaterThan(5_000);
  });

  it('never hands a piece of ASCII text to the pattern', () => {
    const ascii = texts.map((t) => t.replace(/[^\x00-\x7f]/g, '')).filter((t) => t !== '');
    expect(ascii.length).toBeGreaterThan(3000);
    for (const t of ascii) for (let i = 0; i < t.length; i++) expect(asciiPieceEnd(t, i, t.length), `${JSON.stringify(t)} at ${i}`).toBeGreaterThan(i);
    // and a piece that only borders on a non-ASCII unit after an ASCII one is still scanned
    expect(asciiPieceEnd('hello é', 0, 7)).toBe(5);
    expect(asciiPieceEnd('12345é', 0, 6)).toBe(3);
    expect(asciiPieceEnd("'s日本", 0, 4)).toBe(2);
  });

  it("splits texts into the pattern's matches (scanner, pattern where it hands over)", () => {
    const re = new RegExp(pat, 'uy');
    const all = new RegExp(pat, 'gu');
    for (const t of texts) {
      const ends: number[] = [];
      for (let i = 0; i < t.length; ) {
        let end = asciiPieceEnd(t, i, t.length);
        if (end < 0) end = regexEnd(re, t, i);
        ends.push(end);
        i = end;
      }
      expect(ends, JSON.stringify(t)).toEqual([...t.matchAll(all)].map((m) => m.index + m[0].length));
    }
  });

  it('counts every text of one or two ASCII units (the pieces counted by their units) as encode does', () => {
    const enc = cl100kEncoder();
    for (let a = 0; a < 128; a++) {
      expect(countTokens(String.fromCharCode(a)), `${a}`).toBe(enc.encode(String.fromCharCode(a), [], []).length);
      for (let b = 0; b < 128; b++) {
        const t = String.fromCharCode(a, b);
        expect(countTokens(t), JSON.stringify(t)).toBe(enc.encode(t, [], []).length);
      }
    }
  });

  it('counts exactly what js-tiktoken encodes, on random and Markdown texts', () => {
    const enc = cl100kEncoder();
    for (const t of texts) expect(countTokens(t), JSON.stringify(t)).toBe(enc.encode(t, [], []).length);
    // long texts (not memoised), pieces in new neighbours
    for (let k = 0; k < 20; k++) {
      const t = scannerTexts(9000 + k, 60, 14).join(k % 2 ? '' : '\n');
      expect(t.length).toBeGreaterThan(256);
      expect(countTokens(t), JSON.stringify(t.slice(0, 80))).toBe(enc.encode(t, [], []).length);
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
    const doc = JSON.parse(entryBody(file).toString('utf8')) as Record<string, number>;
    expect(Object.keys(doc)).toHaveLength(new Set(TEXTS).size);
    // a forged count proves the second open reads the file instead of counting
    const h = Object.keys(doc).find((k) => doc[k] === countTokens('hello world'))!;
    forgeEntry(file, TOKENS_KIND, JSON.stringify({ ...doc, [h]: 999 }));
    expect(TokenCountCache.open(dir, true).count('hello world')).toBe(999);
  });

  it('reports and ignores a damaged entry, and writes nothing when the cache is off', () => {
    const sub = join(dir, 'bad');
    const a = TokenCountCache.open(sub, true);
    a.count('hello world');
    a.save();
    const file = join(sub, 'tokens', readdirSync(join(sub, 'tokens'))[0]!);
    for (const bad of ['{"broken', '{"x":2}']) {
      forgeEntry(file, TOKENS_KIND, bad);
      const logs: string[] = [];
      expect(TokenCountCache.open(sub, true, (l) => logs.push(l)).count('hello world')).toBe(2);
      expect(logs).toEqual([expect.stringMatching(/^cache: tokens entry .* is damaged \(.+\); computing it again$/)]);
    }
    writeFileSync(file, '{"broken');
    expect(TokenCountCache.open(sub, true).count('hello world')).toBe(2);
    const off = join(dir, 'off');
    const c = TokenCountCache.open(off, false);
    expect(c.count('hello world')).toBe(2);
    c.save();
    expect(() => readdirSync(off)).toThrow();
  });
});
