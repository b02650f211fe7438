/**
 * The cl100k_base counter (src/operating-points/token-count.ts) against its plain definition, js-tiktoken's
 * `encode(text, [], []).length`, and its piece scanner against js-tiktoken's own split pattern:
 *
 * - `asciiPieceEnd` (the hand-written scanner, hashing as it goes) ends every piece where the
 *   pattern made sticky does, with `fnv1a` of the piece, at every offset of texts that mix ASCII
 *   and other units (a non-ASCII unit inserted at every offset of an ASCII text, too), and the
 *   pieces it and the sticky pattern find are the global pattern's matches (`matchAll`);
 * - `countTokens` (scanner, the one/two-unit table `tinyCounts`, the piece table, the merge on
 *   typed arrays, the memo of texts up to 256 units) equals `encode(...).length` on texts of
 *   contractions, digit runs of 1–5 digits, white-space runs and line breaks, punctuation, long
 *   words, Markdown, arbitrary Unicode and lone surrogates, at lengths around the memo limit
 *   (255–257) and again from the memo;
 * - the piece table (`PieceTable`, open addressing over 2^16 slots, doubled when more than half
 *   full, i.e. at its 32,769th piece, 65,537th, …; a code-unit pool of 2^18 units, doubled when a
 *   piece does not fit) holds each distinct piece once and counts it right through every growth:
 *   distinct-piece counts 2^k ± 2 for k = 15, 16, 17 and pools filled to 2^18 / 2^19 ± 2 units
 *   (a piece ending at the pool's end, 1–2 short of it, crossing it by 1–2), each in a fresh copy
 *   of the module (an empty table; `pieceTableSize` says how many pieces it holds), every piece
 *   read again after the growth. At that scale each piece's count is compared with js-tiktoken's
 *   byte-pair merge as written (`plainPieceCount`), itself compared with `encode` on a sample of
 *   every run (every piece near a power of two, every 97th);
 * - the worker path (count-workers.ts, the compiled worker in dist/) gives the serial counts for
 *   any threads and task size: record counts and task bytes put the task splits at every record,
 *   none, a record's end (or one byte past it), and around the number of lanes (2 per worker) ± 1, with and
 *   without the cache's known hashes.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { loadDataset } from '../src/data/dataset.js';
import { fileDocSource } from '../src/data/doc-store.js';
import type { DocSource } from '../src/core/stages.js';
import { countSkillTokensOnWorkers } from '../src/operating-points/count-workers.js';
import { textHash } from '../src/operating-points/token-cache.js';
import { asciiPieceEnd, cl100kEncoder, cl100kRanks, countTokens, countTokensByMatches, fnv1a, lastScannedHash } from '../src/operating-points/token-count.js';
import { cleanupTemp, makeDataset } from './fixtures/data/make-dataset.js';

afterAll(cleanupTemp);

const PAT = (cl100k as { pat_str: string }).pat_str;
const enc = cl100kEncoder();
/** The plain definition of a count. */
const plainCount = (t: string): number => enc.encode(t, [], []).length;
/** The plain pieces: the global pattern's matches, as `encode` iterates them. */
const plainEnds = (t: string): number[] => [...t.matchAll(new RegExp(PAT, 'gu'))].map((m) => m.index + m[0].length);
const sticky = new RegExp(PAT, 'uy');
function stickyEnd(t: string, i: number): number {
  sticky.lastIndex = i;
  return sticky.test(t) ? sticky.lastIndex : -1;
}

// ---------------------------------------------------------------------------------------------
// Texts: fragments on every edge of the pattern's alternatives

