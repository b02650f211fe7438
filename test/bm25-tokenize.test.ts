import { describe, expect, it } from 'vitest';
import { BM25S_STOPWORDS_EN, ENGLISH_STOPWORDS } from '../src/retrieval/bm25/stopwords.js';
import { TokenTable, fnv1a } from '../src/retrieval/bm25/token-table.js';
import { WordRuns, findWordRuns, isWordCodePoint, tokenize } from '../src/retrieval/bm25/tokenize.js';

// Expected tokens: CPython 3.11.7 `re.compile(r"(?u)\b\w\w+\b").findall(text.lower())`, cross-checked
// with bm25s 0.3.3 `bm25s.tokenize(text, stopwords=None | "en", return_ids=False)`.
const CASES: ReadonlyArray<{ text: string; tokens: string[]; tokensEn: string[] }> = [
  {
    text: "Hello, World! It's a test-case: snake_case and CamelCase.",
    tokens: ['hello', 'world', 'it', 'test', 'case', 'snake_case', 'and', 'camelcase'],
    tokensEn: ['hello', 'world', 'test', 'case', 'snake_case', 'camelcase'],
  },
  { text: 'x y z ab c de', tokens: ['ab', 'de'], tokensEn: ['ab', 'de'] },
  { text: 'café naïve résumé', tokens: ['café', 'naïve', 'résumé'], tokensEn: ['café', 'naïve', 'résumé'] },
  // decomposed accents: U+0301 / U+0308 are Mn, not \w, so they split the word
  { text: 'cafe\u0301 nai\u0308ve', tokens: ['cafe', 'nai', 've'], tokensEn: ['cafe', 'nai', 've'] },
  {
    text: '数据库 查询 日本語テキスト 한국어',
    tokens: ['数据库', '查询', '日本語テキスト', '한국어'],
    tokensEn: ['数据库', '查询', '日本語テキスト', '한국어'],
  },
  { text: 'emoji 🚀rocket 👍🏽 thumbs', tokens: ['emoji', 'rocket', 'thumbs'], tokensEn: ['emoji', 'rocket', 'thumbs'] },
  // superscripts/subscripts are No (numbers): word characters
  { text: 'x² E=mc² H₂O ½ ⅔ 10³', tokens: ['x²', 'mc²', 'h₂o', '10³'], tokensEn: ['x²', 'mc²', 'h₂o', '10³'] },
  { text: '１２３ ＡＢＣ fullwidth', tokens: ['１２３', 'ａｂｃ', 'fullwidth'], tokensEn: ['１２３', 'ａｂｃ', 'fullwidth'] },
  { text: '__init__ _ __ a_b _x', tokens: ['__init__', '__', 'a_b', '_x'], tokensEn: ['__init__', '__', 'a_b', '_x'] },
  { text: "don't can’t it‘s", tokens: ['don', 'can', 'it'], tokensEn: ['don', 'can'] },
  { text: 'zero\u200dwidth\u200cjoiner', tokens: ['zero', 'width', 'joiner'], tokensEn: ['zero', 'width', 'joiner'] },
  // 'İ'.lower() == 'i' + U+0307 (Mn): "i" alone vanishes
  { text: 'İstanbul İİ', tokens: ['stanbul'], tokensEn: ['stanbul'] },
  // final sigma: Python and JS both apply the Final_Sigma rule
  { text: 'ΟΔΟΣ ΣΑΣ Σ σς ΌΣΟΣ.', tokens: ['οδος', 'σας', 'σς', 'όσος'], tokensEn: ['οδος', 'σας', 'σς', 'όσος'] },
  { text: 'ǅungla ᾈ ß ẞ ﬁle', tokens: ['ǆungla', 'ﬁle'], tokensEn: ['ǆungla', 'ﬁle'] },
  // astral letters/digits count as one code point each; 𐐀𐐁 (Deseret) lower-case to 𐐨𐐩
  { text: '𝐁𝐨𝐥𝐝 𝐀 𝟏𝟐 𐐀𐐁', tokens: ['𝐁𝐨𝐥𝐝', '𝟏𝟐', '𐐨𐐩'], tokensEn: ['𝐁𝐨𝐥𝐝', '𝟏𝟐', '𐐨𐐩'] },
  { text: 'a1 1a 22 3 v2.0.1 192.168.0.1', tokens: ['a1', '1a', '22', 'v2', '192', '168'], tokensEn: ['a1', '1a', '22', 'v2', '192', '168'] },
  // single code points (Nl, No) vanish
  { text: 'Ⅻ ⅻ ① ⑳', tokens: [], tokensEn: [] },
  {
    text: 'tab\there\nnew\r\nline\u00a0nbsp\u2028sep',
    tokens: ['tab', 'here', 'new', 'line', 'nbsp', 'sep'],
    tokensEn: ['tab', 'here', 'new', 'line', 'nbsp', 'sep'],
  },
  // Arabic tatweel (Lm) is a letter; U+FDFA alone vanishes; Thai/Arabic-Indic/Bengali digits
  { text: 'ـــ ﷺ ๑๒ ٣٤ ১২', tokens: ['ـــ', '๑๒', '٣٤', '১২'], tokensEn: ['ـــ', '๑๒', '٣٤', '১২'] },
  { text: 'The AND Of To IS was WILL with', tokens: ['the', 'and', 'of', 'to', 'is', 'was', 'will', 'with'], tokensEn: [] },
  { text: '', tokens: [], tokensEn: [] },
  { text: '   ', tokens: [], tokensEn: [] },
  { text: 'I a', tokens: [], tokensEn: [] },
  { text: 'NONE', tokens: ['none'], tokensEn: ['none'] },
];

