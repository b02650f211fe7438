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

/**
 * The colours of the runs, in the report's run order (Vega's tableau10, or tableau20 beyond ten runs;
 * repeated beyond twenty). The charts draw no legend of their own: page.ts writes each chart's
 * legend in HTML with these colours, so it wraps to the column and shows each label whole.
 */
const TABLEAU10 = ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac'];
const TABLEAU20 = ['#4c78a8', '#9ecae9', '#f58518', '#ffbf79', '#54a24b', '#88d27a', '#b79a20', '#f2cf5b', '#439894', '#83bcb6', '#e45756', '#ff9d98', '#79706e', '#bab0ac', '#d67195', '#fcbfd2', '#b279a2', '#d6a5c9', '#9e765f', '#d8b5a5'];
export function runColors(runs: readonly string[]): string[] {
  const palette = runs.length <= TABLEAU10.length ? TABLEAU10 : TABLEAU20;
  return runs.map((_, i) => palette[i % palette.length]!);
}

/** The colour encoding of every chart with one colour per run: the report's runs in order, no legend. */
export function runColor(runs: readonly string[]) {
  return { field: 'run', type: 'nominal', title: 'run', sort: null, scale: { domain: [...runs], range: runColors(runs) }, legend: null };
}

const runsOf = (values: readonly { run: string }[]) => [...new Set(values.map((v) => v.run))];

/** NDCG, Recall and Completeness against k, one small chart per measure, at most three in a row. */
export function atKSpec(points: ReportModel['atK'], runs: readonly string[] = runsOf(points)): Spec {
  return {
    data: { values: points.map((p) => ({ ...p, pct: p.value * 100 })) },
    facet: { field: 'measure', type: 'nominal', title: null, sort: ['NDCG', 'Recall', 'Completeness'] },
    columns: 3,
    spec: {
      width: 180,
      height: 150,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'k', type: 'ordinal', title: 'k' },
        y: { field: 'pct', type: 'quantitative', title: '×100', scale: { zero: false } },
        color: runColor(runs),
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
      // One rule at 0: its own one-row data (with the bars' data it would draw one line per query).
      { data: { values: [{}] }, mark: { type: 'rule', color: '#c44' }, encoding: { x: { datum: 0 } } },
    ],
  } as Spec;
}

/** Group names longer than this (in code points) are cut on the group axis (the page lists them whole above the chart). */
export const GROUP_LABEL_MAX = 48;

/**
 * The group-axis label of each group, in order: `name (n=queries)`, the name cut to GROUP_LABEL_MAX
 * code points with `…` when longer, unless that would give two groups the same label (then those
 * keep their whole names). Distinct groups get distinct labels.
 */
export function groupAxisLabels(groups: readonly { name: string; queries: number }[]): string[] {
  const cut = (name: string) => {
    const cs = Array.from(name);
    return cs.length > GROUP_LABEL_MAX ? `${cs.slice(0, GROUP_LABEL_MAX - 1).join('')}…` : name;
  };
  const short = groups.map((g) => `${cut(g.name)} (n=${g.queries})`);
  const count = new Map<string, number>();
  for (const l of short) count.set(l, (count.get(l) ?? 0) + 1);
  return groups.map((g, i) => (count.get(short[i]!)! > 1 ? `${g.name} (n=${g.queries})` : short[i]!));
}

/** Pixels per bar of a slice chart: the chart grows in height with groups × runs, never in width. */
export function sliceBarStep(bars: number): number {
  return Math.max(4, Math.min(12, Math.floor(1200 / Math.max(1, bars))));
}

/**
 * A slice as horizontal grouped bars: one band per group (labelled with its size), one bar per run
 * inside it, so the chart keeps its width whatever the number of groups. A 0 value, which has no bar
 * to see, is drawn as a tick at 0 with the label `0`.
 */
export function sliceSpec(s: SliceView, runs: readonly string[] = runsOf(s.values)): Spec {
  const labels = groupAxisLabels(s.groups);
  const labelOf = new Map(s.groups.map((g, i) => [g.name, labels[i]!]));
  const zero = { filter: 'datum.pct === 0' };
  return {
    width: 360,
    height: { step: sliceBarStep(s.groups.length * runs.length) },
    data: { values: s.values.map((v) => ({ run: v.run, group: labelOf.get(v.group) ?? v.group, pct: v.value * 100 })) },
    encoding: {
      y: { field: 'group', type: 'nominal', title: null, sort: labels, axis: { labelLimit: 0 } },
      yOffset: { field: 'run', type: 'nominal', sort: null, scale: { domain: [...runs] } },
      x: { field: 'pct', type: 'quantitative', title: `${s.key} ×100` },
      color: runColor(runs),
    },
    layer: [
      { mark: 'bar' },
      { transform: [zero], mark: { type: 'tick', thickness: 3 } },
      { transform: [zero], mark: { type: 'text', align: 'left', baseline: 'middle', dx: 4, fontSize: 9 }, encoding: { text: { value: '0' }, color: { value: '#333' } } },
    ],
  } as Spec;
}
