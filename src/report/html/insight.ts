/**
 * The report's "beyond the paper" parts, from results files only: each run's injection operating
 * points (operating-points.json, written by `run`) and, where `explain` was run, its sentence
 * erasure (explain.jsonl). `readInsight` reads them; `injectionViews` / `explainViews` are the
 * values the page renders (curves, and the highlighted-sentence view); `explainSectionHtml` renders
 * the highlighted sentences with every text HTML-escaped and the importance as a class (imp-0 …
 * imp-5, styled in style.ts), so the page's CSP needs no inline style.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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

export interface RunInsightFiles {
  label: string;
  operatingPoints?: Record<string, unknown>;
  explain?: Record<string, unknown>[];
}

/** Reads operating-points.json and explain.jsonl of a run folder (each optional). */
export function readInsight(label: string, dir: string): RunInsightFiles {
  const out: RunInsightFiles = { label };
  const op = join(dir, 'operating-points.json');
  if (existsSync(op)) out.operatingPoints = JSON.parse(readFileSync(op, 'utf8')) as Record<string, unknown>;
  const ex = join(dir, 'explain.jsonl');
  if (existsSync(ex))
    out.explain = readFileSync(ex, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return out;
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

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const fmt = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '–');

/** The highlighted-sentence view: per explained run, per query and gold skill, its sentences shaded by importance. */
export function explainSectionHtml(views: readonly ExplainView[], skillName: (id: string) => string = () => ''): string {
  if (!views.length) return '';
  const parts = views.map((v) => {
    const qs = v.queries.map((q) => {
      const golds = q.gold.map((g) => {
        const text = g.sentences
          .map((s) => `<span class="imp imp-${s.level}" title="share ${fmt(100 * s.share, 0)}%, score drop ${fmt(s.scoreDrop, 4)}, rank drop ${s.rankDrop ?? '–'}">${escapeHtml(s.text)}</span>`)
          .join(' ');
        const fields = g.fields.length
          ? `<p class="muted">Fields (rank with only / without): ${g.fields.map((f) => `${escapeHtml(f.variant.replace('_', ' '))} ${Number.isFinite(f.rank) ? f.rank : '–'}`).join(', ')}</p>`
          : '';
        const name = skillName(g.skill);
        return `<div class="explain-gold"><h4>${escapeHtml(name || g.skill)} <span class="sid">${escapeHtml(g.skill)}</span> <span class="muted">rank ${g.rank ?? '–'}</span></h4><p class="qtext">${text}</p>${fields}</div>`;
      });
      return `<details class="query"><summary><span class="qid">${escapeHtml(q.id)}</span></summary>${golds.join('')}</details>`;
    });
    return `<div class="explain-run"><h3>${escapeHtml(v.label)}</h3>${qs.join('\n')}</div>`;
  });
  return `<section id="explain"><h2>Where the signal is (sentence erasure)</h2><p class="muted">From <code>skillret-eval explain</code>: each sentence shaded by its share of the gold skill's score drop when it is removed (darker = more of the match). Hover a sentence for its numbers.</p>${parts.join('\n')}</section>`;
}

