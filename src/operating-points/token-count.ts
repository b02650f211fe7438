/**
 * Token counts of injected skill texts: OpenAI's cl100k_base BPE through js-tiktoken (the
 * tokenizer the SkillRet paper used for its length statistics). The rank file ships inside the
 * package, so counting works offline. Counts of short texts are memoised by text.
 *
 * Speed: the count of a text is the sum over its pieces (the matches of cl100k's split pattern,
 * js-tiktoken's own `pat_str`, over the whole text, exactly as js-tiktoken's `encode` splits it when
 * no special token is allowed) of each piece's count: 1 when its bytes are a token, else the number
 * of parts js-tiktoken's byte-pair merge leaves. Pieces repeat (words), so each distinct piece is
 * merged once and its count kept in a table (`PieceTable`): the same counts as
 * `encode(text, [], []).length` (tested), without running the quadratic merge of every word of a
 * 100 MB corpus again.
 *
 * The pieces are found by a scanner over the text's UTF-16 code units (`asciiPieceEnd`), which
 * takes the pattern's alternatives in order with their greedy and backtracking outcomes, for a piece
 * whose decision looks only at ASCII units (< 0x80: letters a-z A-Z, digits 0-9, white space
 * space \t \n \v \f \r, anything else neither); it hashes the piece as it goes. Where the decision
 * would look at any other unit (in a run, the unit ending one, a lookahead), the piece is matched by
 * the pattern made sticky (`y`) at that offset instead, which is exact because a piece depends only
 * on the text from its start on; both give the matches of the global pattern, tested at every
 * offset. No match object and no string is made per piece: a piece is looked up in the table by an
 * FNV-1a hash of its code units and compared in place (one of one or two ASCII units first in an
 * array indexed by those units, `tinyCounts`). The global pattern (`encode`'s) skips
 * characters no alternative matches at; cl100k's pattern matches at every position, but should a
 * sticky match ever fail before the end of the text, that text is counted the plain way
 * (`matchAll`, every piece as a string).
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

export const TOKENIZER = 'cl100k_base (js-tiktoken)';

let encoder: Tiktoken | undefined;
let ranks: Map<string, number> | undefined;
let split: RegExp | undefined;
let sticky: RegExp | undefined;
/** Whole texts up to this length are memoised (longer ones are not kept alive: memory follows the index, not the text). */
const MEMO_MAX_CHARS = 256;
const memo = new Map<string, number>();

/** The encoder itself (for tests comparing with `encode`). */
export function cl100kEncoder(): Tiktoken {
  encoder ??= new Tiktoken(cl100k);
  return encoder;
}

/**
 * cl100k's ranks by byte sequence, the bytes as a Latin-1 string (one character per byte): the
 * entries of js-tiktoken's own rank map (which keys them as "b1,b2,…"; tested equal), read from the
 * same rank file the way its constructor reads it (lines of a name, the first rank and base64
 * tokens of consecutive ranks; a token listed twice keeps its last rank), without its decoding
 * tables and their garbage: ~10 MB instead of ~100 MB per thread that counts.
 */
export function cl100kRanks(): ReadonlyMap<string, number> {
  if (ranks) return ranks;
  const m = new Map<string, number>();
  for (const line of (cl100k as { bpe_ranks: string }).bpe_ranks.split('\n')) {
    if (line === '') continue;
    const parts = line.split(' ');
    const offset = Number.parseInt(parts[1]!, 10);
    for (let i = 2; i < parts.length; i++) m.set(atob(parts[i]!), offset + i - 2);
  }
  return (ranks = m);
}

const NO_RANK = 0x7fffffff; // above every rank
/** Whether each single byte is a token of cl100k (all are; read from the ranks, not assumed). */
let byteTokens: Uint8Array | undefined;
/** Ranks of the two-byte tokens by (first byte << 8 | second), NO_RANK for other pairs: the first lookups of a merge. */
let pairRanks: Int32Array | undefined;

/** Rank of parts i and i + 1 of `bytes` merged (parts [starts[i], starts[i + 1])), or NO_RANK. */
function pairRank(r: ReadonlyMap<string, number>, bytes: string, starts: Int32Array, parts: number, i: number): number {
  if (i + 1 >= parts) return NO_RANK;
  const a = starts[i]!;
  const b = starts[i + 2]!;
  if (b - a === 2) return pairRanks![(bytes.charCodeAt(a) << 8) | bytes.charCodeAt(a + 1)]!;
  return r.get(bytes.slice(a, b)) ?? NO_RANK;
}