const CONTRACTIONS = ["'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'Re", "'ve", "'VE", "'vE", "'Ve", "'m", "'M", "'ll", "'LL", "'lL", "'Ll", "'d", "'D"];
const NEAR_CONTRACTIONS = ["'r", "'v", "'l", "'x", "'", "''", "'1", "' ", "'\n", "'é", "'ſ", "'K", "'sfoo", "'llama", "'rex", "'lE", "'rl"];
const PUNCT = [...'.,;:!?-_/\\()[]{}<>#*`"~|@$%^&+=\''];
const CONTROL = ['\u0000', '\u0001', '\u0008', '\u000e', '\u001c', '\u001f', '\u007f'];
const WHITE = [' ', ' ', ' ', '\t', '\n', '\n', '\r', '\r\n', '\u000b', '\u000c'];
const NON_ASCII_WHITE = ['\u00a0', '\u3000', '\u2028', '\u2029', '\u1680', '\u2003', '\ufeff', '\u0085'];
const NON_ASCII = [
  'é', 'ß', 'Ω', 'ж', 'λόγος', 'Привет', '日本', '語', '٣', '٣٤٥', '３', '四', 'Ⅻ', '\u0301', '\u200d', '—', '…', '€',
  '😀', '👍🏽', '𝐀', '\ud83d', '\ude00', '\udbff', 'ǅ', 'ſ', 'K', ...NON_ASCII_WHITE,
];
const MARKDOWN = [
  '---\nname: pdf-tools\ndescription: Extract text from PDFs.\n---\n\n# PDF tools\n\n',
  '## Usage\n\n1. Install: `pip install pypdf==4.2.0`\n2. Run `python x.py --in doc.pdf`\n\n- item\n  - **bold** _it_\n',
  "```bash\ncurl -sSL https://example.com/api/v1/items?q=it%27s&limit=100 | jq '.items[]'\n```\n",
  "```ts\r\nexport function f(x: number): string {\r\n\treturn `${x}px`; // it's\r\n}\r\n```\r\n",
  '| col | value |\n|-----|------:|\n| a   | 1,234 |\n\n> Note: don\'t; we\'ll fix it (#123).\n',
  '<!-- c -->\n<div class="x">&nbsp;</div>\n\n\u00a0\u00a0indented\u3000text\u2028line\n\t\t- [ ] todo\n- [x] done   \n',
];

const asciiLetter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
const digitRun = fc.integer({ min: 1, max: 5 }).chain((n) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n }));
const whiteRun = fc.array(fc.constantFrom(...WHITE, ...NON_ASCII_WHITE.slice(0, 3)), { minLength: 1, maxLength: 6 }).map((a) => a.join(''));
const asciiWhiteRun = fc.array(fc.constantFrom(...WHITE), { minLength: 1, maxLength: 6 }).map((a) => a.join(''));
const word = fc.array(asciiLetter, { minLength: 1, maxLength: 12 }).map((a) => a.join(''));
const longWord = fc
  .tuple(fc.constantFrom('ab', 'aab', 'xyzzy', 'éà', '日本', 'abcdefghij', '=-_.'), fc.integer({ min: 13, max: 120 }), fc.nat())
  .map(([alphabet, n, s]) => Array.from({ length: n }, (_, j) => alphabet[((Math.imul(j + 1, 0x9e3779b1) ^ s) >>> 0) % alphabet.length]!).join(''));
const punctRun = fc.array(fc.constantFrom(...PUNCT, ...CONTROL), { minLength: 1, maxLength: 5 }).map((a) => a.join(''));

/** Fragments of ASCII units only (the scanner decides every piece of their concatenation). */
const asciiFragment = fc.oneof(
  { arbitrary: word, weight: 4 },
  { arbitrary: word.map((w) => ` ${w}`), weight: 3 },
  { arbitrary: digitRun, weight: 2 },
  { arbitrary: asciiWhiteRun, weight: 3 },
  { arbitrary: punctRun, weight: 2 },
  { arbitrary: fc.constantFrom(...CONTRACTIONS, ...NEAR_CONTRACTIONS.filter((c) => /^[\x00-\x7f]*$/.test(c))), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 4 }), weight: 1 },
);
const fragment = fc.oneof(
  { arbitrary: asciiFragment, weight: 8 },
  { arbitrary: fc.constantFrom(...NON_ASCII), weight: 2 },
  { arbitrary: fc.constantFrom(...NEAR_CONTRACTIONS), weight: 1 },
  { arbitrary: whiteRun, weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 4 }), weight: 1 },
  { arbitrary: fc.constantFrom(...MARKDOWN), weight: 1 },
  { arbitrary: longWord, weight: 1 },
);
const text = fc.array(fragment, { maxLength: 24 }).map((a) => a.join(''));
const asciiText = fc.array(asciiFragment, { minLength: 1, maxLength: 12 }).map((a) => a.join(''));

