/**
 * BM25 retrieval end to end as the official SkillRet baseline does it (skillret/eval.py
 * `eval_bm25`): index `bm25s.tokenize(doc_texts, stopwords="en")` with `bm25s.BM25()`, then per
 * query `bm25s.tokenize(query, stopwords="en")` (a query left without tokens becomes
 * `bm25s.tokenize("NONE", stopwords=[])`, i.e. the token "none"), `retrieve(k=min(k, N))`, and
 * keep hits with score > 0. Scores in the run are the float32 values as JS numbers.
 */
import { tieRanks } from '../../metrics/rank.js';
import type { Query, Run, ScoredDoc } from '../../core/types.js';
import type { ProgressFactory } from '../../core/context.js';
import { silentProgress } from '../../util/progress.js';
import { buildBm25IndexFromTexts } from './corpus.js';
import { Bm25Searcher } from './search.js';
import { tokenize } from './tokenize.js';
import type { Bm25Index, Bm25Params } from './types.js';

/** The official script's query tokens: English stop words removed; none left -> ["none"]. */
export function officialQueryTokens(text: string): { tokens: string[]; none: boolean } {
  const tokens = tokenize(text);
  if (tokens.length > 0) return { tokens, none: false };
  return { tokens: tokenize('NONE', { stopwords: null }), none: true };
}

export interface Bm25QueryStats {
  numQueries: number;
  /** Queries that fell back to the "none" token. */
  noneQueries: number;
  /** Queries with no hit (all scores 0). */
  emptyQueries: number;
  queryMs: number;
}

/** Runs every query against a built index; `docIds[d]` names document number d. */
export function queryBm25Index(
  index: Bm25Index,
  docIds: readonly string[],
  queries: readonly Query[],
  k: number,
  progress: ProgressFactory = silentProgress,
): { run: Run; stats: Bm25QueryStats } {
  if (docIds.length !== index.numDocs) {
    throw new RangeError(`${docIds.length} document ids for an index of ${index.numDocs} documents`);
  }
  const t0 = performance.now();
  const searcher = new Bm25Searcher(index, { tieRank: tieRanks(docIds) });
  const run: Run = new Map();
  const bar = progress('BM25 queries', queries.length, 'queries');
  let noneQueries = 0;
  let emptyQueries = 0;
  try {
    for (const q of queries) {
      const { tokens, none } = officialQueryTokens(q.text);
      if (none) noneQueries++;
      const hits = searcher.search(tokens, k);
      if (hits.length === 0) emptyQueries++;
      const docs: ScoredDoc[] = hits.map((h) => ({ docId: docIds[h.doc] as string, score: h.score }));
      run.set(q.id, docs);
      bar.increment();
    }
  } finally {
    bar.stop();
  }
  return { run, stats: { numQueries: queries.length, noneQueries, emptyQueries, queryMs: performance.now() - t0 } };
}

export interface Bm25RetrieveOptions {
  /** Hits per query (the official default is 20; the batch script uses 50). */
  k: number;
  k1?: number;
  b?: number;
  progress?: ProgressFactory;
}

export interface Bm25Stats extends Bm25QueryStats {
  numDocs: number;
  vocabSize: number;
  avgdl: number;
  totalTokens: number;
  tokenizeMs: number;
  indexMs: number;
}

/** Builds the index over `docTexts` (document text per docs/protocol.md §2) and runs `queries`. */
export function bm25Retrieve(
  docIds: readonly string[],
  docTexts: readonly string[],
  queries: readonly Query[],
  opts: Bm25RetrieveOptions,
): { run: Run; stats: Bm25Stats } {
  if (docIds.length !== docTexts.length) {
    throw new RangeError(`${docIds.length} document ids but ${docTexts.length} document texts`);
  }
  const progress = opts.progress ?? silentProgress;
  const params: Partial<Bm25Params> = { k1: opts.k1, b: opts.b };
  const bar = progress('BM25 index', docTexts.length, 'docs');
  let built;
  try {
    built = buildBm25IndexFromTexts(docTexts, params, { progress: bar });
  } finally {
    bar.stop();
  }
  const { run, stats } = queryBm25Index(built.index, docIds, queries, opts.k, progress);
  return {
    run,
    stats: {
      ...stats,
      numDocs: built.index.numDocs,
      vocabSize: built.index.vocab.size,
      avgdl: built.index.avgdl,
      totalTokens: built.totalTokens,
      tokenizeMs: built.tokenizeMs,
      indexMs: built.indexMs,
    },
  };
}
