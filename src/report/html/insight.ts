/**
 * HTML of the report's explain part: `explainSectionHtml` renders the highlighted sentences
 * (analysis/insight-views.ts) with every text HTML-escaped and the importance as a class (imp-0 …
 * imp-5, styled in style.ts), so the page's CSP needs no inline style.
 */
import type { ExplainView } from '../../analysis/insight-views.js';

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

