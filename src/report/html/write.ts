/**
 * Writes report.html: reads the results files of `paths` (input.ts), builds the ReportModel and
 * renders it, atomically. `writeHtmlReport` is the `run` step: `<output>/report.html` with the
 * default settings and the config's seed and iterations. Given a cache folder, each chart's SVG
 * comes from the chart cache (svg-cache.ts) when its specification was rendered before, and the
 * systems comparison from the comparison cache (comparison-cache.ts) when its inputs were compared before.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic.js';
import { readReportInput } from '../../formats/report-input.js';
import { buildReportModel, type ReportOptions } from '../../analysis/report-view.js';
import { renderSvg } from './charts.js';
import { renderReportHtml } from './page.js';
import { cachedSvgRenderer } from './svg-cache.js';
import { cachedCompareSystems } from './comparison-cache.js';

export interface ReportCache {
  /** The cache root (charts go to `<cacheDir>/report-svg/`). */
  cacheDir: string;
  log?: (line: string) => void;
}

export async function writeReportFile(paths: readonly string[], out: string, o: ReportOptions, cache?: ReportCache): Promise<{ runs: number; queries: number }> {
  const input = await readReportInput(paths);
  const model = buildReportModel(input, cache ? { ...o, compare: cachedCompareSystems(cache.cacheDir) } : o);
  writeFileAtomic(out, await renderReportHtml(model, cache ? cachedSvgRenderer(cache.cacheDir, cache.log) : renderSvg));
  return { runs: model.comparison.rows.length, queries: model.comparison.queries };
}

export async function writeHtmlReport(output: string, stats: { seed: number; iterations: number }, cache?: ReportCache): Promise<string> {
  const out = join(output, 'report.html');
  await writeReportFile([output], out, { test: 'randomization', correction: 'holm', alpha: 0.05, seed: stats.seed, iterations: stats.iterations, commonQueries: false }, cache);
  return out;
}
