/**
 * Library verb behind `skillret-eval report`: report.html of the runs of results folders, run
 * folders or per-query.jsonl files, from their files only: read as values (formats/report-input.ts),
 * compared with the settings given (analysis/leaderboard.ts), the page's model built
 * (analysis/report-view.ts), rendered (report/html/).
 */
import { readReportInput } from '../formats/report-input.js';
import { leaderboard, type LeaderboardSettings } from '../analysis/leaderboard.js';
import { buildReportModel } from '../analysis/report-view.js';
import { writeReport, type ReportCache } from '../report/html/write.js';
import { resetCacheWriteFailures } from '../cache/write-failures.js';

/** Writes report.html of the runs of `paths` at `out`; how many runs and queries it compares. */
export async function writeHtmlReport(paths: readonly string[], out: string, o: LeaderboardSettings, cache?: ReportCache): Promise<{ runs: number; queries: number }> {
  resetCacheWriteFailures();
  const input = await readReportInput(paths);
  const board = leaderboard(input.runs, o);
  await writeReport(buildReportModel(input, board), out, cache);
  return { runs: board.comparison.rows.length, queries: board.comparison.queries };
}
