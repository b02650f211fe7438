/**
 * Writes report.html: reads the results files of `paths` (input.ts), builds the ReportModel and
 * renders it, atomically. `writeHtmlReport` is the `run` step: `<output>/report.html` with the
 * default settings and the config's seed and iterations.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic.js';
import { readReportInput } from '../../formats/report-input.js';
import { buildReportModel, type ReportOptions } from '../../analysis/report-view.js';
import { renderReportHtml } from './page.js';

export async function writeReportFile(paths: readonly string[], out: string, o: ReportOptions): Promise<{ runs: number; queries: number }> {
  const input = await readReportInput(paths);
  const model = buildReportModel(input, o);
  writeFileAtomic(out, await renderReportHtml(model));
  return { runs: model.comparison.rows.length, queries: model.comparison.queries };
}

export async function writeHtmlReport(output: string, stats: { seed: number; iterations: number }): Promise<string> {
  const out = join(output, 'report.html');
  await writeReportFile([output], out, { test: 'randomization', correction: 'holm', alpha: 0.05, seed: stats.seed, iterations: stats.iterations, commonQueries: false });
  return out;
}
