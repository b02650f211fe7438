/**
 * Writers for Hugging Face tokenizer files: `tokenizer.json` (WordPiece or WordLevel model, normalizer,
 * pre-tokenizer, TemplateProcessing post-processor for single and pair input, decoder; padding and
 * truncation left unset), `tokenizer_config.json` and `special_tokens_map.json`.
 *
 * The JSON follows the `tokenizers` (Rust/Python) serialisation, so the files load both in
 * @huggingface/transformers (JS) and in Python `tokenizers`. Notes on the JS loader (@huggingface/tokenizers
 * 0.2): it has no WordLevel class — a `WordLevel` model falls back to its "Legacy" model, whose unknown-token id
 * comes from tokenizer_config.json `unk_token`; a WordPiece vocabulary without `##` pieces behaves exactly like
 * a word-level one (an unknown word becomes the unknown token), which is why the builders here use WordPiece.
 */
import { join } from 'node:path';
import { writeJsonAtomic } from '../../util/atomic.js';

/** An entry of `added_tokens` (special tokens, chat markers). */
export interface AddedToken {
  id: number;
  content: string;
  /** default true */
  special?: boolean;
  /** default false: matched on the raw text, before the normalizer */
  normalized?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  single_word?: boolean;
}

export type TokenizerModelSpec =
  | {
      type: 'WordPiece';
      vocab: Readonly<Record<string, number>>;
      unkToken: string;
      continuingSubwordPrefix?: string;
      maxInputCharsPerWord?: number;
    }
  | { type: 'WordLevel'; vocab: Readonly<Record<string, number>>; unkToken: string };

export type NormalizerSpec =
  | { type: 'BertNormalizer'; lowercase: boolean; stripAccents?: boolean | null; cleanText?: boolean; handleChineseChars?: boolean }
  | { type: 'Lowercase' }
  | null;

export type PreTokenizerSpec =
  | { type: 'BertPreTokenizer' }
  | { type: 'Whitespace' }
  | { type: 'WhitespaceSplit' }
  /** Keeps only the matches of `regex` (Oniguruma syntax; `\w` is Unicode-aware in both JS and Rust). */
  | { type: 'KeepMatches'; regex: string }
  | null;

/** One item of a template: a special token or sequence A/B, with its token type id. */
export type TemplatePiece = { special: string; typeId: number } | { sequence: 'A' | 'B'; typeId: number };

export interface TemplateSpec {
  single: readonly TemplatePiece[];
  pair: readonly TemplatePiece[];
}

export interface TokenizerJsonSpec {
  model: TokenizerModelSpec;
  normalizer: NormalizerSpec;
  preTokenizer: PreTokenizerSpec;
  addedTokens: readonly AddedToken[];
  /** null: no post-processor (no special tokens added, e.g. decoder models). */
  template: TemplateSpec | null;
  /** WordPiece decoder with this prefix (default '##'); null for none. */
  decoderPrefix?: string | null;
}

/** The BERT template: `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]` with token types 0/1. */
export function bertTemplate(cls = '[CLS]', sep = '[SEP]'): TemplateSpec {
  return {
    single: [{ special: cls, typeId: 0 }, { sequence: 'A', typeId: 0 }, { special: sep, typeId: 0 }],
    pair: [
      { special: cls, typeId: 0 },
      { sequence: 'A', typeId: 0 },
      { special: sep, typeId: 0 },
      { sequence: 'B', typeId: 1 },
      { special: sep, typeId: 1 },
    ],
  };
}

function tokenId(spec: TokenizerJsonSpec, content: string): number {
  const added = spec.addedTokens.find((t) => t.content === content);
  const id = added?.id ?? spec.model.vocab[content];
  if (id === undefined) throw new Error(`tokenizer: template token ${JSON.stringify(content)} is not in the vocabulary`);
  return id;
}

function postProcessor(spec: TokenizerJsonSpec): unknown {
  const t = spec.template;
  if (t === null) return null;
  const piece = (p: TemplatePiece) =>
    'special' in p ? { SpecialToken: { id: p.special, type_id: p.typeId } } : { Sequence: { id: p.sequence, type_id: p.typeId } };
  const specials = [...new Set([...t.single, ...t.pair].flatMap((p) => ('special' in p ? [p.special] : [])))].sort();
  const special_tokens: Record<string, unknown> = {};
  for (const s of specials) special_tokens[s] = { id: s, ids: [tokenId(spec, s)], tokens: [s] };
  return { type: 'TemplateProcessing', single: t.single.map(piece), pair: t.pair.map(piece), special_tokens };
}

function normalizer(n: NormalizerSpec): unknown {
  if (n === null) return null;
  if (n.type === 'Lowercase') return { type: 'Lowercase' };
  return {
    type: 'BertNormalizer',
    clean_text: n.cleanText ?? true,
    handle_chinese_chars: n.handleChineseChars ?? true,
    strip_accents: n.stripAccents ?? null,
    lowercase: n.lowercase,
  };
}

