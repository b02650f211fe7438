/**
 * Public API of the BM25 retriever (bm25s 0.3.3 exact): tokenizer, index build, search,
 * (de)serialization, end-to-end retrieval and the cached pipeline stage.
 */
export { BM25S_STOPWORDS_EN, ENGLISH_STOPWORDS } from './stopwords.js';
export { tokenize, pythonLower, isWordCodePoint, type TokenizeOptions } from './tokenize.js';
export { BM25S_DEFAULT_PARAMS, type Bm25Params, type Bm25Index, type Bm25Hit } from './types.js';
export { buildBm25Index, Bm25IndexBuilder } from './build.js';
export { buildBm25IndexFromTexts, type CorpusIndexResult } from './corpus.js';
export { searchBm25, Bm25Searcher, type SearchOptions } from './search.js';
export { serializeBm25Index, deserializeBm25Index, writeBm25IndexFile, readBm25IndexFile, Bm25IndexFormatError, BM25_INDEX_FORMAT_VERSION } from './serialize.js';
export {
  bm25Retrieve,
  queryBm25Index,
  officialQueryTokens,
  type Bm25RetrieveOptions,
  type Bm25Stats,
  type Bm25QueryStats,
} from './query.js';
export { runBm25Stage, bm25Stage, bm25CacheKey, type Bm25Doc, type Bm25StageInput, type Bm25StageStats } from './stage.js';
