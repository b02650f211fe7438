import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A hand-made Unigram vocabulary of ties (shared by the Unigram tests): 0.1 + 0.2 !== 0.3 in binary
 * floating point, so "ab" (-0.3) against "a" + "b" is a tie in real numbers that rounding breaks one
 * way alone and maybe another way after a long running sum; "c" + "c" against "cc" is an exact tie;
 * "zz" is a piece of characters unknown alone; "\uFFFD" is the unknown piece itself.
 */
export const TIED_VOCAB: readonly [string, number][] = [
  ['\uFFFD', 0],
  ['\u2581', -0.7],
  ['a', -0.1],
  ['b', -0.2],
  ['ab', -0.3],
  ['c', -1],
  ['cc', -2],
  ['ccc', -3],
  ['\u2581a', -0.4],
  ['\u2581ab', -0.6],
  ['\u2581c', -1.7],
  ['abc', -1.3],
  ['bc', -1.2],
  ['-', -2.5],
  ['--', -5],
  ['---', -7.5],
  ['|', -3.25],
  ['|-', -5.75],
  ['zz', -4], // a piece made of two characters that are unknown alone
];

/** A USE-Lite-shaped tokenizer folder (NFKC, space → ▁, ▁ in front) over `vocab`, written afresh at `folder`. */
export function writeUnigramTokenizer(folder: string, vocab: readonly [string, number][], modelMaxLength?: number): string {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
        { type: 'Replace', pattern: { Regex: '\\A(?=[\\s\\S])' }, content: '\u2581' },
      ],
    },
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: false },
    model: { type: 'Unigram', unk_id: 0, byte_fallback: false, vocab },
  };
  writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(tokenizer));
  const config = { unk_token: '\uFFFD', pad_token: '\uFFFD', ...(modelMaxLength !== undefined ? { model_max_length: modelMaxLength } : {}), tokenizer_class: 'PreTrainedTokenizerFast' };
  writeFileSync(join(folder, 'tokenizer_config.json'), JSON.stringify(config));
  return folder;
}
