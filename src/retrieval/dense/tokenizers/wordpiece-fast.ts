/**
 * A faster encoder of content ids for transformers.js 4.3.2 tokenizers whose model is WordPiece
 * (BERT-family embedders; the bundled GloVe models, whose vocabulary is whole words), producing
 * the ids of `tokenizer.encode(text, { add_special_tokens: false })`.
 *
 * transformers.js spends most of a long text's time in three places: the added-token splitter
 * (a trie walked by an object-property lookup per character, twice per text), WordPiece itself
 * (per word, the characters spread into an array and every candidate substring joined back, then
 * looked up), and mapping each token string to its id. This keeps the pipeline's own steps where
 * they are cheap and exact, and replaces the others by equivalents:
 *
 * - added tokens: the splitters can only cut a text at an occurrence of one of their words (the
 *   strings their tries end at), so a text containing none of them is one section, the text
 *   itself. Such a text skips the splitter; a text containing one goes through transformers.js
 *   whole (its ids are the tokenizer's own), and so does a text that is, before or after
 *   normalising, an added token's string (`encode_text` takes such a section as that token);
 * - the normaliser and the pre-tokenizer are the tokenizer's own objects, called as
 *   `encode_text` calls them (one section: `section_index` 0);
 * - WordPiece is a function of one word at a time (`encode` loops over the words and
 *   concatenates), so each distinct word is encoded once by the model's own `encode([word])` and
 *   its ids (mapped as `encode` maps tokens: an added token's id, else the vocabulary's, else the
 *   unknown id) are remembered;
 * - the window: words are looked up only until one id more than the window holds;
 * - a pre-tokenizer that keeps the maximal runs of one character class (`Split`, inverted, whose
 *   pattern is one bracketed class and `+` with the `u` flag: GloVe's `\w+`, which transformers.js
 *   compiles to `[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}…]+`) is scanned here: a code point's membership
 *   is the compiled class's own answer (a table for ASCII, asked once per other code point), so
 *   the runs are the matches; each run is hashed while scanned and looked up in a table of the
 *   words seen, without making its string unless it is new.
 *
 * `installFastWordPiece` applies only to a tokenizer with exactly the fields this reads, no
 * unknown fusion, no `remove_space` or accent flags, and checks itself against the original on
 * probe texts before it is used.
 */
import type { ContentEncoder } from './unigram-fast.js';

/** Words remembered at most (then the memo starts over; results never depend on it). */
const WORD_MEMO_LIMIT = 1 << 18;

type Callable = (...args: never[]) => unknown;

interface WordPieceModelLike {
  config: { type?: unknown };
  tokens_to_ids: Map<string, number>;
  unk_token_id: number;
  fuse_unk?: unknown;
  encode: (tokens: string[]) => string[];
}

interface SplitterLike {
  trie: Record<string, unknown>;
  split: (text: string) => string[];
}

interface TokenizerLike {
  model: WordPieceModelLike;
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: ((text: string, o: { section_index: number }) => string[]) | null;
  added_tokens_map: Map<string, { id: number }>;
  splitter_unnormalized: SplitterLike;
  splitter_normalized: SplitterLike;
  remove_space?: unknown;
  do_lowercase_and_remove_accent?: unknown;
  encode: (text: string, o: { add_special_tokens: boolean }) => { ids: number[] };
}

function isCallable(x: unknown): x is Callable {
  return typeof x === 'function';
}

function isSplitter(x: unknown): x is SplitterLike {
  if (typeof x !== 'object' || x === null) return false;
  const s = x as Record<string, unknown>;
  return typeof s['trie'] === 'object' && s['trie'] !== null && isCallable(s['split']);
}

