/**
 * Writes report.html, atomically: the page of a results folder as values (formats/report-input.ts)
 * and the leaderboard of its runs (analysis/leaderboard.ts). The `report` command reads the values
 * from files and compares the runs with the settings given; the `run` step passes the folder it has
 * just written and the leaderboard of its report value, both in memory: nothing is read back or
 * compared a second time. Given a cache folder, each chart's SVG comes from the chart cache
 * (svg-cache.ts) when its specification was rendered before.
 */
import { writeFileAtomic } from '../../util/atomic.js';
import type { ReportInput } from '../../formats/report-input.js';
import { buildReportModel } from '../../analysis/report-view.js';
import type { Leaderboard } from '../../analysis/leaderboard.js';
import { renderSvg } from './charts.js';
import { renderReportHtml } from './page.js';
import { cachedSvgRenderer } from './svg-cache.js';

export interface ReportCache {
  /** The cache root (charts go to `<cacheDir>/report-svg/`). */
  cacheDir: string;
  log?: (line: string) => void;
}

/** The page of `input` whose leaderboard is `board`. */
export async function renderReport(input: ReportInput, board: Leaderboard, cache?: ReportCache): Promise<string> {
  return renderReportHtml(buildReportModel(input, board), cache ? cachedSvgRenderer(cache.cacheDir, cache.log) : renderSvg);
}

/** report.html at `out`: the page of `input` whose leaderboard is `board`. */
export async function writeReport(input: ReportInput, board: Leaderboard, out: string, cache?: ReportCache): Promise<string> {
  writeFileAtomic(out, await renderReport(input, board, cache));
  return out;
}