/** The scanner's ends at every offset, and the split of scanner + sticky pattern. */
function checkScanner(t: string): void {
  const n = t.length;
  // [offset, scanner end, sticky end, scanner hash, fnv1a] where the scanner decides and differs
  const wrong: number[][] = [];
  for (let i = 0; i < n; i++) {
    const end = asciiPieceEnd(t, i, n);
    if (end < 0) continue;
    const h = lastScannedHash();
    const want = stickyEnd(t, i);
    if (end !== want || h !== fnv1a(t, i, end)) wrong.push([i, end, want, h, fnv1a(t, i, end)]);
  }
  expect(wrong, JSON.stringify(t)).toEqual([]);
  const ends: number[] = [];
  for (let i = 0; i < n; ) {
    let end = asciiPieceEnd(t, i, n);
    if (end < 0) end = stickyEnd(t, i);
    if (end <= i) break; // (then the ends differ from the pattern's below)
    ends.push((i = end));
  }
  expect(ends, JSON.stringify(t)).toEqual(plainEnds(t));
}

function checkCount(t: string): void {
  const want = plainCount(t);
  expect([countTokens(t), countTokens(t), countTokensByMatches(t)], JSON.stringify(t.slice(0, 80))).toEqual([want, want, want]);
}

describe('the ASCII piece scanner = the sticky pattern, and the split = matchAll', () => {
  test.prop([text], { numRuns: 400 })('at every offset of mixed texts', (t) => {
    checkScanner(t);
  });

  test.prop([asciiText], { numRuns: 300 })('never hands a piece of an ASCII text to the pattern', (t) => {
    for (let i = 0; i < t.length; i++) expect(asciiPieceEnd(t, i, t.length), `${JSON.stringify(t)} at ${i}`).toBeGreaterThan(i);
    checkScanner(t);
  });

  test.prop([asciiText, fc.constantFrom(...NON_ASCII)], { numRuns: 60 })('a non-ASCII unit inserted at every offset of an ASCII text', (t, u) => {
    for (let k = 0; k <= t.length; k++) {
      const m = t.slice(0, k) + u + t.slice(k);
      checkScanner(m);
      checkCount(m);
    }
  });
});

describe('countTokens = encode(text).length', () => {
  test.prop([text], { numRuns: 500 })('on texts of every kind of piece (and again from the memo)', (t) => {
    checkCount(t);
  });

  // 255, 256 are memoised, 257 is not; the tail may cut a surrogate pair (a lone surrogate then)
  test.prop([fc.array(fragment, { minLength: 1, maxLength: 40 }), fc.constantFrom(1, 2, 3, 254, 255, 256, 257, 258, 511, 512, 513)], { numRuns: 120 })(
    'on texts of lengths around the memo limit and the one/two-unit table',
    (parts, len) => {
      let t = parts.join('');
      if (t === '') t = 'x';
      while (t.length < len) t += t;
      checkCount(t.slice(0, len));
    },
  );

  test.prop([fc.array(fc.oneof(longWord, digitRun, punctRun, whiteRun), { minLength: 1, maxLength: 8 }), fc.constantFrom('', ' ', '\n', "'")], { numRuns: 60 })(
    'on long pieces (many merges, ties among equal pairs), joined or not',
    (pieces, sep) => {
      checkCount(pieces.join(sep));
    },
  );
});

// ---------------------------------------------------------------------------------------------
// The piece table through its growth, in a fresh copy of the module (an empty table)

type TokensModule = typeof import('../src/operating-points/token-count.js');
async function freshTokens(): Promise<TokensModule> {
  vi.resetModules();
  return (await import('../src/operating-points/token-count.js')) as TokensModule;
}

/**
 * The plain count of one piece: js-tiktoken's `bytePairEncode` as it is written (merge the adjacent
 * pair of parts of lowest rank, the leftmost of equal ranks, looking every pair up again after each
 * merge; count the parts that are tokens; a piece that is a token is one), over the rank map keyed
 * by bytes as Latin-1 (`cl100kRanks`, equal to js-tiktoken's map: operating-points-token-count.test.ts). It is
 * `encode(piece).length` (checked on a sample of each run) at a fraction of its cost, so that the
 * growth properties can compare every one of 2^17 pieces.
 */