function isWordPieceTokenizer(t: unknown): t is TokenizerLike {
  if (typeof t !== 'object' || t === null) return false;
  const x = t as Record<string, unknown>;
  const m = x['model'] as Record<string, unknown> | undefined;
  // transformers.js models, normalisers and pre-tokenizers are callable objects (functions).
  if ((typeof m !== 'object' && typeof m !== 'function') || m === null) return false;
  const config = m['config'] as Record<string, unknown> | undefined;
  return (
    config?.['type'] === 'WordPiece' &&
    m['tokens_to_ids'] instanceof Map &&
    typeof m['unk_token_id'] === 'number' &&
    !m['fuse_unk'] &&
    isCallable(m['encode']) &&
    (x['normalizer'] === null || isCallable(x['normalizer'])) &&
    (x['pre_tokenizer'] === null || isCallable(x['pre_tokenizer'])) &&
    x['added_tokens_map'] instanceof Map &&
    isSplitter(x['splitter_unnormalized']) &&
    isSplitter(x['splitter_normalized']) &&
    !x['remove_space'] &&
    !x['do_lowercase_and_remove_accent'] &&
    isCallable(x['encode'])
  );
}

/** The non-empty words a transformers.js DictionarySplitter's trie holds (each node's `end`). */
export function splitterWords(trie: Record<string, unknown>): string[] {
  const words: string[] = [];
  const stack: Record<string, unknown>[] = [trie];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (key === 'end') {
        if (typeof v === 'string' && v.length > 0) words.push(v);
        continue;
      }
      if (typeof v === 'object' && v !== null) stack.push(v as Record<string, unknown>);
    }
  }
  return [...new Set(words)];
}

function containsAny(text: string, words: readonly string[]): boolean {
  for (const w of words) if (text.includes(w)) return true;
  return false;
}

/** The bracketed class of a `[…]+` pattern (no nested brackets), else null. */
const CLASS_RUN_SOURCE = /^\[(?:[^\\\]\[]|\\.)*\]\+$/;

/**
 * Membership in the character class of a pre-tokenizer that keeps the runs of one class (see the
 * module comment), or null when the pre-tokenizer is not one.
 */
export function classRunMembership(pre: unknown): ((cp: number) => boolean) | null {
  if (typeof pre !== 'function' && (typeof pre !== 'object' || pre === null)) return null;
  const x = pre as Record<string, unknown>;
  const config = x['config'] as Record<string, unknown> | undefined;
  const pattern = x['pattern'];
  if (config?.['type'] !== 'Split' || config['invert'] !== true || !(pattern instanceof RegExp)) return null;
  if (pattern.flags !== 'gu' || !CLASS_RUN_SOURCE.test(pattern.source)) return null;
  const one = new RegExp(`^${pattern.source.slice(0, -1)}$`, 'u');
  const ascii = new Uint8Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = one.test(String.fromCharCode(c)) ? 1 : 0;
  const other = new Map<number, boolean>();
  return (cp) => {
    if (cp < 128) return ascii[cp] === 1;
    let m = other.get(cp);
    if (m === undefined) {
      m = one.test(String.fromCodePoint(cp));
      other.set(cp, m);
    }
    return m;
  };
}

/**
 * The words seen and their ids, keyed by the words' UTF-16 units (FNV-1a hash, open addressing):
 * a word is found from its place in a text, without slicing it out.
 */
export class WordTable {
  size = 0;
  private slots = new Int32Array(1 << 12); // entry + 1; 0: empty
  // per entry (one more for the end of the last): all three the same length
  private hash = new Int32Array((1 << 11) + 1);
  private charAt = new Int32Array((1 << 11) + 1); // entry -> start in `chars`; entry + 1 -> end
  private idAt = new Int32Array((1 << 11) + 1); // entry -> start in `ids`; entry + 1 -> end
  private chars = new Uint16Array(1 << 14);
  ids = new Int32Array(1 << 14);

  /** The first id of entry `e` in `ids` (its last is `idEnd(e)` - 1). */
  idStart(e: number): number {
    return this.idAt[e]!;
  }
  idEnd(e: number): number {
    return this.idAt[e + 1]!;
  }

