/**
 * `skillret-eval report <results folder | run folder>… [--out report.html]`: the self-contained HTML
 * report (src/report/html/) from results files only. With one results folder the default output is
 * `<folder>/report.html`; otherwise --out is required. `run` writes it too (report/html/write.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { writeHtmlReport } from '../api/report.js';
import { checkOutFile } from '../util/out-file.js';
import { checkCompareOptions, type CompareOptions } from '../api/compare.js';
import { plural } from '../util/plural.js';

export interface ReportCommandOptions extends Pick<CompareOptions, 'test' | 'correction' | 'alpha' | 'seed' | 'iterations' | 'commonQueries'> {
  paths: string[];
  out?: string;
}

export async function reportCommand(o: ReportCommandOptions): Promise<string> {
  const c = checkCompareOptions(o);
  if (o.paths.length === 0) throw new UserError('report: name at least one results folder');
  for (const p of o.paths) if (!existsSync(p)) throw new UserError(`${p}: no such results folder, run folder or file`);
  let out = o.out;
  if (out === undefined) {
    const only = o.paths.length === 1 ? o.paths[0]! : undefined;
    if (only === undefined || !existsSync(only) || !statSync(only).isDirectory()) throw new UserError('--out: required unless exactly one results folder is named');
    out = join(only, 'report.html');
  }
  checkOutFile(out, { inputs: o.paths, allowed: ['report.html'] });
  const n = await writeHtmlReport(o.paths, out, { test: c.test, correction: c.correction, alpha: c.alpha, seed: c.seed, iterations: c.iterations, commonQueries: o.commonQueries === true });
  return `wrote ${out} (${plural(n.runs, 'run')}, ${plural(n.queries, 'query', 'queries')})\n`;
}