function plainPieceCount(piece: string): number {
  const bytes = Buffer.from(piece, 'utf8').toString('latin1');
  const r = cl100kRanks();
  if (r.has(bytes) || bytes.length === 1) return 1;
  const parts = Array.from({ length: bytes.length }, (_, i) => ({ start: i, end: i + 1 }));
  while (parts.length > 1) {
    let min = -1;
    let at = -1;
    for (let i = 0; i < parts.length - 1; i++) {
      const rank = r.get(bytes.slice(parts[i]!.start, parts[i + 1]!.end));
      if (rank === undefined) continue;
      if (at < 0 || rank < min) [min, at] = [rank, i];
    }
    if (at < 0) break;
    parts[at] = { start: parts[at]!.start, end: parts[at + 1]!.end };
    parts.splice(at + 1, 1);
  }
  return parts.filter((p) => r.has(bytes.slice(p.start, p.end))).length;
}


const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The cl100k tokens that are a space and then letters, three units or more (~42,000; ASCII and
 * not): each is one match of the pattern, alone or in a text of such pieces joined (a space ends
 * a letter run), and a one-token piece, so a table can be filled with tens of thousands of them at
 * little cost. Pieces of other counts come from `madePiece`.
 */
let letterTokens: string[] | undefined;
function spaceLetterTokens(): string[] {
  if (letterTokens) return letterTokens;
  const dec = new TextDecoder('utf-8', { fatal: true });
  const out: string[] = [];
  for (const bytes of cl100kRanks().keys()) {
    if (bytes.length < 3 || bytes.charCodeAt(0) !== 0x20) continue;
    let t: string;
    try {
      t = dec.decode(Buffer.from(bytes, 'latin1'));
    } catch {
      continue;
    }
    if (t.length >= 3 && /^ \p{L}+$/u.test(t)) out.push(t);
  }
  return (letterTokens = out);
}

/**
 * A made piece, `units` UTF-16 units long (≥ 5): a space, then letters (ASCII, or with 'é'/'ж' among
 * them for odd `n`, which the sticky pattern then finds), the last four spelling `n` in base 26
 * after letters drawn from the seed. Of one, two, three… tokens.
 */
function madePiece(n: number, units: number, seed: number): string {
  let s = ' ';
  for (let j = 0; j < units - 5; j++) s += n % 2 === 1 && j % 3 === 1 ? (j % 2 ? 'é' : 'ж') : LOWER[(Math.imul(seed ^ j, 0x9e3779b1) >>> 27) % 26]!;
  for (let j = 0, x = n; j < 4; j++, x = Math.floor(x / 26)) s += LOWER[x % 26];
  return s;
}

/** Distinct pieces in a seeded order: tokens of `spaceLetterTokens` and made pieces of any count. */
class Pieces {
  readonly list: string[] = [];
  units = 0;
  private readonly seen = new Set<string>();
  private readonly tokens: string[];
  private nextToken = 0;
  private made = 0;

  constructor(private readonly seed: number) {
    // a seeded shuffle of the tokens
    const all = spaceLetterTokens();
    const key = (i: number) => (Math.imul(i + 1, 0x9e3779b1) ^ seed) >>> 0;
    this.tokens = all.map((_, i) => i).sort((x, y) => key(x) - key(y)).map((i) => all[i]!);
  }

  private push(p: string): void {
    this.seen.add(p);
    this.list.push(p);
    this.units += p.length;
  }

  /** The next token, if one is left that is at most `maxUnits` long. */
  token(maxUnits = Infinity): boolean {
    while (this.nextToken < this.tokens.length) {
      const t = this.tokens[this.nextToken++]!;
      if (t.length > maxUnits || this.seen.has(t)) continue;
      this.push(t);
      return true;
    }
    return false;
  }

  /** A made piece of `units` units not seen before. */
  madeOf(units: number): void {
    let p: string;
    do p = madePiece(this.made++, units, this.seed);
    while (this.seen.has(p));
    this.push(p);
  }
}

