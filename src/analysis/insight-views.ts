/**
 * The report's "beyond the paper" views, from results files only: each run's injection operating
 * points as curves, and where `explain` was run, its sentence erasure as shares and highlight levels
 * (0 … 5) of each sentence per gold skill. Values only; report/html renders them.
 */
import type { RunInsightFiles } from '../formats/insight-files.js';

export interface InjectionCurvePoint {
  recall: number;
  completeness: number;
  no_gold: number;
  injected: number;
  tokens: number;
}

export interface InjectionView {
  label: string;
  target: number;
  minK: number | null;
  minBudget: number | null;
  topK: ({ k: number } & InjectionCurvePoint)[];
  threshold: ({ quantile: number; threshold: number } & InjectionCurvePoint)[];
  budget: ({ budget: number } & InjectionCurvePoint)[];
}

export interface ExplainSentenceView {
  text: string;
  /** Share of the query's positive importance for this gold skill, 0..1. */
  share: number;
  /** 0 (none) … 5 (most): the highlight class. */
  level: number;
  scoreDrop: number;
  rankDrop: number | null;
}

export interface ExplainView {
  label: string;
  queries: { id: string; gold: { skill: string; rank: number | null; sentences: ExplainSentenceView[]; fields: { variant: string; rank: number; scoreDrop: number }[] }[] }[];
}

const num = (v: unknown): number => (typeof v === 'number' ? v : NaN);
const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Record<string, unknown>[]) : []);
const point = (p: Record<string, unknown>): InjectionCurvePoint => ({
  recall: num(p.recall),
  completeness: num(p.completeness),
  no_gold: num(p.no_gold),
  injected: num(p.injected),
  tokens: num(p.tokens),
});

export function injectionViews(runs: readonly RunInsightFiles[]): InjectionView[] {
  return runs.flatMap((r) => {
    const o = r.operatingPoints;
    if (!o) return [];
    return [
      {
        label: r.label,
        target: num(o.target_completeness),
        minK: typeof o.min_k === 'number' ? o.min_k : null,
        minBudget: typeof o.min_budget === 'number' ? o.min_budget : null,
        topK: arr(o.top_k).map((p) => ({ k: num(p.k), ...point(p) })),
        threshold: arr(o.threshold).map((p) => ({ quantile: num(p.quantile), threshold: num(p.threshold), ...point(p) })),
        budget: arr(o.budget).map((p) => ({ budget: num(p.budget), ...point(p) })),
      },
    ];
  });
}

/** Highlight level of a share: 0 for none, else 1 … 5 by fifths. */
export function importanceLevel(share: number): number {
  if (!(share > 0)) return 0;
  return Math.min(5, Math.max(1, Math.ceil(share * 5)));
}

export function explainViews(runs: readonly RunInsightFiles[]): ExplainView[] {
  return runs.flatMap((r) => {
    if (!r.explain?.length) return [];
    const queries = r.explain.map((q) => {
      const sentences = arr(q.sentences).map((s) => String(s.text ?? ''));
      return {
        id: String(q.id ?? ''),
        gold: arr(q.gold).map((g) => {
          const er = arr(g.sentences);
          const imp = er.map((s) => Math.max(0, Number.isFinite(num(s.score_drop)) ? num(s.score_drop) : 0));
          const total = imp.reduce((a, b) => a + b, 0);
          return {
            skill: String(g.skill ?? ''),
            rank: typeof g.rank === 'number' ? g.rank : null,
            sentences: sentences.map((text, i) => {
              const share = total > 0 ? imp[i]! / total : 0;
              const s = er[i] ?? {};
              return { text, share, level: importanceLevel(share), scoreDrop: num(s.score_drop), rankDrop: typeof s.rank_drop === 'number' ? s.rank_drop : null };
            }),
            fields: arr(g.fields).map((f) => ({ variant: String(f.variant ?? ''), rank: num(f.rank), scoreDrop: num(f.score_drop) })),
          };
        }),
      };
    });
    return [{ label: r.label, queries }];
  });
}