describe('tokenize (bm25s 0.3.3, Python re semantics)', () => {
  it.each(CASES)('tokenizes %j like Python', ({ text, tokens, tokensEn }) => {
    expect(tokenize(text, { stopwords: null })).toEqual(tokens);
    expect(tokenize(text)).toEqual(tokensEn);
  });

  it('keeps case when lower is false', () => {
    expect(tokenize('Hello WORLD x The', { lower: false, stopwords: null })).toEqual(['Hello', 'WORLD', 'The']);
    // stop words match exact tokens, so "The" survives without lower-casing
    expect(tokenize('Hello The the', { lower: false })).toEqual(['Hello', 'The']);
  });

  it('accepts a custom stop-word set', () => {
    expect(tokenize('alpha beta gamma beta', { stopwords: new Set(['beta']) })).toEqual(['alpha', 'gamma']);
  });

  it('classifies code points like Python re \\w (str.isalnum() or "_")', () => {
    const word = ['a', 'Z', '_', '0', '²', 'ǅ', 'ʰ', '数', 'ـ', 'Ⅻ', '𝐀', '𝟏'];
    const nonWord = [' ', '-', "'", '’', '\u0301', '\u0903', '\u20dd', '\u200d', '\u00ad', '🚀', '\u{1f3fd}', '$', '\u3000'];
    for (const c of word) expect(isWordCodePoint(c.codePointAt(0)!), c).toBe(true);
    for (const c of nonWord) expect(isWordCodePoint(c.codePointAt(0)!), JSON.stringify(c)).toBe(false);
  });

  it('treats lone surrogates as non-word characters', () => {
    expect(tokenize('ab\ud800cd\udc00ef \ud835\udc00x')).toEqual(['ab', 'cd', 'ef', '𝐀x']);
  });

  it('finds run offsets in UTF-16 units, hashes them like fnv1a and grows its buffer', () => {
    const runs = new WordRuns();
    runs.data = new Int32Array(3);
    const s = 'ab 𝐀𝐁 c de';
    expect(findWordRuns(s, runs)).toBe(3);
    expect([...runs.data.subarray(0, 9)]).toEqual([0, 2, fnv1a(s, 0, 2), 3, 7, fnv1a(s, 3, 7), 10, 12, fnv1a(s, 10, 12)]);
  });
});

describe('stop words', () => {
  it('are the 33 words of bm25s STOPWORDS_EN, in order', () => {
    expect(BM25S_STOPWORDS_EN).toEqual(
      'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
    );
    expect(ENGLISH_STOPWORDS.size).toBe(33);
  });
});

describe('TokenTable', () => {
  it('interns substrings to dense ids in first-seen order', () => {
    const t = new TokenTable();
    const s = 'alpha beta alpha gamma';
    expect(t.intern(s, 0, 5)).toBe(0);
    expect(t.intern(s, 6, 10)).toBe(1);
    expect(t.intern(s, 11, 16)).toBe(0);
    expect(t.get(s, 17, 22)).toBe(-1);
    expect(t.add('gamma')).toBe(2);
    expect(t.get(s, 17, 22)).toBe(2);
    expect(t.tokens()).toEqual(['alpha', 'beta', 'gamma']);
    expect(t.token(1)).toBe('beta');
    expect(() => t.token(3)).toThrow(RangeError);
  });

  it('stays correct through rehashing with many tokens', () => {
    const t = new TokenTable();
    const ids: number[] = [];
    for (let i = 0; i < 20000; i++) ids.push(t.add(`w${i}`));
    expect(ids).toEqual(Array.from({ length: 20000 }, (_, i) => i));
    const found: number[] = [];
    for (let i = 0; i < 20000; i++) found.push(t.get(`x w${i} y`, 2, 2 + `w${i}`.length));
    expect(found).toEqual(ids);
    expect(t.get('w20000', 0, 6)).toBe(-1);
    expect(t.size).toBe(20000);
  });
});
