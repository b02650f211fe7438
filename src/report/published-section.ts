/**
 * The "Published results (paper, <version>)" section of summary.md: each run that has a published
 * counterpart, its value, the published value and the difference (src/paper/published-vs-measured.ts), or one line
 * saying the published numbers do not apply when the dataset is not a pinned release.
 */
import type { SkillretRelease } from '../data/hub.js';
import { formatPercent } from '../metrics/official-percent.js';
import { formatFixed } from '../util/python-round.js';
import type { PaperReport } from '../paper/published-vs-measured.js';
import { describeTolerances } from '../metrics/verdict.js';
import { MARKDOWN, type Medium } from './medium.js';
import { publishedPct } from './cells.js';
import { renderCategoryPairing, renderGolden } from './published-extra-section.js';

const signed = (x: number) => {
  const s = formatFixed(x === 0 ? 0 : x, 2);
  return s.startsWith('-') ? s : `+${s}`;
};

/**
 * The section (or its one-line stand-in). `measureOrder` orders the metric columns (the run's key
 * order); `releases` names what a pinned release would have been.
 */
export function renderPaperSection(report: PaperReport | undefined, measureOrder: readonly string[], releases: readonly SkillretRelease[], md: Medium = MARKDOWN): string {
  if (!report) {
    const which = [...new Set(releases.map((r) => r.version))].join(', ');
    return `Published paper numbers: not comparable, the dataset files are not a pinned SkillRet release${which ? ` (${md.esc(which)} test split)` : ''}.\n`;
  }
  const { release, split } = report.match;
  const title = `${md.h2(`Published results (paper, ${md.esc(release.version)})`)}\n`;
  const pin = `The dataset files are the pinned SkillRet ${md.esc(release.version)} ${md.esc(split)} split (${md.esc(release.repo)}@${release.revision.slice(0, 12)}, SHA-256 checked).`;
  // Tables 6 and 16 and the stored-fraction rows, after the per-run rows (absent: nothing added).
  const extra = [renderGolden(report.golden, report.tolerances, md), renderCategoryPairing(report.categories, report.tolerances, md)].filter((x) => x !== '');
  const withExtra = (text: string) => [text, ...extra].join('\n');
  if (report.runs.length === 0) {
    return withExtra(`${title}\n${pin} No run here has a published counterpart (BM25, a paper embedder preset, or a paper reranker preset over a published first stage at its depth).\n`);
  }
  const present = new Set(report.runs.flatMap((c) => c.metrics.map((m) => m.metric)));
  const cols = [...measureOrder.filter((k) => present.has(k)), ...[...present].filter((k) => !measureOrder.includes(k)).sort()];
  const rows: string[][] = [];
  for (const c of report.runs) {
    const by = new Map(c.metrics.map((m) => [m.metric, m]));
    const cell = (f: (m: (typeof c.metrics)[number]) => string) => cols.map((k) => (by.has(k) ? f(by.get(k)!) : '–'));
    const over = c.firstStage !== undefined ? ` over ${md.esc(c.firstStage)}${c.depth !== undefined ? ` top ${c.depth}` : ''}` : c.column !== undefined ? `, ${md.esc(c.column)}` : '';
    rows.push([`${md.esc(c.retriever)} / ${md.esc(c.reranker)}`, `${md.esc(c.row)}${over} (${md.esc(c.table)})`, 'yours', ...cell((m) => formatPercent(m.yours))]);
    rows.push(['', '', 'paper', ...cell((m) => publishedPct(m.published, m.decimals))]);
    rows.push(['', '', 'Δ', ...cell((m) => signed(m.delta))]);
    rows.push(['', '', 'verdict', ...cell((m) => m.verdict)]);
  }
  const out = [
    title,
    `${pin} Yours and published in percent (published values with their published decimals), Δ = yours − published in points. All tables: ${md.code(`skillret-eval paper --split ${md.esc(release.version)}`)}.\n`,
    md.table(['Run', 'Published row (table)', '', ...cols], rows, ['l', 'l', 'l', ...cols.map(() => 'r' as const)]),
    `Verdict: ${md.bold(report.verdict)} over ${report.runs.length} reproduced ${report.runs.length === 1 ? 'run' : 'runs'} (${md.esc(describeTolerances(report.tolerances))}; ${md.code('report.ok_within')}, ${md.code('report.close_within')}).\n`,
  ];
  const dev = report.runs.filter((c) => c.deviations.length > 0).map((c) => `${md.esc(c.retriever)} / ${md.esc(c.reranker)}: ${c.deviations.map(md.esc).join('; ')}`);
  if (report.common.length > 0) dev.unshift(`every run: ${report.common.map(md.esc).join('; ')}`);
  if (dev.length > 0) out.push(`Setup differs from the paper's: ${dev.join('. ')}.\n`);
  return withExtra(out.join('\n'));
}
