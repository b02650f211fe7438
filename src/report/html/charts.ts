/**
 * The report's charts: Vega-Lite specifications compiled and rendered to SVG with `vega` at build
 * time, in Node (no canvas, no fonts or data fetched: data are inline values, text uses the generic
 * sans-serif family). The page then holds static SVG and no chart code. Vega escapes every text it
 * writes into the SVG.
 */
import type * as vl from 'vega-lite';
import type { OnOffView, ReportModel, SliceView } from '../../analysis/report-view.js';

type Spec = vl.TopLevelSpec;

/** Renders one chart specification to SVG (`renderSvg`, or the same through the chart cache, svg-cache.ts). */
export type SvgRenderer = (spec: Spec) => Promise<string>;

/** The chart settings every specification is rendered with (part of the chart cache key). */
export const CHART_CONFIG = { font: 'sans-serif', background: 'white', view: { stroke: '#ddd' }, axis: { labelLimit: 180 } } as const;

/** Renders a Vega-Lite spec to an SVG string (vega and vega-lite are loaded on the first call). */
export async function renderSvg(spec: Spec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  const compiled = vl.compile({ ...spec, config: { ...CHART_CONFIG, ...(spec.config ?? {}) } } as Spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export function atKSpec(points: ReportModel['atK']): Spec {
  return {
    data: { values: points.map((p) => ({ ...p, pct: p.value * 100 })) },
    facet: { column: { field: 'measure', type: 'nominal', title: null, sort: ['NDCG', 'Recall', 'Completeness'] } },
    spec: {
      width: 180,
      height: 150,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'k', type: 'ordinal', title: 'k' },
        y: { field: 'pct', type: 'quantitative', title: '×100', scale: { zero: false } },
        color: { field: 'run', type: 'nominal', title: 'run', sort: null },
      },
    },
  } as Spec;
}

export function onOffSpec(v: OnOffView): Spec {
  return {
    width: 360,
    height: 140,
    data: { values: v.deltas.map((d) => ({ d: d * 100 })) },
    layer: [
      {
        mark: { type: 'bar', color: '#4c78a8' },
        encoding: {
          x: { field: 'd', type: 'quantitative', bin: { maxbins: 21, extent: [-100, 100] }, title: `per-query Δ ${v.key} (points, on − off)` },
          y: { aggregate: 'count', type: 'quantitative', title: 'queries' },
        },
      },
      { mark: { type: 'rule', color: '#c44' }, encoding: { x: { datum: 0 } } },
    ],
  } as Spec;
}

export function sliceSpec(s: SliceView): Spec {
  return {
    width: { step: 14 },
    height: 160,
    data: { values: s.values.map((v) => ({ ...v, pct: v.value * 100 })) },
    mark: 'bar',
    encoding: {
      x: { field: 'group', type: 'nominal', title: null, sort: s.groups.map((g) => g.name), axis: { labelAngle: -40 } },
      xOffset: { field: 'run', type: 'nominal', sort: null },
      y: { field: 'pct', type: 'quantitative', title: `${s.key} ×100` },
      color: { field: 'run', type: 'nominal', title: 'run', sort: null },
    },
  } as Spec;
}
