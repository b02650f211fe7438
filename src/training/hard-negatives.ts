/**
 * Hard-negative mining from a first stage's run: for each query, the retrieved skills that may serve
 * as negatives of its gold skills in the next fine-tuning round, with the guards of
 * sentence-transformers' `mine_hard_negatives` and FlagEmbedding's `hn_mine`.
 *
 * A query's list is the first stage's ranking as given (rank 1 first). Each retrieved skill is
 * checked in this order and dropped for the first reason that applies:
 * 1. rank: outside `range` (1-based, inclusive; `to` undefined: the end of the list) or within the
 *    top `skipTop` ranks;
 * 2. gold: a relevant judgement (grade ≥ 1) of the query;
 * 3. same text: its document text equals a gold skill's (a copy of the gold under another id), when
 *    `sameTextAsGold` is given;
 * 4. ceiling: with `maxScoreRatio` r, its score is above r × p, where p is the lowest score of the
 *    query's gold skills in the list (so kept: score ≤ r·p, sentence-transformers'
 *    `relative_margin` = 1 − r); with `maxScore` m, its score is above m.
 * A query with no relevant gold is skipped (`noGold`). With `maxScoreRatio`, a query with no gold
 * skill in the list, or whose p is not positive, has no ceiling to apply and is skipped too
 * (`noPositiveScore`): its negatives would be unguarded.
 *
 * Of the skills left (the eligible), `negatives` are kept: `top`, the best ranked; `random`, a
 * uniform sample without replacement (a partial Fisher–Yates shuffle of the eligible in rank order,
 * drawn from stats/rng.ts's generator seeded with deriveSeed(seed, query id): a query's sample
 * depends on the seed, its id and its list only, not on the other queries or their order). The kept
 * negatives are listed in rank order. A query with fewer eligible skills keeps them all (`short`);
 * one with none is left out (`noNegatives`).
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { Qrels, Run } from '../core/types.js';
import { deriveSeed, seededRng } from '../stats/rng.js';

export interface NegativeGuards {
  /** Negatives kept per query. */
  negatives: number;
  /** Ranks 1 … skipTop are never negatives. */
  skipTop: number;
  /** Ranks considered, 1-based and inclusive; `to` undefined: to the end of the list. */
  range: { from: number; to?: number };
  /** Kept: score ≤ maxScoreRatio × the lowest gold score in the list. */
  maxScoreRatio?: number;
  /** Kept: score ≤ maxScore. */
  maxScore?: number;
  sampling: 'random' | 'top';
  seed: number;
}

export interface MinedNegative {
  docId: string;
  /** 1-based rank in the first stage's list. */
  rank: number;
  score: number;
}

export interface MinedQuery {
  queryId: string;
  /** Relevant gold skill ids, in judgement order. */
  positives: string[];
  negatives: MinedNegative[];
}

export interface MiningCounts {
  queries: number;
  /** Queries written (at least one negative). */
  mined: number;
  /** Of them, with fewer than `negatives` negatives. */
  short: number;
  noGold: number;
  noPositiveScore: number;
  noNegatives: number;
  /** Retrieved skills dropped, by the first reason that applied. */
  dropped: { rank: number; gold: number; sameText: number; ceiling: number };
  negatives: number;
}

/** Indexes of `k` of `n` items, uniformly without replacement, ascending (partial Fisher–Yates). */
function sampleIndexes(n: number, k: number, seed: number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  const rng = seededRng(seed);
  for (let i = 0; i < k; i++) {
    const j = uniformInt(rng, i, n - 1);
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, k).sort((a, b) => a - b);
}

export function mineHardNegatives(
  run: Run,
  qrels: Qrels,
  queryIds: readonly string[],
  g: NegativeGuards,
  sameTextAsGold?: (docId: string, gold: readonly string[]) => boolean,
): { queries: MinedQuery[]; counts: MiningCounts } {
  const counts: MiningCounts = { queries: queryIds.length, mined: 0, short: 0, noGold: 0, noPositiveScore: 0, noNegatives: 0, dropped: { rank: 0, gold: 0, sameText: 0, ceiling: 0 }, negatives: 0 };
  const out: MinedQuery[] = [];
  const from = Math.max(g.range.from, g.skipTop + 1);
  const to = g.range.to ?? Number.POSITIVE_INFINITY;
  for (const qid of queryIds) {
    const judged = qrels.get(qid) ?? new Map<string, number>();
    const positives = [...judged].filter(([, grade]) => grade >= 1).map(([d]) => d);
    if (positives.length === 0) {
      counts.noGold++;
      continue;
    }
    const gold = new Set(positives);
    const list = run.get(qid) ?? [];
    let ceiling = g.maxScore ?? Number.POSITIVE_INFINITY;
    if (g.maxScoreRatio !== undefined) {
      const goldScores = list.filter((d) => gold.has(d.docId)).map((d) => d.score);
      const p = goldScores.length > 0 ? Math.min(...goldScores) : undefined;
      if (p === undefined || !(p > 0)) {
        counts.noPositiveScore++;
        continue;
      }
      ceiling = Math.min(ceiling, g.maxScoreRatio * p);
    }
    const eligible: MinedNegative[] = [];
    list.forEach((d, i) => {
      const rank = i + 1;
      if (rank < from || rank > to) counts.dropped.rank++;
      else if (gold.has(d.docId)) counts.dropped.gold++;
      else if (sameTextAsGold?.(d.docId, positives)) counts.dropped.sameText++;
      else if (d.score > ceiling) counts.dropped.ceiling++;
      else eligible.push({ docId: d.docId, rank, score: d.score });
    });
    if (eligible.length === 0) {
      counts.noNegatives++;
      continue;
    }
    const k = Math.min(g.negatives, eligible.length);
    const negatives = g.sampling === 'top' || k === eligible.length ? eligible.slice(0, k) : sampleIndexes(eligible.length, k, deriveSeed(g.seed, qid)).map((i) => eligible[i]!);
    if (k < g.negatives) counts.short++;
    counts.mined++;
    counts.negatives += negatives.length;
    out.push({ queryId: qid, positives, negatives });
  }
  return { queries: out, counts };
}
