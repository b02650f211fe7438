/**
 * What `run` prints on the terminal: the leaderboard of the experiment's report value (one row per
 * run: the main metrics at the shown k with their significance marks against the baseline, Δ and
 * W/T/L of the main metric, and for a reranked run its on/off Δ), the paper's verdict when the
 * dataset is a pinned release, the regression gate's table when there are expectations, and where summary.md and report.html are. Plain text: no Markdown
 * markup, no HTML entities; untrusted labels go through util/terminal-text.ts. Formatting only:
 * every number comes from the Report (analysis/report.ts).
 */
import type { Report } from '../../analysis/report.js';
import { formatPercentDelta } from '../../metrics/official-percent.js';
import { describeTolerances } from '../../metrics/verdict.js';
import { pct } from '../cells.js';
import { plural } from '../../util/plural.js';
import { escapeTerminal, renderTextTable } from './text.js';
import type { Cell, TableModel } from './model.js';
import { renderGateSection } from '../gates.js';
import { MARKDOWN, TERMINAL } from '../medium.js';
import { escapeMd } from '../markdown.js';
import { renderTableMarkdown } from './markdown.js';


/** The leaderboard table of `report` (shown keys, Δ and W/T/L against the baseline, on/off Δ). */
export function leaderboardTable(report: Report): TableModel {
  const c = report.leaderboard.comparison;
  const s = c.settings;
  const keys = report.shownKeys.filter((k) => s.keys.includes(k));
  const main = s.mainKey;
  const base = c.rows[s.baseline]!;
  const runs = report.result.runs;
  const reranked = runs.some((r) => r.onOff);
  const header: Cell[] = [{ text: 'Run' }, ...keys.map((k) => ({ text: k })), { text: `Δ ${main}` }, { text: 'W/T/L' }, ...(reranked ? [{ text: `on/off Δ ${main}` }] : [])];
  const rows = c.rows.map((row, i): Cell[] => {
    const cells: Cell[] = [{ text: i === s.baseline ? `${row.label} (baseline)` : row.label, untrusted: true }];
    for (const k of keys) cells.push({ text: pct(row.means[k]), marks: row.vsBaseline?.[k]?.significant ? ['sig'] : [] });
    const v = row.vsBaseline?.[main];
    cells.push(v ? { text: formatPercentDelta(base.means[main]!, row.means[main]!), marks: v.significant ? ['sig'] : [] } : { text: '–' });
    cells.push({ text: v ? `${v.wins}/${v.ties}/${v.losses}` : '–' });
    if (reranked) {
      const m = runs[i]?.onOff?.attribution.metrics[main];
      cells.push(m ? { text: formatPercentDelta(m.base, m.treated), marks: m.randomization.pValue < s.alpha ? ['sig'] : [] } : { text: '–' });
    }
    return cells;
  });
  return { header, align: ['l', ...header.slice(1).map(() => 'r' as const)], rows, notes: [] };
}

/** The terminal summary of a finished run. `files` are the paths to show of summary.md and report.html. */
export function renderTerminalSummary(report: Report, files: { summary: string; html: string }): string {
  const res = report.result;
  const c = report.leaderboard.comparison;
  const s = c.settings;
  const out: string[] = [];
  out.push(
    `${escapeTerminal(res.config.name)}: ${plural(c.rows.length, 'run')}, ${plural(c.queries, 'query', 'queries')}, ${plural(res.dataset.skills.length, 'skill')} (split ${escapeTerminal(res.dataset.split)}); ×100, 2 decimals`,
    '',
  );
  out.push(...renderTextTable(leaderboardTable(report)));
  out.push('');
  if (c.rows.length > 1) {
    const test = s.test === 't' ? 'paired t-test' : `paired randomisation test, ${s.iterations} iterations, seed ${s.seed}`;
    out.push(
      `*: differs from ${escapeTerminal(c.rows[s.baseline]!.label)} at α = ${s.alpha} (${test}; Holm over ${plural(c.rows.length - 1, 'run')}). W/T/L: queries won/tied/lost on ${s.mainKey}.`,
    );
  }
  if (res.runs.some((r) => r.onOff)) out.push(`on/off: the reranker against its own first stage alone; *: p (randomisation) < ${s.alpha}.`);
  const g = res.dataset.stats.grades;
  if (g.aboveOne > 0 && report.paper) {
    const shown = res.runs.map((r) => `${escapeTerminal(r.retriever)}/${escapeTerminal(r.reranker)} ${pct(r.binaryGold?.[s.mainKey])}`).join(', ');
    out.push(`Graded gold (max grade ${g.maxGrade}): the official Hub path judges every gold skill at 1, giving ${s.mainKey} ${shown}.`);
  }
  const p = report.paper;
  if (p && p.runs.length > 0) {
    out.push(`Paper (${escapeTerminal(p.match.release.version)}): verdict ${p.verdict} over ${plural(p.runs.length, 'reproduced run')} (${escapeTerminal(describeTolerances(p.tolerances))}).`);
  }
  if (report.gates) out.push(renderGateSection(report.gates, TERMINAL).trimEnd());
  out.push(`Summary: ${escapeTerminal(files.summary)}`, `Report:  ${escapeTerminal(files.html)}`);
  return out.join('\n') + '\n';
}

/**
 * The compact Markdown summary of a finished run, what `run` appends to $GITHUB_STEP_SUMMARY: the
 * experiment in one line, the leaderboard and, when there are expectations, the gate table.
 */
export function renderCompactMarkdown(report: Report): string {
  const res = report.result;
  const c = report.leaderboard.comparison;
  const s = c.settings;
  const out: string[] = [
    `### skillret-eval: ${escapeMd(res.config.name)}\n`,
    `${plural(c.rows.length, 'run')}, ${plural(c.queries, 'query', 'queries')}, ${plural(res.dataset.skills.length, 'skill')} (split ${escapeMd(res.dataset.split)}); ×100, 2 decimals` +
      (c.rows.length > 1 ? `; \\*: differs from ${escapeMd(c.rows[s.baseline]!.label)} at α = ${s.alpha} (Holm over ${plural(c.rows.length - 1, 'run')})` : '') +
      '.\n',
    renderTableMarkdown(leaderboardTable(report)),
  ];
  if (report.gates) out.push(renderGateSection(report.gates, MARKDOWN));
  return out.join('\n');
}
