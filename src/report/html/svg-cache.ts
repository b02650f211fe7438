/**
 * The chart cache of report.html: each chart's SVG, keyed by what determines it, so a rerun whose
 * results did not change neither loads vega nor renders a chart. Key = sha256 of (format, the
 * vega and vega-lite versions, the chart settings of charts.ts and the Vega-Lite specification with
 * its inline data, as stable JSON). File `<cacheDir>/report-svg/<key>.svg`: a first line
 * `<!-- skillret-svg v1 <sha256 of the rest> -->`, then the SVG as rendered. A file whose line or
 * checksum does not fit is ignored (one log line) and rewritten; written atomically.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic.js';
import { packageVersion } from '../../util/package-version.js';
import { sha256Hex, stableStringify } from '../../util/hash.js';
import { CHART_CONFIG, renderSvg, type SvgRenderer } from './charts.js';

export const SVG_SUBFOLDER = 'report-svg';
const FORMAT = 'skillret-svg v1';

let versions: { vega: string; vegaLite: string } | undefined;


/** The cache key of a chart specification. */
export function svgKey(spec: unknown): string {
  versions ??= { vega: packageVersion('vega'), vegaLite: packageVersion('vega-lite') };
  return sha256Hex(stableStringify({ format: FORMAT, ...versions, config: CHART_CONFIG, spec }));
}

export function svgCachePath(cacheDir: string, key: string): string {
  return join(cacheDir, SVG_SUBFOLDER, `${key}.svg`);
}

/** The cached SVG in a file's text, or throws when it is not a whole cache file. */
export function decodeSvgFile(text: string): string {
  const nl = text.indexOf('\n');
  const m = nl < 0 ? null : /^<!-- skillret-svg v1 ([0-9a-f]{64}) -->$/.exec(text.slice(0, nl));
  if (!m) throw new Error('not a chart cache file');
  const svg = text.slice(nl + 1);
  if (sha256Hex(svg) !== m[1]) throw new Error('checksum mismatch');
  return svg;
}

export function encodeSvgFile(svg: string): string {
  return `<!-- ${FORMAT} ${sha256Hex(svg)} -->\n${svg}`;
}

/** `render` through the chart cache under `cacheDir`. */
export function cachedSvgRenderer(cacheDir: string, log: (line: string) => void = () => {}, render: SvgRenderer = renderSvg): SvgRenderer {
  return async (spec) => {
    const path = svgCachePath(cacheDir, svgKey(spec));
    if (existsSync(path)) {
      try {
        return decodeSvgFile(readFileSync(path, 'utf8'));
      } catch (e) {
        log(`report: cached chart ${path} is unusable (${e instanceof Error ? e.message : String(e)}); rendering it again`);
      }
    }
    const svg = await render(spec);
    writeFileAtomic(path, encodeSvgFile(svg));
    return svg;
  };
}