  /** The entry of the word `s[start, end)` whose hash is `h`, or -1. */
  find(s: string, start: number, end: number, h: number): number {
    const mask = this.slots.length - 1;
    const n = end - start;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.slots[slot]! - 1;
      if (e < 0) return -1;
      if (this.hash[e] !== h) continue;
      const a = this.charAt[e]!;
      if (this.charAt[e + 1]! - a !== n) continue;
      let j = 0;
      while (j < n && this.chars[a + j] === s.charCodeAt(start + j)) j++;
      if (j === n) return e;
    }
  }

  /** Adds the word `s[start, end)` (hash `h`, not in the table) with its ids; returns its entry. */
  add(s: string, start: number, end: number, h: number, ids: readonly number[]): number {
    const e = this.size++;
    if (e + 2 > this.charAt.length) {
      const n = 2 * this.charAt.length;
      this.hash = grow(this.hash, n);
      this.charAt = grow(this.charAt, n);
      this.idAt = grow(this.idAt, n);
    }
    const c0 = this.charAt[e]!;
    const n = end - start;
    if (c0 + n > this.chars.length) this.chars = grow(this.chars, Math.max(2 * this.chars.length, c0 + n));
    for (let j = 0; j < n; j++) this.chars[c0 + j] = s.charCodeAt(start + j);
    this.charAt[e + 1] = c0 + n;
    const i0 = this.idAt[e]!;
    if (i0 + ids.length > this.ids.length) this.ids = grow(this.ids, Math.max(2 * this.ids.length, i0 + ids.length));
    for (let j = 0; j < ids.length; j++) this.ids[i0 + j] = ids[j]!;
    this.idAt[e + 1] = i0 + ids.length;
    this.hash[e] = h;
    if (2 * this.size > this.slots.length) this.rehash(2 * this.slots.length);
    else this.place(e);
    return e;
  }

  private place(e: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hash[e]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = e + 1;
  }

  private rehash(slots: number): void {
    this.slots = new Int32Array(slots);
    for (let e = 0; e < this.size; e++) this.place(e);
  }
}

function grow<T extends Int32Array | Uint16Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * The direct encoder for a WordPiece tokenizer (see the module comment); each word's ids are
 * remembered (`table` for a class-run pre-tokenizer, `memo` for any other).
 */
function makeEncoder(t: TokenizerLike): ContentEncoder {
  const model = t.model;
  const addedMap = t.added_tokens_map;
  const vocab = model.tokens_to_ids;
  const unk = model.unk_token_id;
  const normalize = t.normalizer;
  const preTokenize = t.pre_tokenizer;
  const unnormalizedWords = splitterWords(t.splitter_unnormalized.trie);
  const normalizedWords = splitterWords(t.splitter_normalized.trie);
  /** One word's ids: the model's tokens for it, mapped as `encode` maps tokens. */
  const wordIds = (word: string): number[] => model.encode([word]).map((tok) => addedMap.get(tok)?.id ?? vocab.get(tok) ?? unk);
  const memo = new Map<string, readonly number[]>();
  const idsOf = (word: string): readonly number[] => {
    let ids = memo.get(word);
    if (ids === undefined) {
      ids = wordIds(word);
      if (memo.size >= WORD_MEMO_LIMIT) memo.clear();
      memo.set(word, ids);
    }
    return ids;
  };
  const member = classRunMembership(preTokenize);
  let table = new WordTable();
  /** Appends the ids of the class runs of `s` (the pre-tokenizer's matches) to `out`, as far as `limit`. */
  const encodeRuns = (s: string, out: number[], limit: number, inClass: (cp: number) => boolean): number => {
    let n = 0;
    const len = s.length;
    let i = 0;
    while (i < len) {
      // the next run's start
      const c0 = s.charCodeAt(i);
      if (c0 < 128) {
        if (!inClass(c0)) {
          i++;
          continue;
        }
      } else {
        const cp = s.codePointAt(i)!;
        if (!inClass(cp)) {
          i += cp > 0xffff ? 2 : 1;
          continue;
        }
      }
      const start = i;
      let h = FNV_OFFSET;
      while (i < len) {
        const c = s.charCodeAt(i);
        if (c < 128) {
          if (!inClass(c)) break;
          h = Math.imul(h ^ c, FNV_PRIME);
          i++;
        } else {
          const cp = s.codePointAt(i)!;
          if (!inClass(cp)) break;
          h = Math.imul(h ^ c, FNV_PRIME);
          if (cp > 0xffff) h = Math.imul(h ^ s.charCodeAt(i + 1), FNV_PRIME);
          i += cp > 0xffff ? 2 : 1;
        }
      }
      let e = table.find(s, start, i, h);
      if (e < 0) {
        if (table.size >= WORD_MEMO_LIMIT) table = new WordTable();
        e = table.add(s, start, i, h, wordIds(s.slice(start, i)));
      }
      const ids = table.ids;
      for (let k = table.idStart(e), end = table.idEnd(e); k < end; k++) {
        if (n === limit) return limit + 1;
        out.push(ids[k]!);
        n++;
      }
    }
    return n;
  };
  const original = (text: string, out: number[], limit: number): number => {
    const ids = t.encode(text, { add_special_tokens: false }).ids;
    const keep = Math.min(ids.length, limit);
    for (let i = 0; i < keep; i++) out.push(ids[i]!);
    return Math.min(ids.length, limit + 1);
  };
  return (text, out, limit) => {
    if (text.length === 0) return 0;
    // `encode_text` also takes a whole section that is an added token's string (before or after
    // normalising: "<THINK>" lower-cased is the unnormalised added token "<think>") as that token.
    if (containsAny(text, unnormalizedWords) || addedMap.has(text)) return original(text, out, limit);
    const normalized = normalize === null ? text : normalize(text);
    if (normalized.length === 0) return 0;
    if (containsAny(normalized, normalizedWords) || addedMap.has(normalized)) return original(text, out, limit);
    if (member !== null) return encodeRuns(normalized, out, limit, member);
    const words = preTokenize === null ? [normalized] : preTokenize(normalized, { section_index: 0 });
    let n = 0;
    for (const word of words) {
      const ids = idsOf(word);
      for (let i = 0; i < ids.length; i++) {
        if (n === limit) return limit + 1;
        out.push(ids[i]!);
        n++;
      }
    }
    return n;
  };
}

