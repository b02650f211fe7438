/**
 * Writes report.html: reads the results files of `paths` (input.ts), builds the ReportModel and
 * renders it, atomically. `writeHtmlReport` is the `run` step: `<output>/report.html` with the
 * default settings and the config's seed and iterations; given a cache folder, the whole page comes
 * from the page cache (page-cache.ts) when the folder's files are those of a page rendered before.
 * Otherwise, given a cache folder, each chart's SVG comes from the chart cache (svg-cache.ts) when
 * its specification was rendered before, and the systems comparison from the comparison cache
 * (comparison-cache.ts) when its inputs were compared before.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic.js';
import { readReportInput } from '../../formats/report-input.js';
import { buildReportModel, type ReportOptions } from '../../analysis/report-view.js';
import { renderSvg } from './charts.js';
import { renderReportHtml } from './page.js';
import { cachedSvgRenderer } from './svg-cache.js';
import { cachedCompareSystems } from './comparison-cache.js';
import { writeCachedPage } from './page-cache.js';

export interface ReportCache {
  /** The cache root (charts go to `<cacheDir>/report-svg/`). */
  cacheDir: string;
  log?: (line: string) => void;
}

/** The report page of `paths` and how many runs and queries it compares. */
async function renderReportFile(paths: readonly string[], o: ReportOptions, cache?: ReportCache): Promise<{ html: string; runs: number; queries: number }> {
  const input = await readReportInput(paths);
  const model = buildReportModel(input, cache ? { ...o, compare: cachedCompareSystems(cache.cacheDir) } : o);
  const html = await renderReportHtml(model, cache ? cachedSvgRenderer(cache.cacheDir, cache.log) : renderSvg);
  return { html, runs: model.comparison.rows.length, queries: model.comparison.queries };
}

export async function writeReportFile(paths: readonly string[], out: string, o: ReportOptions, cache?: ReportCache): Promise<{ runs: number; queries: number }> {
  const { html, runs, queries } = await renderReportFile(paths, o, cache);
  writeFileAtomic(out, html);
  return { runs, queries };
}

/**
 * The `run` step: `<output>/report.html` with the default settings and the config's seed and
 * iterations. Given a cache, a page rendered before from the same files is copied (page-cache.ts).
 */
export async function writeHtmlReport(output: string, stats: { seed: number; iterations: number }, cache?: ReportCache): Promise<string> {
  const out = join(output, 'report.html');
  const o: ReportOptions = { test: 'randomization', correction: 'holm', alpha: 0.05, seed: stats.seed, iterations: stats.iterations, commonQueries: false };
  if (cache) await writeCachedPage(cache.cacheDir, output, o, out, async () => (await renderReportFile([output], o, cache)).html, cache.log);
  else await writeReportFile([output], out, o);
  return out;
}
