/**
 * Writes report.html, atomically, from its model (analysis/report-view.ts `buildReportModel`: the
 * results folder as values and the leaderboard of its runs), which the caller builds: `run` from the
 * folder it has just written and its report value's leaderboard, in memory (nothing read back or
 * compared a second time); `report` from the files, compared with the settings given. Rendering
 * only. Given a cache folder, each chart's SVG comes from the chart cache (svg-cache.ts) when its
 * specification was rendered before.
 */
import { writeFileAtomic } from '../../util/atomic.js';
import type { ReportModel } from '../../analysis/report-view.js';
import { renderSvg } from './charts.js';
import { renderReportHtml } from './page.js';
import { cachedSvgRenderer } from './svg-cache.js';

export interface ReportCache {
  /** The cache root (charts go to `<cacheDir>/report-svg/`). */
  cacheDir: string;
  log?: (line: string) => void;
}

/** The page of `model`. */
export async function renderReport(model: ReportModel, cache?: ReportCache): Promise<string> {
  return renderReportHtml(model, cache ? cachedSvgRenderer(cache.cacheDir, cache.log) : renderSvg);
}

/** report.html at `out`: the page of `model`. */
export async function writeReport(model: ReportModel, out: string, cache?: ReportCache): Promise<string> {
  writeFileAtomic(out, await renderReport(model, cache));
  return out;
}
