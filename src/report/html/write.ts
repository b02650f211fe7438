/**
 * Writes report.html, atomically. `writeReportFile` is the `report` command: it reads the results
 * files of `paths` (formats/report-input.ts), compares their runs (analysis/leaderboard.ts) with the
 * settings given and renders the page. `writeRunReport` is the `run` step: the folder it has just
 * written, as values, and the leaderboard of the experiment's report value, both in memory: nothing
 * is read back or compared a second time. Given a cache folder, each chart's SVG comes from the chart
 * cache (svg-cache.ts) when its specification was rendered before.
 */
import { writeFileAtomic } from '../../util/atomic.js';
import { readReportInput, type ReportInput } from '../../formats/report-input.js';
import { buildReportModel } from '../../analysis/report-view.js';
import { leaderboard, type Leaderboard, type LeaderboardSettings } from '../../analysis/leaderboard.js';
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

/** The `report` command: report.html of the runs of `paths`, compared with `o`. */
export async function writeReportFile(paths: readonly string[], out: string, o: LeaderboardSettings, cache?: ReportCache): Promise<{ runs: number; queries: number }> {
  const input = await readReportInput(paths);
  const board = leaderboard(input.runs, o);
  writeFileAtomic(out, await renderReport(input, board, cache));
  return { runs: board.comparison.rows.length, queries: board.comparison.queries };
}

/** The `run` step: report.html at `out` of the results folder just written (`input`, as values) and the experiment's leaderboard. */
export async function writeRunReport(input: ReportInput, board: Leaderboard, out: string, cache?: ReportCache): Promise<string> {
  writeFileAtomic(out, await renderReport(input, board, cache));
  return out;
}
