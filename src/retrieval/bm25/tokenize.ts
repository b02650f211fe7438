/**
 * The bm25s 0.3.3 tokenizer, emulated exactly: Python `str.lower()`, then
 * `re.findall(r"(?u)\b\w\w+\b", text)`, then stop-word removal (no stemming).
 *
 * Facts this module relies on (each checked against CPython 3.11 over every code point):
 * - Python's Unicode `\w` is `str.isalnum() or "_"`, which is exactly the code points of
 *   general category L* or N* plus `_`, i.e. `[\p{L}\p{N}_]` in JavaScript. Combining marks
 *   (Mn/Mc/Me), ZWJ/ZWNJ, apostrophes, hyphens, emoji and lone surrogates are not word
 *   characters. JavaScript's own `\w`/`\b` are ASCII-only and must not be used.
 * - `\b\w\w+\b` matches exactly the maximal runs of word characters that are at least two
 *   code points long (a run of one vanishes; a match can never start or end inside a run).
 *   Length counts code points, so one astral letter (two UTF-16 units) is a run of one.
 * - JavaScript `String.prototype.toLowerCase()` equals Python `str.lower()` for every
 *   assigned code point (full mappings: 'İ' → 'i̇', and the Final_Sigma rule for 'Σ').
 * Residual difference: the Unicode version. Python 3.13 (the official SkillRet runtime) uses
 * Unicode 15.1, Node 20.20 uses Unicode 17; letters/numbers first assigned after 15.1 are word
 * characters here but not in the reference. No such character occurs in the SkillRet data.
 */
import { ENGLISH_STOPWORDS } from './stopwords.js';
import { FNV_OFFSET, FNV_PRIME } from './token-table.js';

const WORD_CHAR = /^[\p{L}\p{N}_]$/u;

/** 1 for BMP code units that are Python `\w` characters (surrogates: 0, decoded separately). */
const BMP_WORD: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    if (WORD_CHAR.test(String.fromCharCode(c))) table[c] = 1;
  }
  return table;
})();

const astralWord = new Map<number, boolean>();

/** Whether a code point is a Python `re` Unicode word character (`\w`). */
export function isWordCodePoint(cp: number): boolean {
  if (cp < 0x10000) return BMP_WORD[cp] === 1;
  let v = astralWord.get(cp);
  if (v === undefined) {
    v = cp <= 0x10ffff && WORD_CHAR.test(String.fromCodePoint(cp));
    astralWord.set(cp, v);
  }
  return v;
}

/** Python `str.lower()` (identical to `toLowerCase()` for assigned code points; see above). */
export function pythonLower(text: string): string {
  return text.toLowerCase();
}

/** A growable buffer of word runs, reused across documents. */
export class WordRuns {
  /**
   * Triples start0, end0, hash0, start1, end1, hash1, ...: UTF-16 [start, end) offsets and the
   * FNV-1a hash of the run's code units (= `fnv1a(s, start, end)`, for `TokenTable.internHashed`).
   * Only the first `3 * count` entries are meaningful.
   */
  data: Int32Array = new Int32Array(3 * 2048);
  count = 0;
}

/**
 * Finds the matches of `\b\w\w+\b` in `s` (already lower-cased) and stores them in `out`
 * (overwriting it). Returns the number of matches.
 */
export function findWordRuns(s: string, out: WordRuns): number {
  const table = BMP_WORD;
  const n = s.length;
  let data = out.data;
  let k = 0;
  let i = 0;
  while (i < n) {
    // Skip to the start of the next run of word characters.
    let c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) {
      if (table[c] === 0) {
        i++;
        continue;
      }
    } else {
      const cp = c <= 0xdbff && i + 1 < n ? pairCodePoint(c, s.charCodeAt(i + 1)) : -1;
      if (cp < 0 || !isWordCodePoint(cp)) {
        i += cp < 0 ? 1 : 2;
        continue;
      }
    }
    // Consume the maximal run, counting code points and hashing code units (FNV-1a).
    const start = i;
    let cps = 0;
    let h = FNV_OFFSET;
    while (i < n) {
      c = s.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) {
        if (table[c] === 0) break;
        h = Math.imul(h ^ c, FNV_PRIME);
        i++;
      } else {
        const lo = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        const cp = c <= 0xdbff ? pairCodePoint(c, lo) : -1;
        if (cp < 0 || !isWordCodePoint(cp)) break;
        h = Math.imul(Math.imul(h ^ c, FNV_PRIME) ^ lo, FNV_PRIME);
        i += 2;
      }
      cps++;
    }
    if (cps >= 2) {
      if (k + 3 > data.length) {
        const grown = new Int32Array(data.length * 2);
        grown.set(data);
        data = grown;
        out.data = grown;
      }
      data[k] = start;
      data[k + 1] = i;
      data[k + 2] = h;
      k += 3;
    }
  }
  out.count = k / 3;
  return out.count;
}

/** Code point of a surrogate pair, or -1 when `lo` is not a low surrogate. */
function pairCodePoint(hi: number, lo: number): number {
  if (lo < 0xdc00 || lo > 0xdfff) return -1;
  return ((hi - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
}

export interface TokenizeOptions {
  /** Stop words to drop (exact match after lower-casing). Default: bm25s English list; null = none. */
  stopwords?: ReadonlySet<string> | null;
  /** Lower-case first, as bm25s does by default. Default true. */
  lower?: boolean;
}

/**
 * Tokenizes one text exactly as `bm25s.tokenize(text, stopwords=...)` does, returning the
 * tokens in order with repeats. An empty result stays empty (bm25s adds no placeholder).
 */
export function tokenize(text: string, opts: TokenizeOptions = {}): string[] {
  const stopwords = opts.stopwords === undefined ? ENGLISH_STOPWORDS : opts.stopwords;
  const s = opts.lower === false ? text : pythonLower(text);
  const runs = new WordRuns();
  const count = findWordRuns(s, runs);
  const tokens: string[] = [];
  const d = runs.data;
  for (let r = 0; r < count; r++) {
    const token = s.slice(d[3 * r], d[3 * r + 1]);
    if (stopwords !== null && stopwords.has(token)) continue;
    tokens.push(token);
  }
  return tokens;
}
