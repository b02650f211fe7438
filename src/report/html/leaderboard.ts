/**
 * The leaderboard as one self-contained HTML file: the comparison table of the runs (the same table
 * model as `compare` and report.html), the main metric by major category, the paper's verdicts and
 * the history entries. No script; a Content-Security-Policy allows only its own style (by hash).
 * Every label, name and path is HTML-escaped. Rendering only.
 */
import { createHash } from 'node:crypto';
import type { LeaderboardView } from '../systems/leaderboard.js';
import { mainTable, methodNotes, type Cell } from '../systems/model.js';
import { pct } from '../cells.js';
import { escapeHtml } from './page.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1b1f24}
table{border-collapse:collapse;margin:8px 0 16px}th,td{padding:4px 10px;border-bottom:1px solid #d0d7de;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left;position:sticky;left:0;background:#fff}.scroll{overflow-x:auto}.notes{color:#57606a;font-size:12px}`;

function cell(c: Cell): string {
  const marks = (c.marks ?? []).map((m) => (m === 'sig' ? '<sup title="differs from the baseline">*</sup>' : '<sup title="not separable from the best">†</sup>')).join('');
  const t = escapeHtml(c.text);
  return `<td>${c.bold ? `<strong>${t}</strong>` : t}${marks}</td>`;
}

function table(header: string[], rows: string[][]): string {
  return `<div class="scroll"><table><thead><tr>${header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((x, j) => (j === 0 ? `<th scope="row">${escapeHtml(x)}</th>` : `<td>${escapeHtml(x)}</td>`)).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}

export function renderLeaderboardHtml(v: LeaderboardView): string {
  const c = v.comparison;
  const t = mainTable(c);
  const main = `<div class="scroll"><table><thead><tr>${t.header.map((h) => `<th scope="col">${escapeHtml(h.text)}</th>`).join('')}</tr></thead><tbody>${t.rows
    .map((cells) => `<tr>${cells.map((x, j) => (j === 0 ? `<th scope="row">${escapeHtml(x.text)}</th>` : cell(x))).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
  const parts = [
    `<h1>Leaderboard</h1><p>${v.entries.length} runs over dataset <code>${escapeHtml(v.dataset.slice(0, 12))}</code>, ${c.queries} queries; best first by ${escapeHtml(c.settings.mainKey)}.</p>`,
    main,
    `<div class="notes">${methodNotes(c, (s) => s).map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</div>`,
  ];
  const groups = [...new Set(v.categories.flatMap((x) => Object.keys(x)))];
  if (groups.length >= 2) parts.push(`<h2>${escapeHtml(c.settings.mainKey)} by major category</h2>`, table(['Run', ...groups], c.rows.map((r, i) => [r.label, ...groups.map((g) => pct(v.categories[i]![g]))])));
  if (c.paper.runs.length) {
    const metrics = [...new Set(c.paper.runs.flatMap((r) => r.cells.map((x) => x.metric)))];
    const rows = c.paper.runs.flatMap((r) => {
      const by = new Map(r.cells.map((x) => [x.metric, x]));
      return [
        [`${r.label} (${r.row}, ${r.table})`, ...metrics.map((m) => (by.has(m) ? pct(by.get(m)!.yours) : '–'))],
        ['  paper', ...metrics.map((m) => (by.has(m) ? by.get(m)!.published.toFixed(2) : '–'))],
        ['  verdict', ...metrics.map((m) => by.get(m)?.verdict ?? '–')],
      ];
    });
    parts.push('<h2>Published results (paper)</h2>', table(['Run', ...metrics], rows));
  }
  parts.push(
    '<h2>History entries</h2>',
    table(
      ['Run', 'Entry', 'Finished', 'Results folder'],
      v.entries.map((e, i) => [c.rows[i]!.label, `#${e.id}`, e.finishedAt.slice(0, 19).replace('T', ' '), e.resultsDir]),
    ),
  );
  const hash = createHash('sha256').update(STYLE, 'utf8').digest('base64');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-${hash}'">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Leaderboard</title><style>${STYLE}</style></head>
<body>${parts.join('\n')}</body></html>
`;
}