/**
 * Tokens of one piece: js-tiktoken's bytePairMerge over the piece's UTF-8 bytes (merge the adjacent
 * pair of parts of lowest rank, the leftmost of equal ranks, until no pair is a token), counting the
 * parts it leaves that are tokens. Each pair's rank is kept and only the two pairs next to a merge
 * are looked up again (as tiktoken's own Rust merge does), so a long piece costs O(n) lookups
 * instead of O(n²): the same merges in the same order. A merged part is a token (it was merged for
 * its rank), so only single bytes are looked up at the end; pairs of single bytes are looked up in
 * a table of the two-byte tokens; an ASCII piece is its own bytes.
 */
function pieceTokens(piece: string): number {
  let ascii = true;
  for (let i = 0; i < piece.length && ascii; i++) ascii = piece.charCodeAt(i) < 0x80;
  const bytes = ascii ? piece : Buffer.from(piece, 'utf8').toString('latin1');
  const r = cl100kRanks();
  if (r.has(bytes)) return 1;
  if (!pairRanks) {
    byteTokens = new Uint8Array(256);
    pairRanks = new Int32Array(1 << 16).fill(NO_RANK);
    for (const [t, rank] of r) {
      if (t.length === 1) byteTokens[t.charCodeAt(0)] = 1;
      else if (t.length === 2) pairRanks[(t.charCodeAt(0) << 8) | t.charCodeAt(1)] = rank;
    }
  }
  // parts as [starts[i], starts[i + 1]) byte ranges, i < parts; rank[i]: rank of parts i and i + 1 merged
  let parts = bytes.length;
  const starts = new Int32Array(parts + 1);
  for (let i = 0; i <= parts; i++) starts[i] = i;
  const rank = new Int32Array(parts);
  for (let i = 0; i < parts; i++) rank[i] = pairRank(r, bytes, starts, parts, i);
  for (;;) {
    let at = -1;
    let min = NO_RANK;
    for (let i = 0; i < parts - 1; i++) {
      if (rank[i]! < min) {
        min = rank[i]!;
        at = i;
      }
    }
    if (at < 0) break;
    starts.copyWithin(at + 1, at + 2, parts + 1);
    rank.copyWithin(at + 1, at + 2, parts);
    parts--;
    rank[at] = pairRank(r, bytes, starts, parts, at);
    if (at > 0) rank[at - 1] = pairRank(r, bytes, starts, parts, at - 1);
  }
  let n = 0;
  for (let i = 0; i < parts; i++) if (starts[i + 1]! - starts[i]! > 1 || byteTokens![bytes.charCodeAt(starts[i]!)]) n++;
  return n;
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a (32 bits) of the UTF-16 code units text[start, end): PieceTable's key (exported for tests). */
export function fnv1a(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/**
 * Distinct pieces and their token counts: open addressing over a power-of-two table, keyed by an
 * FNV-1a hash of the piece's UTF-16 code units, so a piece is found from its offsets in the text
 * without making a string of it. Slots are [hash, count, offset, length] in one Int32Array (count
 * -1: empty), the pieces' code units in one pool; a hit compares the code units in place.
 */
class PieceTable {
  private slots = new Int32Array(4 << 16).fill(-1);
  private pool = new Uint16Array(1 << 18);
  private poolUsed = 0;
  /** Distinct pieces held. */
  size = 0;

  /** Tokens of text[start, end), whose `fnv1a` hash is `h` (counted and added when new). */
  count(text: string, start: number, end: number, h: number): number {
    const len = end - start;
    const slots = this.slots;
    const pool = this.pool;
    const mask = (slots.length >> 2) - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = s << 2;
      const n = slots[at + 1]!;
      if (n < 0) return this.insert(at, h, text, start, end);
      if (slots[at] !== h || slots[at + 3] !== len) continue;
      let p = slots[at + 2]!;
      let i = start;
      while (i < end && pool[p] === text.charCodeAt(i)) i++, p++;
      if (i === end) return n;
    }
  }

  private insert(at: number, h: number, text: string, start: number, end: number): number {
    const n = pieceTokens(text.slice(start, end));
    const len = end - start;
    if (this.poolUsed + len > this.pool.length) {
      const grown = new Uint16Array(Math.max(2 * this.pool.length, this.poolUsed + len));
      grown.set(this.pool);
      this.pool = grown;
    }
    for (let i = 0; i < len; i++) this.pool[this.poolUsed + i] = text.charCodeAt(start + i);
    const slots = this.slots;
    slots[at] = h;
    slots[at + 1] = n;
    slots[at + 2] = this.poolUsed;
    slots[at + 3] = len;
    this.poolUsed += len;
    if (++this.size * 2 > slots.length >> 2) this.grow();
    return n;
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2).fill(-1);
    const mask = (slots.length >> 2) - 1;
    for (let at = 0; at < old.length; at += 4) {
      if (old[at + 1]! < 0) continue;
      let s = old[at]! & mask;
      while (slots[(s << 2) + 1]! >= 0) s = (s + 1) & mask;
      slots.set(old.subarray(at, at + 4), s << 2);
    }
    this.slots = slots;
  }
}

