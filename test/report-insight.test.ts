import { describe, expect, it } from 'vitest';
import { explainSectionHtml } from '../src/report/html/insight.js';
import { explainViews, importanceLevel, injectionViews } from '../src/analysis/insight-views.js';

describe('report: injection curves and the highlighted-sentence view', () => {
  const runs = [
    {
      label: 'bm25 / none',
      operatingPoints: { target_completeness: 0.9, min_k: 4, min_budget: null, top_k: [{ k: 1, recall: 0.5, completeness: 0.25, no_gold: 0.5, injected: 1, tokens: 100 }], threshold: [], budget: [] },
      explain: [
        {
          id: 'q<1>',
          sentences: [{ text: 'Use <script>alert(1)</script> now.' }, { text: 'Nothing "here".' }, { text: 'Third.' }],
          gold: [{ skill: 's&1', rank: 2, sentences: [{ score_drop: 3, rank_drop: 4 }, { score_drop: -1, rank_drop: 0 }, { score_drop: 1, rank_drop: null }], fields: [{ variant: 'only_name', rank: 7, score_drop: 0.5 }] }],
        },
      ],
    },
    { label: 'no files' },
  ];
  it('shares and levels come from the positive score drops', () => {
    const v = explainViews(runs)[0]!.queries[0]!.gold[0]!;
    expect(v.sentences.map((s) => s.share)).toEqual([0.75, 0, 0.25]);
    expect(v.sentences.map((s) => s.level)).toEqual([4, 0, 2]);
    expect([importanceLevel(1), importanceLevel(0.01), importanceLevel(NaN)]).toEqual([5, 1, 0]);
    expect(injectionViews(runs)).toHaveLength(1);
    expect(injectionViews(runs)[0]).toMatchObject({ minK: 4, minBudget: null, target: 0.9 });
  });
  it('escapes every text it renders', () => {
    const html = explainSectionHtml(explainViews(runs), (id) => (id === 's&1' ? '<b>skill</b>' : ''));
    expect(html).not.toContain('<script>');
    expect(html).toContain('Use &lt;script&gt;alert(1)&lt;/script&gt; now.');
    expect(html).toContain('Nothing &quot;here&quot;.');
    expect(html).toContain('&lt;b&gt;skill&lt;/b&gt;');
    expect(html).toContain('q&lt;1&gt;');
    expect(html).toContain('class="imp imp-4"');
    expect(html).not.toMatch(/style=/);
    expect(explainSectionHtml([])).toBe('');
  });
});
