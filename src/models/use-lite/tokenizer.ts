/**
 * The Universal Sentence Encoder Lite tokenizer as a Hugging Face `tokenizer.json` (Unigram model) that
 * transformers.js runs, reproducing the package's own JavaScript tokenizer (@energetic-ai/embeddings):
 *  - normalisation: NFKC; every ASCII space becomes `▁`; one `▁` is put in front of any non-empty text (the
 *    package's `processInput`; an empty text stays empty and has no token);
 *  - no pre-tokenizer, no lowercasing, no start/end tokens, no length cut (the model keeps 128 tokens);
 *  - Unigram Viterbi over the 8,000 pieces and their scores (`null` scores read as 0, as JavaScript does);
 *    unknown characters become id 0 and a run of them one id 0 (transformers.js fuses unknown runs too).
 * Ids 0–5 are reserved by the package (0 = unknown, which it emits; 1–5 never). Their pieces are written with a
 * trailing plain space, which the normaliser never leaves in a text, so the Unigram model can never choose them;
 * their scores are the lowest real score, so transformers.js's unknown score (lowest score − 10) is as close
 * as possible to the package's (which scores an unknown character 0).
 *
 * What a tokenizer.json cannot express (measured in the README): exact score ties (the package keeps the last
 * best path, transformers.js the first) and the package's treatment of a running score of exactly 0 as "no
 * path yet" (texts starting with a zero-scored piece such as `:`).
 */
import { join } from 'node:path';
import { writeJsonAtomic } from '../../util/atomic.js';
import type { VocabEntry } from './source.js';

export const SPACE_PIECE = '\u2581';
export const RESERVED_IDS = 6;

/** The tokenizer.json object for the package's vocabulary. */
export function useLiteTokenizerJson(vocab: readonly VocabEntry[]): Record<string, unknown> {
  let minScore = 0;
  for (let i = RESERVED_IDS; i < vocab.length; i++) minScore = Math.min(minScore, vocab[i]![1]);
  const pieces = vocab.map(([piece, score], i): [string, number] => {
    if (i === 0) return [piece, 0];
    if (i < RESERVED_IDS) return [`${piece} `, minScore];
    return [piece, score];
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: ' ' }, content: SPACE_PIECE },
        // `\A` (start of text) followed by at least one character: prepend ▁ to non-empty texts only.
        { type: 'Replace', pattern: { Regex: '\\A(?=[\\s\\S])' }, content: SPACE_PIECE },
      ],
    },
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: SPACE_PIECE, prepend_scheme: 'always', split: false },
    model: { type: 'Unigram', unk_id: 0, vocab: pieces, byte_fallback: false },
  };
}

/** Writes tokenizer.json, tokenizer_config.json and special_tokens_map.json into `dir`. */
export function writeUseLiteTokenizer(dir: string, vocab: readonly VocabEntry[], modelMaxLength: number): void {
  const unk = vocab[0]![0];
  writeJsonAtomic(join(dir, 'tokenizer.json'), useLiteTokenizerJson(vocab));
  writeJsonAtomic(join(dir, 'tokenizer_config.json'), {
    added_tokens_decoder: {},
    unk_token: unk,
    // Padding positions are masked out; the unknown id doubles as the padding id (no pad token exists).
    pad_token: unk,
    clean_up_tokenization_spaces: false,
    model_max_length: modelMaxLength,
    padding_side: 'right',
    tokenizer_class: 'PreTrainedTokenizerFast',
  });
  writeJsonAtomic(join(dir, 'special_tokens_map.json'), { unk_token: unk, pad_token: unk });
}
