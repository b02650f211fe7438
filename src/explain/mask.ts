/**
 * Sentence masking (paper Table 5): on a query with exactly one relevant gold skill d+, each
 * sentence s is attributed by the paper's importance
 *   importance(s) = score(q, d+) − score(q with s masked, d+)
 * (masked = the sentence's text replaced by `[MASK]`, src/query/segment.ts `maskSentences`), the
 * sentences are ordered by importance (largest first; equal importance: earlier sentence first; a
 * non-finite importance last), and masking level k masks the first min(k, S) of that order (S = the
 * query's sentences: a query with fewer than k sentences masks all it has, so every level is
 * measured on the same queries). Each level's text is scored against the whole corpus by the run's
 * own first stage, ranked in trec order (src/metrics/rank.ts) and measured by NDCG@10
 * (src/metrics/ndcg.ts, the query's own grades). Level 0 is the query as it is.
 */
import { ndcg } from '../metrics/ndcg.js';
import { percentHundredths } from '../metrics/official-percent.js';
import { roundHalfEven } from '../util/python-round.js';
import { compareScored } from '../metrics/rank.js';
import { rankedGrades } from '../metrics/relevance.js';
import type { ScoredDoc } from '../core/types.js';
import { maskSentences, splitSentences } from '../query/segment.js';

/** The cutoff of paper Table 5. */
export const MASK_NDCG_K = 10;

/** Per text, one score per corpus document in corpus order. */
export type ScoreTexts = (texts: readonly string[]) => Promise<ArrayLike<number>[]>;

export interface MaskLevel {
  /** Sentences masked (min(level, S)). */
  masked: number;
  ndcg10: number;
  /** Rank of the gold skill among the corpus (trec order). */
  rank: number;
}

export interface MaskQuery {
  id: string;
  gold: string;
  sentences: number;
  /** importance(s) per sentence, in sentence order. */
  importance: number[];
  /** Sentence indices by importance (the masking order; level k masks the first min(k, S)). */
  order: number[];
  /** Levels 0..k. */
  levels: MaskLevel[];
}

/** Sentence indices by importance: largest first, ties by index, non-finite importances last. */
export function maskOrder(importance: readonly number[]): number[] {
  const key = (x: number) => (Number.isFinite(x) ? x : -Infinity);
  return importance.map((_, i) => i).sort((a, b) => key(importance[b]!) - key(importance[a]!) || a - b);
}

/** The top-k of a corpus scoring in trec order (score desc, doc id desc in UTF-8 bytes). */
export function topInTrecOrder(scores: ArrayLike<number>, docIds: readonly string[], k: number): ScoredDoc[] {
  const top: ScoredDoc[] = [];
  for (let i = 0; i < docIds.length; i++) {
    const d = { docId: docIds[i]!, score: scores[i]! };
    if (top.length === k && compareScored(d.score, d.docId, top[k - 1]!.score, top[k - 1]!.docId) >= 0) continue;
    let p = Math.min(top.length, k - 1);
    top[p] = d;
    while (p > 0 && compareScored(d.score, d.docId, top[p - 1]!.score, top[p - 1]!.docId) < 0) {
      top[p] = top[p - 1]!;
      top[p - 1] = d;
      p--;
    }
  }
  return top;
}

/** 1-based rank of corpus document `at` in trec order. */
function rankAt(scores: ArrayLike<number>, docIds: readonly string[], at: number): number {
  const s = scores[at]!;
  const id = docIds[at]!;
  let better = 0;
  for (let i = 0; i < docIds.length; i++) if (i !== at && compareScored(scores[i]!, docIds[i]!, s, id) < 0) better++;
  return better + 1;
}

/**
 * One single-gold query: attribution, masked texts for levels 0..`maxLevel`, and each level's NDCG@10
 * and gold rank. `judged`: the query's grades (NDCG's gains); `gold` must be a corpus document.
 */
export async function maskQuery(
  score: ScoreTexts,
  q: { id: string; text: string },
  gold: string,
  judged: ReadonlyMap<string, number>,
  docIds: readonly string[],
  maxLevel: number,
): Promise<MaskQuery> {
  const goldAt = docIds.indexOf(gold);
  if (goldAt < 0) throw new Error(`mask: gold skill ${gold} of query ${q.id} is not in the corpus`);
  const sentences = splitSentences(q.text);
  const single = sentences.map((_, i) => maskSentences(q.text, sentences, [i]));
  const tables = new Map<string, ArrayLike<number>>();
  const first = await score([q.text, ...single]);
  [q.text, ...single].forEach((t, i) => tables.set(t, first[i]!));
  const whole = tables.get(q.text)!;
  const importance = single.map((t) => whole[goldAt]! - tables.get(t)![goldAt]!);
  const order = maskOrder(importance);
  const levelTexts = Array.from({ length: maxLevel + 1 }, (_, k) => maskSentences(q.text, sentences, order.slice(0, k)));
  const missing = [...new Set(levelTexts.filter((t) => !tables.has(t)))];
  if (missing.length) (await score(missing)).forEach((s, i) => tables.set(missing[i]!, s));
  const levels = levelTexts.map((t, k) => {
    const s = tables.get(t)!;
    return { masked: Math.min(k, sentences.length), ndcg10: ndcg(rankedGrades(topInTrecOrder(s, docIds, MASK_NDCG_K), judged), MASK_NDCG_K), rank: rankAt(s, docIds, goldAt) };
  });
  return { id: q.id, gold, sentences: sentences.length, importance, order, levels };
}

export interface MaskSummary {
  queries: number;
  /** Per level 0..k: mean NDCG@10 over the queries (NaN for none). */
  ndcg10: number[];
  /** Per level: queries with fewer sentences than the level (all their sentences masked). */
  short: number[];
  /** Per level: relative change vs level 0, percent with one decimal (as Table 5 prints it; NaN at level 0 = 0). */
  relative: number[];
}

/** Relative change of level k vs level 0 from the printed percentages, percent with one decimal (NaN when level 0 prints 0). */
export function relativeChange(level0: number, levelK: number): number {
  const a = percentHundredths(level0);
  const b = percentHundredths(levelK);
  if (!(a > 0) || !Number.isFinite(b)) return NaN;
  const r = roundHalfEven(((b - a) / a) * 100, 1);
  return r === 0 ? 0 : r;
}

export function summarizeMask(records: readonly MaskQuery[], maxLevel: number): MaskSummary {
  const ndcg10: number[] = [];
  const short: number[] = [];
  for (let k = 0; k <= maxLevel; k++) {
    let s = 0;
    for (const r of records) s += r.levels[k]!.ndcg10;
    ndcg10.push(records.length ? s / records.length : NaN);
    short.push(records.filter((r) => r.sentences < k).length);
  }
  return { queries: records.length, ndcg10, short, relative: ndcg10.map((x) => relativeChange(ndcg10[0]!, x)) };
}
