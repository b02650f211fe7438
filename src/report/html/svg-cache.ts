/**
 * The chart cache of report.html: each chart's SVG, keyed by what determines it, so a rerun whose
 * results did not change neither loads vega nor renders a chart. Store kind `report-svg`
 * (cache/store.ts; `<cacheDir>/report-svg/<key>.svg`), key over (format, the vega and vega-lite
 * versions, the chart settings of charts.ts and the Vega-Lite specification with its inline data);
 * the body is the SVG as rendered. A damaged entry is reported in the store's one line and the
 * chart rendered again (rewritten).
 */
import { cacheKey } from '../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../cache/kinds.js';
import { CacheStore } from '../../cache/store.js';
import { packageVersion } from '../../util/package-version.js';
import { stableStringify } from '../../util/hash.js';
import { CHART_CONFIG, renderSvg, type SvgRenderer } from './charts.js';

export const SVG_KIND = entryKind(CACHE_KINDS.reportSvg, 'svg-v2');
export const SVG_SUBFOLDER = CACHE_KINDS.reportSvg.folder;

let versions: { vega: string; vegaLite: string } | undefined;

/** The cache key of a chart specification. */
export function svgKey(spec: unknown): string {
  versions ??= { vega: packageVersion('vega'), vegaLite: packageVersion('vega-lite') };
  // The specification as its stable JSON text (a string part): charts may hold values JSON writes as null.
  return cacheKey(SVG_KIND.name, [SVG_KIND.format, versions, CHART_CONFIG, stableStringify(spec)]);
}

export function svgCachePath(cacheDir: string, key: string): string {
  return CacheStore.of({ cacheDir, useCache: true, log: () => {} }).path(SVG_KIND, key);
}

/** The SVG of an entry body, or throws when it is not one. */
export function decodeSvg(text: string): string {
  if (!text.startsWith('<svg')) throw new Error('not an SVG');
  return text;
}

/** `render` through the chart cache under `cacheDir`. */
export function cachedSvgRenderer(cacheDir: string, log: (line: string) => void = () => {}, render: SvgRenderer = renderSvg): SvgRenderer {
  const store = CacheStore.of({ cacheDir, useCache: true, log });
  return async (spec) => {
    const key = svgKey(spec);
    const cached = store.readText(SVG_KIND, key, decodeSvg);
    if (cached !== undefined) return cached;
    const svg = await render(spec);
    store.write(SVG_KIND, key, svg);
    return svg;
  };
}
