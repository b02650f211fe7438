/**
 * The pairs a model still has to score (pure, given the cache's answers): cached pairs answered,
 * identical pairs gathered so each is scored once, and the rest ordered for the model — longest
 * text first, so consecutive windows hold pairs of similar length and batch well, or in input
 * order when asked (remote servers score one query per request, so a query's pairs are best kept
 * together).
 */
import { pairKey } from './score-cache.js';
import type { RerankPair } from './types.js';

/** One distinct pair still to score: its cache key and every input position it holds. */
export interface UniquePair {
  key: string;
  /** Input positions, ascending; the first one is the pair that is sent. */
  idx: number[];
}

export interface PairLookup {
  /** One per input pair: the cached score, NaN when still to score. */
  scores: number[];
  /** Pairs answered by the cache. */
  hits: number;
  /** The distinct pairs still to score, in the order to score them. */
  unique: UniquePair[];
}

/** What a score cache answers (score-cache.ts). */
export interface ScoreLookup {
  get(key: string): number | undefined;
}

export function lookupPairs(pairs: readonly RerankPair[], cache: ScoreLookup | undefined, keepOrder: boolean): PairLookup {
  const scores = new Array<number>(pairs.length).fill(NaN);
  const todo = new Map<string, number[]>();
  let hits = 0;
  pairs.forEach((p, i) => {
    const key = pairKey(p.query, p.doc);
    const cached = cache?.get(key);
    if (cached !== undefined) {
      scores[i] = cached;
      hits++;
      return;
    }
    const list = todo.get(key);
    if (list) list.push(i);
    else todo.set(key, [i]);
  });
  const unique = [...todo.entries()].map(([key, idx]) => ({ key, idx, len: pairs[idx[0]!]!.query.length + pairs[idx[0]!]!.doc.length }));
  if (!keepOrder) unique.sort((a, b) => b.len - a.len || a.idx[0]! - b.idx[0]!);
  return { scores, hits, unique: unique.map(({ key, idx }) => ({ key, idx })) };
}
