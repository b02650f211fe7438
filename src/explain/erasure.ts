/**
 * Sentence erasure importance (the paper's diagnosis, made systematic): for a query, a gold skill
 * and each sentence i of the query, score the query with sentence i cut out
 * (src/query/segment.ts `withoutSentence`) and compare with the whole query:
 *   score_drop_i = score(whole) − score(without i)      (> 0: the sentence helped the gold skill)
 *   rank_drop_i  = rank(without i) − rank(whole)        (> 0: the gold skill falls without it)
 * Ranks are among every candidate the scorer scored (the corpus for a first stage, the rerank
 * pool for a reranker), by trec order. A gold skill the scorer did not score gets null ranks.
 */
import { rankOf } from './rank.js';

export interface SentenceErasure {
  index: number;
  score: number;
  score_drop: number;
  rank: number | null;
  rank_drop: number | null;
}

export interface GoldErasure {
  skill: string;
  score: number;
  rank: number | null;
  sentences: SentenceErasure[];
}

/**
 * `whole`: candidate → score for the whole query; `without[i]`: the same with sentence i removed.
 * A gold skill missing from a table scores NaN there (and is reported with null ranks).
 */
export function sentenceErasure(whole: ReadonlyMap<string, number>, without: readonly ReadonlyMap<string, number>[], gold: string): GoldErasure {
  const score = whole.get(gold) ?? NaN;
  const rank = rankOf(whole, gold);
  return {
    skill: gold,
    score,
    rank,
    sentences: without.map((m, index) => {
      const s = m.get(gold) ?? NaN;
      const r = rankOf(m, gold);
      return { index, score: s, score_drop: score - s, rank: r, rank_drop: r !== null && rank !== null ? r - rank : null };
    }),
  };
}
