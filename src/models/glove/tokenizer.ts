/**
 * The tokenizer shared by both GloVe models: lower-case, then runs of word characters (`\w+`, Unicode), each
 * run one token if it is a GloVe word, else [UNK]; BERT-style template [CLS] a [SEP] / [CLS] a [SEP] b [SEP]
 * with token types 0/1. Ids: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, then the words in frequency order.
 * Written as a WordPiece model without `##` pieces, which is word-level lookup in both the JS and Rust loaders.
 */
import { bertTemplate, writeTokenizerFiles, type AddedToken } from '../onnx/tokenizer-json.js';

export const GLOVE_SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;
export const GLOVE_FIRST_WORD_ID = GLOVE_SPECIALS.length;

/** Writes tokenizer.json, tokenizer_config.json, special_tokens_map.json for the given word list. */
export function writeGloveTokenizer(dir: string, words: readonly string[], modelMaxLength: number): void {
  const entries: [string, number][] = GLOVE_SPECIALS.map((t, i) => [t, i]);
  words.forEach((w, i) => entries.push([w, GLOVE_FIRST_WORD_ID + i]));
  const added: AddedToken[] = GLOVE_SPECIALS.map((t, i) => ({ id: i, content: t }));
  writeTokenizerFiles(
    dir,
    {
      // fromEntries defines own properties, so even a word like "__proto__" stays a plain key
      model: { type: 'WordPiece', vocab: Object.fromEntries(entries), unkToken: '[UNK]' },
      normalizer: { type: 'Lowercase' },
      preTokenizer: { type: 'KeepMatches', regex: '\\w+' },
      addedTokens: added,
      template: bertTemplate(),
    },
    {
      tokenizerClass: 'BertTokenizer',
      roles: { unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]' },
      modelMaxLength,
      doLowerCase: true,
    },
  );
}