/** Texts the encoder is compared on before it is used (besides the caller's). */
const PROBES = [
  '',
  'a',
  'Hello world, this is a test of the tokenizer.',
  'déjà vu — naïve café ﬁ ① ｆｕｌｌ ÀÉÎÕÜ İstanbul ß',
  'emoji 😀👍🏽 and a lone \ud800 surrogate \udc00',
  'code: `const x = a[i] ?? b;` // :30 :-) https://example.com/a?b=c snake_case_name CamelCaseName',
  '漢字 かな 한국어 العربية עברית',
  '\u0000\u0001 \uFFFD\uFFFD ctrl\ttab\nnewline',
  'unaffable unwantedly antidisestablishmentarianism supercalifragilisticexpialidocious ' + 'x'.repeat(120),
  'special tokens inline: [CLS] [SEP] [PAD] [UNK] [MASK] <s> </s> <unk> <pad>',
  'repeated repeated repeated words words',
];

export interface FastWordPieceInstall {
  /** The direct encoder of content ids, or null when the tokenizer is not one it applies to. */
  encode: ContentEncoder | null;
}

/**
 * For a transformers.js tokenizer (`PreTrainedTokenizer._tokenizer`) whose model is WordPiece:
 * returns the direct encoder of content ids (see the module comment), first compared with the
 * tokenizer's own `encode` on the probe texts (and `extraProbes`), whole and cut to a 3-id window;
 * a disagreement throws. Anything else gets { encode: null }.
 */
export function installFastWordPiece(tokenizer: unknown, extraProbes: readonly string[] = []): FastWordPieceInstall {
  if (!isWordPieceTokenizer(tokenizer)) return { encode: null };
  const encode = makeEncoder(tokenizer);
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  for (const probe of [...PROBES, ...extraProbes]) {
    const ids = tokenizer.encode(probe, { add_special_tokens: false }).ids;
    const all: number[] = [];
    const head: number[] = [];
    const agree =
      encode(probe, all, Number.POSITIVE_INFINITY) === ids.length &&
      same(ids, all) &&
      encode(probe, head, 3) === Math.min(ids.length, 4) &&
      same(ids.slice(0, 3), head);
    if (!agree) throw new Error(`tokenizer: the fast WordPiece encoder disagrees with transformers.js on a probe text (${JSON.stringify(probe.slice(0, 40))})`);
  }
  return { encode };
}
