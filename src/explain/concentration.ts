/**
 * Concentration of erasure importance: how much of a query's signal sits in its few best
 * sentences. Importance of a sentence = max(0, score_drop) (a sentence whose removal raises the
 * gold skill's score carries no signal for it). share_top_n = (sum of the n largest importances)
 * / (sum of all); undefined when no sentence has positive importance (then the pair is left out).
 *
 * Per run: the mean of each share over (query, gold) pairs, its distribution (quantiles 0.1, 0.25,
 * 0.5, 0.75, 0.9, type 7) and the means per query-length slice (words of the query: ≤100,
 * 101–200, 201–300, >300).
 */
import { quantileSorted } from '../stats/quantile.js';

export const TOP_NS = [1, 2, 3] as const;
export const LENGTH_SLICES: readonly { label: string; max: number }[] = [
  { label: '≤100 words', max: 100 },
  { label: '101–200 words', max: 200 },
  { label: '201–300 words', max: 300 },
  { label: '>300 words', max: Infinity },
];
const QUANTILES = [0.1, 0.25, 0.5, 0.75, 0.9];

export interface Shares {
  top1: number;
  top2: number;
  top3: number;
}

/** Shares of the top 1, 2 and 3 sentences; undefined when no sentence has positive importance. */
export function concentrationShares(scoreDrops: readonly number[]): Shares | undefined {
  const imp = scoreDrops.map((d) => (Number.isFinite(d) && d > 0 ? d : 0)).sort((a, b) => b - a);
  let total = 0;
  for (const x of imp) total += x;
  if (!(total > 0)) return undefined;
  const top = (n: number) => {
    let s = 0;
    for (let i = 0; i < Math.min(n, imp.length); i++) s += imp[i]!;
    return s / total;
  };
  return { top1: top(1), top2: top(2), top3: top(3) };
}

export interface ConcentrationItem {
  /** Words of the query (whitespace-separated). */
  words: number;
  shares: Shares;
}

export interface ShareStats {
  mean: number;
  quantiles: Record<string, number>;
}

export interface ConcentrationSummary {
  pairs: number;
  /** (query, gold) pairs left out: no sentence had positive importance. */
  without_signal: number;
  top1: ShareStats;
  top2: ShareStats;
  top3: ShareStats;
  by_length: { slice: string; pairs: number; top1: number; top2: number; top3: number }[];
}

function stats(xs: number[]): ShareStats {
  const sorted = [...xs].sort((a, b) => a - b);
  let s = 0;
  for (const x of xs) s += x;
  return {
    mean: xs.length ? s / xs.length : NaN,
    quantiles: Object.fromEntries(QUANTILES.map((q) => [String(q), sorted.length ? quantileSorted(sorted, q) : NaN])),
  };
}

export function summarizeConcentration(items: readonly ConcentrationItem[], withoutSignal: number): ConcentrationSummary {
  const col = (k: keyof Shares, xs: readonly ConcentrationItem[]) => xs.map((i) => i.shares[k]);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  let lo = 0;
  const by_length = LENGTH_SLICES.map((sl) => {
    const inSlice = items.filter((i) => i.words > lo && i.words <= sl.max);
    lo = sl.max;
    return { slice: sl.label, pairs: inSlice.length, top1: mean(col('top1', inSlice)), top2: mean(col('top2', inSlice)), top3: mean(col('top3', inSlice)) };
  });
  return {
    pairs: items.length,
    without_signal: withoutSignal,
    top1: stats(col('top1', items)),
    top2: stats(col('top2', items)),
    top3: stats(col('top3', items)),
    by_length,
  };
}

/** Whitespace-separated words of a text. */
export function wordCount(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/u).length;
}
