/**
 * Operating points for skill injection: what an agent that injects the retrieved SKILL.md texts
 * into its context gets, as a function of the injection rule. From a run and the skills' token
 * counts only (no model call).
 *
 * Per query, the injected set is a prefix of the ranking (trec order: score desc, doc id desc):
 * - top-K: the first K skills, K = 1 … N (N = the longest list of the run);
 * - threshold: every skill with score >= t, for t at the quantiles 0, 0.05, …, 1 (type 7) of all
 *   scores of the run pooled over queries;
 * - budget: skills in rank order while the running total of their tokens stays <= B (the first
 *   skill that does not fit ends the injection), for B on a doubling grid from 256 tokens up to the
 *   first budget that holds every query's whole list.
 * At each point, means over the queries: Recall (gold injected / gold), Completeness (every gold
 * injected), no-gold share (no gold injected), injected skills and injected tokens.
 *
 * Named points: the smallest K and the smallest budget at which Completeness reaches `target`.
 * Exact, not read off the grid: per query, K* = rank of its last gold skill and B* = tokens of
 * the prefix through it (∞ when a gold skill is not in the list); Completeness(K) is the share of
 * queries with K* <= K, so the answer is the ⌈target·n⌉-th smallest K* (and B*); null when it is
 * not reachable within the run's lists.
 */
import type { Qrels, Run, ScoredDoc } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';
import { quantileSorted } from '../stats/quantile.js';

export const DEFAULT_TARGET_COMPLETENESS = 0.9;
export const THRESHOLD_QUANTILES: readonly number[] = Array.from({ length: 21 }, (_, i) => i / 20);
export const BUDGET_START = 256;

export interface InjectionPoint {
  recall: number;
  completeness: number;
  /** Share of queries with no gold skill injected. */
  no_gold: number;
  /** Mean skills injected per query. */
  injected: number;
  /** Mean tokens injected per query. */
  tokens: number;
}

export interface OperatingPoints {
  queries: number;
  target_completeness: number;
  top_k: ({ k: number } & InjectionPoint)[];
  threshold: ({ quantile: number; threshold: number } & InjectionPoint)[];
  budget: ({ budget: number } & InjectionPoint)[];
  /** Smallest K / token budget reaching the target completeness (null: not reached within the lists). */
  min_k: number | null;
  min_budget: number | null;
}

interface QueryView {
  ranked: ScoredDoc[];
  gold: Set<string>;
  /** cumulative tokens: cum[i] = tokens of ranked[0..i]. */
  cum: number[];
  /** hits[m] = gold skills among the first m of `ranked` (m = 0 … ranked.length). */
  hits: Int32Array;
  /** scores[i] = ranked[i].score. */
  scores: Float64Array;
}

/**
 * `tokens(docId)` gives a skill's token count. Queries are those of `qrels` with at least one
 * relevant skill (grade >= 1); a query missing from the run injects nothing.
 */
export function operatingPoints(run: Run, qrels: Qrels, tokens: (docId: string) => number, target = DEFAULT_TARGET_COMPLETENESS): OperatingPoints {
  if (!(target > 0 && target <= 1)) throw new RangeError(`target completeness must be in (0, 1], got ${target}`);
  const views: QueryView[] = [];
  for (const [qid, judged] of qrels) {
    const gold = new Set([...judged].filter(([, g]) => g >= 1).map(([d]) => d));
    if (gold.size === 0) continue;
    const ranked = trecOrder(run.get(qid) ?? []);
    const cum: number[] = [];
    const hits = new Int32Array(ranked.length + 1);
    const scores = new Float64Array(ranked.length);
    let t = 0;
    ranked.forEach((d, i) => {
      cum.push((t += tokens(d.docId)));
      hits[i + 1] = hits[i]! + (gold.has(d.docId) ? 1 : 0);
      scores[i] = d.score;
    });
    views.push({ ranked, gold, cum, hits, scores });
  }
  const n = views.length;
  /** Mean point when query v injects its first cut(v) skills. */
  const point = (cut: (v: QueryView) => number): InjectionPoint => {
    let recall = 0;
    let complete = 0;
    let none = 0;
    let injected = 0;
    let tok = 0;
    for (const v of views) {
      const m = cut(v);
      const hits = v.hits[m]!;
      recall += hits / v.gold.size;
      if (hits === v.gold.size) complete++;
      if (hits === 0) none++;
      injected += m;
      tok += m > 0 ? v.cum[m - 1]! : 0;
    }
    const d = n || 1;
    return { recall: recall / d, completeness: complete / d, no_gold: none / d, injected: injected / d, tokens: tok / d };
  };

  const N = Math.max(0, ...views.map((v) => v.ranked.length));
  const top_k = Array.from({ length: N }, (_, i) => ({ k: i + 1, ...point((v) => Math.min(i + 1, v.ranked.length)) }));

  // A typed array sorts numbers without a comparator (-0 before +0, which no threshold tells apart).
  const pooled = new Float64Array(views.reduce((n, v) => n + v.scores.length, 0));
  views.reduce((at, v) => (pooled.set(v.scores, at), at + v.scores.length), 0);
  pooled.sort();
  const threshold = pooled.length
    ? THRESHOLD_QUANTILES.map((q) => {
        const t = quantileSorted(pooled, q);
        return { quantile: q, threshold: t, ...point((v) => countAtLeast(v.scores, t)) };
      })
    : [];

  const maxTotal = Math.max(0, ...views.map((v) => v.cum[v.cum.length - 1] ?? 0));
  const budget: OperatingPoints['budget'] = [];
  for (let b = BUDGET_START; ; b *= 2) {
    budget.push({ budget: b, ...point((v) => prefixWithin(v.cum, b)) });
    if (b >= maxTotal) break;
  }

  const need = Math.max(1, Math.ceil(target * n - 1e-9));
  const kStar: number[] = [];
  const bStar: number[] = [];
  for (const v of views) {
    let last = -1;
    let found = 0;
    v.ranked.forEach((d, i) => {
      if (v.gold.has(d.docId)) {
        found++;
        last = i;
      }
    });
    if (found === v.gold.size) {
      kStar.push(last + 1);
      bStar.push(v.cum[last]!);
    }
  }
  kStar.sort((a, b) => a - b);
  bStar.sort((a, b) => a - b);
  return {
    queries: n,
    target_completeness: target,
    top_k,
    threshold,
    budget,
    min_k: n > 0 && kStar.length >= need ? kStar[need - 1]! : null,
    min_budget: n > 0 && bStar.length >= need ? bStar[need - 1]! : null,
  };
}

/** Number of leading entries with score >= t (the list is in trec order, so they are a prefix). */
function countAtLeast(scores: Float64Array, t: number): number {
  let m = 0;
  while (m < scores.length && scores[m]! >= t) m++;
  return m;
}

/** Longest prefix whose cumulative tokens stay within the budget. */
function prefixWithin(cum: readonly number[], b: number): number {
  let m = 0;
  while (m < cum.length && cum[m]! <= b) m++;
  return m;
}
