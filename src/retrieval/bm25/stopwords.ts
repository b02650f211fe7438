/**
 * The English stop-word list of bm25s 0.3.3 (`bm25s.stopwords.STOPWORDS_EN`, selected by
 * `stopwords="en"` / `"english"`), in the same order as the Python tuple. 33 words, all
 * lower case, no stemming: these are exact-token matches after lower-casing.
 */

export const BM25S_STOPWORDS_EN: readonly string[] = Object.freeze([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if',
  'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or', 'such', 'that',
  'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

/** `BM25S_STOPWORDS_EN` as a set: the default stop words of `tokenize`. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(BM25S_STOPWORDS_EN);