const pieces = new PieceTable();

/** Distinct pieces counted so far in this thread (for tests: each is held once, whatever the table's growth). */
export function pieceTableSize(): number {
  return pieces.size;
}

/**
 * Counts of the pieces of one or two ASCII units (a third of a text's pieces: white space,
 * punctuation, short words) by their units, in front of `PieceTable`: [c] for one unit,
 * [128 + (c0 << 7 | c1)] for two; -1 until the table has counted it.
 */
const tinyCounts = new Int32Array(128 + (128 << 7)).fill(-1);

/** The plain count: every match of the global pattern as a string, as `encode` iterates them (exported for tests). */
export function countTokensByMatches(text: string): number {
  split ??= new RegExp((cl100k as { pat_str: string }).pat_str, 'gu');
  let n = 0;
  for (const m of text.matchAll(split)) n += pieces.count(m[0], 0, m[0].length, fnv1a(m[0], 0, m[0].length));
  return n;
}

/** Classes of the ASCII code units for the scanner (`asciiPieceEnd`); a unit ≥ 0x80 has none. */
const LETTER = 1; // a-z A-Z (\p{L})
const DIGIT = 2; // 0-9 (\p{N})
const SPACE = 3; // \s other than a line break: space, \t, \v, \f
const BREAK = 4; // \r \n
const OTHER = 5; // everything else, control characters included: [^\s\p{L}\p{N}]
const ASCII_CLASS = (() => {
  const c = new Uint8Array(128).fill(OTHER);
  for (let u = 0x41; u <= 0x5a; u++) c[u] = c[u + 0x20] = LETTER;
  for (let u = 0x30; u <= 0x39; u++) c[u] = DIGIT;
  for (const u of [0x20, 0x09, 0x0b, 0x0c]) c[u] = SPACE;
  c[0x0a] = c[0x0d] = BREAK;
  return c;
})();

/** `fnv1a` of the piece the last `asciiPieceEnd` found (set when it returns an end, not -1). */
let scannedHash = 0;

/** The hash `asciiPieceEnd` left (for tests). */
export function lastScannedHash(): number {
  return scannedHash;
}

/**
 * End of the run of ASCII units of class `k` from `j`, hashing them on from `h` into `scannedHash`;
 * -1 when a unit ≥ 0x80 is met (it may or may not belong to the run).
 */
function runEnd(text: string, j: number, n: number, k: number, h: number): number {
  for (; j < n; j++) {
    const u = text.charCodeAt(j);
    if (u >= 0x80) return -1;
    if (ASCII_CLASS[u] !== k) break;
    h = Math.imul(h ^ u, FNV_PRIME);
  }
  scannedHash = h;
  return j;
}

/**
 * End of the piece of cl100k's split pattern that starts at `i` (< `n`, the text's length), found
 * from the ASCII code units themselves (its `fnv1a` hash left in `scannedHash`), or -1 when
 * deciding it would look at a unit ≥ 0x80 (in the run it extends, the unit that ends a run, a
 * lookahead): the caller then asks the sticky pattern. The alternatives in the pattern's order,
 * each with its greedy and backtracking outcome: `'s|'t|'re|'ve|'m|'ll|'d` (either case, whatever
 * follows); `[^\r\n\p{L}\p{N}]?\p{L}+` (one unit that is no letter, digit or line break, then a
 * letter run; or a letter run); `\p{N}{1,3}`; ` ?[^\s\p{L}\p{N}]+[\r\n]*`; and for a run of white
 * space, `\s*[\r\n]+` (up to just after its last line break), `\s+(?!\S)` (all of it at the
 * text's end, else all but its last unit) and `\s+` (a single white-space unit before a non-space).
 * Exported for tests.
 */
