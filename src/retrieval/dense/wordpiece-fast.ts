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
 *   whole (its ids are the tokenizer's own).
 * - the normaliser and the pre-tokenizer are the tokenizer's own objects, called as
 *   `encode_text` calls them (one section: `section_index` 0);
 * - WordPiece is a function of one word at a time (`encode` loops over the words and
 *   concatenates), so each distinct word is encoded once by the model's own `encode([word])` and
 *   its ids (mapped as `encode` maps tokens: an added token's id, else the vocabulary's, else the
 *   unknown id) are remembered;
 * - the window: words are looked up only until one id more than the window holds.
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

/**
 * The direct encoder for a WordPiece tokenizer (see the module comment); `words` memoises each
 * word's ids.
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
  const memo = new Map<string, readonly number[]>();
  const idsOf = (word: string): readonly number[] => {
    let ids = memo.get(word);
    if (ids === undefined) {
      ids = model.encode([word]).map((tok) => addedMap.get(tok)?.id ?? vocab.get(tok) ?? unk);
      if (memo.size >= WORD_MEMO_LIMIT) memo.clear();
      memo.set(word, ids);
    }
    return ids;
  };
  const original = (text: string, out: number[], limit: number): number => {
    const ids = t.encode(text, { add_special_tokens: false }).ids;
    const keep = Math.min(ids.length, limit);
    for (let i = 0; i < keep; i++) out.push(ids[i]!);
    return Math.min(ids.length, limit + 1);
  };
  return (text, out, limit) => {
    if (text.length === 0) return 0;
    if (containsAny(text, unnormalizedWords)) return original(text, out, limit);
    const normalized = normalize === null ? text : normalize(text);
    if (normalized.length === 0) return 0;
    if (containsAny(normalized, normalizedWords)) return original(text, out, limit);
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