/** Indices of `pieces` to check against `encode` itself: near every power of two, the ends, and every 97th. */
function sampleIndices(count: number): number[] {
  const out = new Set<number>();
  for (let p = 1; p <= count * 2; p *= 2) for (let d = -3; d <= 3; d++) out.add(p + d);
  for (let i = 0; i < count; i += 97) out.add(i);
  for (let d = 1; d <= 5; d++) out.add(count - d);
  return [...out].filter((i) => i >= 0 && i < count).sort((x, y) => x - y);
}

/**
 * Feeds `pieces` one text at a time (each alone: memoised texts), then checks the table holds
 * exactly them, then reads them all again in texts of many pieces (not memoised), last first.
 */
function feedAndReread(m: TokensModule, pieces: readonly string[]): void {
  const count = pieces.length;
  const want = Int32Array.from(pieces, plainPieceCount);
  for (const i of sampleIndices(count)) expect(want[i], JSON.stringify(pieces[i])).toBe(plainCount(pieces[i]!));
  const got = Int32Array.from(pieces, (p) => m.countTokens(p));
  const firstWrong = got.findIndex((n, i) => n !== want[i]);
  expect(firstWrong < 0 ? [] : [firstWrong, pieces[firstWrong], got[firstWrong], want[firstWrong]], 'first piece counted wrong').toEqual([]);
  expect(m.pieceTableSize(), 'distinct pieces in the table').toBe(count);
  const BATCH = 997;
  const wrong: number[][] = [];
  for (let end = count; end > 0; end -= BATCH) {
    const from = Math.max(0, end - BATCH);
    const joined = pieces.slice(from, end).reverse().join('');
    let sum = 0;
    for (let i = from; i < end; i++) sum += want[i]!;
    const n = m.countTokens(joined);
    if (n !== sum) wrong.push([from, end, n, sum]);
  }
  expect(wrong, 'pieces [from, end) read again after the growth: [from, end, got, want]').toEqual([]);
  expect(m.pieceTableSize(), 'a piece read again after a growth was added again').toBe(count);
}

/** Distinct-piece counts 2^k ± 2 around the slot table's growths (at more than half of 2^16, 2^17, 2^18 slots), cheaper ones more often. */
const slotBoundary = fc.oneof(
  { arbitrary: fc.constantFrom(...[-2, -1, 0, 1, 2].map((d) => 2 ** 15 + d)), weight: 3 },
  { arbitrary: fc.constantFrom(...[-2, -1, 0, 1, 2].map((d) => 2 ** 16 + d)), weight: 2 },
  { arbitrary: fc.constantFrom(...[-2, -1, 0, 1, 2].map((d) => 2 ** 17 + d)), weight: 1 },
);

