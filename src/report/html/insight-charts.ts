/**
 * The three injection curves of the report (Vega-Lite, rendered to SVG in Node by charts.ts
 * `renderSvg`), runs overlaid: Completeness against top-K, against the token budget, and against
 * the score-threshold quantile. Data are the runs' operating-points.json curves (insight.ts); the
 * colours are the report's run colours (charts.ts `runColor`), the legend is the page's.
 */
import type * as vl from 'vega-lite';
import type { InjectionView } from '../../analysis/insight-views.js';
import { runColor } from './charts.js';

type Spec = vl.TopLevelSpec;

function curve(values: { run: string; x: number; completeness: number; tokens: number }[], x: { title: string; log?: boolean }, runs: readonly string[]): Spec {
  return {
    width: 300,
    height: 180,
    data: { values: values.map((v) => ({ ...v, pct: v.completeness * 100 })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: x.title, ...(x.log ? { scale: { type: 'log' } } : {}) },
      y: { field: 'pct', type: 'quantitative', title: 'Completeness ×100', scale: { domain: [0, 100] } },
      color: runColor(runs),
      tooltip: [{ field: 'run' }, { field: 'x', title: x.title }, { field: 'pct', title: 'Completeness', format: '.2f' }, { field: 'tokens', title: 'mean tokens', format: '.0f' }],
    },
  } as Spec;
}

export function topKCurveSpec(views: readonly InjectionView[], runs: readonly string[] = views.map((v) => v.label)): Spec {
  return curve(views.flatMap((v) => v.topK.map((p) => ({ run: v.label, x: p.k, completeness: p.completeness, tokens: p.tokens }))), { title: 'top-K injected' }, runs);
}

export function budgetCurveSpec(views: readonly InjectionView[], runs: readonly string[] = views.map((v) => v.label)): Spec {
  return curve(views.flatMap((v) => v.budget.map((p) => ({ run: v.label, x: p.budget, completeness: p.completeness, tokens: p.tokens }))), { title: 'context budget (cl100k tokens)', log: true }, runs);
}

export function thresholdCurveSpec(views: readonly InjectionView[], runs: readonly string[] = views.map((v) => v.label)): Spec {
  return curve(views.flatMap((v) => v.threshold.map((p) => ({ run: v.label, x: p.quantile, completeness: p.completeness, tokens: p.tokens }))), { title: 'min score (quantile of the run’s scores)' }, runs);
}