function preTokenizer(p: PreTokenizerSpec): unknown {
  if (p === null) return null;
  if (p.type === 'KeepMatches') {
    // Rust: invert=true with behavior "Removed" keeps the matches; JS: invert=true returns the matches.
    return { type: 'Split', pattern: { Regex: p.regex }, behavior: 'Removed', invert: true };
  }
  return { type: p.type };
}

function modelJson(m: TokenizerModelSpec): unknown {
  if (m.type === 'WordLevel') return { type: 'WordLevel', vocab: m.vocab, unk_token: m.unkToken };
  return {
    type: 'WordPiece',
    unk_token: m.unkToken,
    continuing_subword_prefix: m.continuingSubwordPrefix ?? '##',
    max_input_chars_per_word: m.maxInputCharsPerWord ?? 100,
    vocab: m.vocab,
  };
}

/** The `tokenizer.json` object (keys in the order the Rust library writes them). */
export function tokenizerJson(spec: TokenizerJsonSpec): Record<string, unknown> {
  const ids = new Set<number>();
  for (const [tok, id] of Object.entries(spec.model.vocab)) {
    if (!Number.isInteger(id) || id < 0) throw new Error(`tokenizer: bad id ${id} for ${JSON.stringify(tok)}`);
    if (ids.has(id)) throw new Error(`tokenizer: id ${id} used twice in the vocabulary`);
    ids.add(id);
  }
  const prefix = spec.decoderPrefix === undefined ? '##' : spec.decoderPrefix;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [...spec.addedTokens]
      .sort((a, b) => a.id - b.id)
      .map((t) => ({
        id: t.id,
        content: t.content,
        single_word: t.single_word ?? false,
        lstrip: t.lstrip ?? false,
        rstrip: t.rstrip ?? false,
        normalized: t.normalized ?? false,
        special: t.special ?? true,
      })),
    normalizer: normalizer(spec.normalizer),
    pre_tokenizer: preTokenizer(spec.preTokenizer),
    post_processor: postProcessor(spec),
    decoder: prefix === null ? null : { type: 'WordPiece', prefix, cleanup: true },
    model: modelJson(spec.model),
  };
}

/** Special-token roles written to tokenizer_config.json and special_tokens_map.json. */
export interface SpecialTokenRoles {
  unk_token?: string;
  pad_token?: string;
  cls_token?: string;
  sep_token?: string;
  mask_token?: string;
  bos_token?: string | null;
  eos_token?: string;
  additional_special_tokens?: readonly string[];
}

export interface TokenizerConfigSpec {
  /** e.g. 'BertTokenizer' (JS: returns token_type_ids) or 'Qwen2Tokenizer'. */
  tokenizerClass: string;
  roles: SpecialTokenRoles;
  addedTokens: readonly AddedToken[];
  modelMaxLength: number;
  paddingSide?: 'left' | 'right';
  doLowerCase?: boolean;
  /** Extra keys (e.g. chat_template), written after the standard ones. */
  extra?: Record<string, unknown>;
}

/** The `tokenizer_config.json` object. */
export function tokenizerConfigJson(c: TokenizerConfigSpec): Record<string, unknown> {
  const decoder: Record<string, unknown> = {};
  for (const t of [...c.addedTokens].sort((a, b) => a.id - b.id)) {
    decoder[String(t.id)] = {
      content: t.content,
      lstrip: t.lstrip ?? false,
      normalized: t.normalized ?? false,
      rstrip: t.rstrip ?? false,
      single_word: t.single_word ?? false,
      special: t.special ?? true,
    };
  }
  const out: Record<string, unknown> = { added_tokens_decoder: decoder };
  for (const [k, v] of Object.entries(c.roles)) if (v !== undefined) out[k] = v;
  out.clean_up_tokenization_spaces = false;
  if (c.doLowerCase !== undefined) out.do_lower_case = c.doLowerCase;
  out.model_max_length = c.modelMaxLength;
  out.padding_side = c.paddingSide ?? 'right';
  out.tokenizer_class = c.tokenizerClass;
  return { ...out, ...(c.extra ?? {}) };
}

/** The `special_tokens_map.json` object. */
export function specialTokensMapJson(roles: SpecialTokenRoles): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(roles)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

/** Writes tokenizer.json, tokenizer_config.json and special_tokens_map.json into `dir` (atomically, each). */
export function writeTokenizerFiles(dir: string, tok: TokenizerJsonSpec, cfg: Omit<TokenizerConfigSpec, 'addedTokens'>): void {
  writeJsonAtomic(join(dir, 'tokenizer.json'), tokenizerJson(tok));
  writeJsonAtomic(join(dir, 'tokenizer_config.json'), tokenizerConfigJson({ ...cfg, addedTokens: tok.addedTokens }));
  writeJsonAtomic(join(dir, 'special_tokens_map.json'), specialTokensMapJson(cfg.roles));
}