describe('the piece table holds each piece once and counts it right through every growth', () => {
  test.prop([slotBoundary, fc.integer({ min: 2, max: 16 }), fc.integer({ min: 5, max: 12 }), fc.integer()], { numRuns: 4 })(
    'distinct-piece counts 2^k ± 2 (k = 15, 16, 17): the slot table doubles',
    async (count, madeEvery, units, seed) => {
      const m = await freshTokens();
      expect(m.pieceTableSize()).toBe(0);
      const pieces = new Pieces(seed);
      // tokens (one each) with a made piece (one or more) every `madeEvery`, and made pieces once the tokens run out
      for (let i = 0; i < count; i++) if (i % madeEvery === 0 || !pieces.token()) pieces.madeOf(units + (i % 3));
      feedAndReread(m, pieces.list);
    },
  );

  test.prop([fc.constantFrom(2 ** 18, 2 ** 19), fc.integer({ min: -2, max: 2 }), fc.integer({ min: 8, max: 40 }), fc.integer()], { numRuns: 4 })(
    'pieces filling the code-unit pool to 2^18 / 2^19 ± 2 units: the pool doubles',
    async (poolUnits, delta, madeUnits, seed) => {
      const m = await freshTokens();
      // Pieces that end at exactly poolUnits + delta units (a piece ends at the pool's end, or 1-2
      // units short of it, or crosses it by 1-2), then one more that crosses it in any case;
      // 2^19 crosses 2^18 on the way.
      const target = poolUnits + delta;
      const pieces = new Pieces(seed);
      while (target - pieces.units >= 74 && pieces.token(target - pieces.units - 10));
      while (target - pieces.units >= madeUnits + 10) pieces.madeOf(madeUnits);
      const gap = target - pieces.units; // 10 ≤ gap < max(74, madeUnits + 10): two made pieces fill it
      expect(gap).toBeGreaterThanOrEqual(10);
      pieces.madeOf(gap >> 1);
      pieces.madeOf(gap - (gap >> 1));
      expect(pieces.units).toBe(target);
      pieces.madeOf(7);
      feedAndReread(m, pieces.list);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Counting on worker threads = counting in process

describe('countSkillTokensOnWorkers = countTokens of each record, serially', () => {
  const RECORDS = 20;
  let source: DocSource;
  let texts: string[];
  beforeAll(async () => {
    // Skill texts of every kind, drawn once (the property varies the split, not the texts).
    const md = fc.sample(text.filter((t) => t.trim() !== ''), { numRuns: RECORDS });
    const records = md.map((skill_md, i) => ({ id: `s${i}`, name: `Skill ${i}`, description: `does ${i}`, skill_md }));
    const dir = makeDataset({ skills: records, queries: [{ id: 'q0', query: 'x', skill_ids: ['s0'] }] });
    const ds = await loadDataset({ path: dir, split: 'test', textOnDemand: true });
    source = fileDocSource(ds.skillRecords);
    texts = ds.skills.map((s) => s.skillMd);
  });

  test.prop(
    [
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: RECORDS }),
      fc.integer(),
      fc.constantFrom('each', 'none', 'lanes-1', 'lanes', 'lanes+1', 'cut', 'cut+1'),
      fc.boolean(),
    ],
    {
      numRuns: 6,
      // and always: no records (one empty task), and one task per record with tasks = lanes ± 1 (2 workers: 4 lanes)
      examples: [
        [2, 0, 1, 'each', false],
        [2, 3, 7, 'each', true],
        [2, 5, 8, 'each', false],
      ],
    },
  )('for any threads, record count and task split (tasks around 2 lanes per worker)', async (threads, take, seed, split, withKnown) => {
    // `take` ascending records, picked by the seed
    const order = Array.from({ length: RECORDS }, (_, i) => i).sort((a, b) => ((Math.imul(a + 1, 0x9e3779b1) ^ seed) >>> 0) - ((Math.imul(b + 1, 0x9e3779b1) ^ seed) >>> 0));
    const records = order.slice(0, take).sort((a, b) => a - b);
    const bytes = records.map((r) => source.lengths[r]!);
    const total = bytes.reduce((a, b) => a + b, 0);
    // task bytes: every record a task, one task, about 2·threads ± 1 tasks, or a cut exactly at (or one byte past) a record's end
    const lanes = 2 * threads;
    const taskBytes =
      split === 'each' ? 1
      : split === 'none' ? total + 1
      : split === 'cut' || split === 'cut+1' ? Math.max(1, bytes.slice(0, Math.ceil(take / 2)).reduce((a, b) => a + b, 0) + (split === 'cut+1' ? 1 : 0))
      : Math.max(1, Math.ceil(total / Math.max(1, lanes + (split === 'lanes-1' ? -1 : split === 'lanes+1' ? 1 : 0))));
    const want = records.map((r) => countTokens(texts[r]!));
    const known = withKnown ? records.filter((_, j) => j % 3 === 0).map((r) => textHash(texts[r]!)) : null;
    const got = await countSkillTokensOnWorkers(source, records, threads, known, taskBytes);
    if (known === null) {
      expect([...got.counts]).toEqual(want);
      expect(got.hashes).toBeNull();
    } else {
      const knownSet = new Set(known);
      expect(got.hashes).toEqual(records.map((r) => textHash(texts[r]!)));
      expect([...got.counts]).toEqual(records.map((r, j) => (knownSet.has(textHash(texts[r]!)) ? -1 : want[j])));
    }
  });
});