export function asciiPieceEnd(text: string, i: number, n: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0x80) return -1;
  const k = ASCII_CLASS[c]!;
  const hc = Math.imul(FNV_OFFSET ^ c, FNV_PRIME);
  if (k === LETTER) return runEnd(text, i + 1, n, LETTER, hc);
  // at most three digits: the run ends at i + 3 whatever follows
  if (k === DIGIT) return runEnd(text, i + 1, i + 3 < n ? i + 3 : n, DIGIT, hc);
  if (k !== BREAK) {
    // OTHER or SPACE at i: a contraction, else this unit and a letter run, else (a space and) a punctuation run
    if (i + 1 >= n) {
      // one unit at the text's end: `[^\s\p{L}\p{N}]+` or `\s+(?!\S)`
      scannedHash = hc;
      return n;
    }
    const d = text.charCodeAt(i + 1);
    if (d >= 0x80) return -1;
    const kd = ASCII_CLASS[d]!;
    const hd = Math.imul(hc ^ d, FNV_PRIME);
    if (c === 0x27) {
      const l = d | 0x20; // lower case of a letter
      if (l === 0x73 || l === 0x74 || l === 0x6d || l === 0x64) {
        // 's 't 'm 'd
        scannedHash = hd;
        return i + 2;
      }
      if ((l === 0x72 || l === 0x76 || l === 0x6c) && i + 2 < n) {
        // 're 've 'll
        const e = text.charCodeAt(i + 2);
        if ((e | 0x20) === (l === 0x6c ? 0x6c : 0x65)) {
          scannedHash = Math.imul(hd ^ e, FNV_PRIME);
          return i + 3;
        }
      }
    }
    if (kd === LETTER) return runEnd(text, i + 2, n, LETTER, hd);
    if (k === OTHER || (c === 0x20 && kd === OTHER)) {
      const j = k === OTHER ? runEnd(text, i + 1, n, OTHER, hc) : runEnd(text, i + 2, n, OTHER, hd);
      return j < 0 || j === n ? j : runEnd(text, j, n, BREAK, scannedHash);
    }
  }
  // white space from i: the run (line breaks included), then the three white-space alternatives
  let last = -1;
  let j = i + 1;
  if (k === BREAK) last = i;
  for (; j < n; j++) {
    const u = text.charCodeAt(j);
    if (u >= 0x80) return -1;
    const ku = ASCII_CLASS[u];
    if (ku === BREAK) last = j;
    else if (ku !== SPACE) break;
  }
  const end = last >= 0 ? last + 1 : j === n || j === i + 1 ? j : j - 1;
  scannedHash = fnv1a(text, i, end);
  return end;
}

/** cl100k_base tokens of `text` (special-token strings count as plain text). */
export function countTokens(text: string): number {
  const short = text.length <= MEMO_MAX_CHARS;
  const hit = short ? memo.get(text) : undefined;
  if (hit !== undefined) return hit;
  const re = (sticky ??= new RegExp((cl100k as { pat_str: string }).pat_str, 'uy'));
  const len = text.length;
  let n = 0;
  let start = 0;
  while (start < len) {
    let end = asciiPieceEnd(text, start, len);
    if (end < 0) {
      re.lastIndex = start;
      if (!re.test(text) || re.lastIndex <= start) {
        n = countTokensByMatches(text);
        break;
      }
      end = re.lastIndex;
      n += pieces.count(text, start, end, fnv1a(text, start, end));
    } else if (end - start <= 2) {
      const c = text.charCodeAt(start);
      const k = end - start === 1 ? c : 128 + ((c << 7) | text.charCodeAt(start + 1));
      let t = tinyCounts[k]!;
      if (t < 0) t = tinyCounts[k] = pieces.count(text, start, end, scannedHash);
      n += t;
    } else {
      n += pieces.count(text, start, end, scannedHash);
    }
    start = end;
  }
  if (short) memo.set(text, n);
  return n;
}
