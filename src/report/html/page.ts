/**
 * The self-contained report.html: one file with its style, script, data and charts inlined, opened
 * from disk with no network. A Content-Security-Policy meta tag allows nothing to load (default-src
 * 'none') and only this page's own script and style, by their SHA-256 hashes, so even injected markup
 * could neither run nor fetch. Every untrusted text (run labels, query and skill texts, categories,
 * ids) is HTML-escaped here or set as text by the client script; the explorer data sits in a JSON
 * data block with `<` escaped, its per-query columns compressed (explorer-data.ts). Rendering only:
 * every number arrives in the ReportModel.
 *
 * Layout: the page fits a column of at most 1200 px. The comparison table scrolls sideways inside
 * its own box, its run labels stay in a sticky first column and Δ and W/T/L of the main metric come
 * right after them; charts keep a bounded width (slices grow in height) and their legends are HTML
 * lists under them (short labels that stay distinct, labels.ts, the full label on hover).
 */
import { createHash } from 'node:crypto';
import { formatPercentDelta } from '../../metrics/official-percent.js';
import { formatFixed } from '../../util/python-round.js';
import { mainTable, methodNotes, type Cell } from '../systems/model.js';
import { atKSpec, onOffSpec, renderSvg, runColors, sliceSpec, type SvgRenderer } from './charts.js';
import { droppedPrefix, shortLabels } from './labels.js';
import { CLIENT_SCRIPT } from './client.js';
import { explorerBlock } from './explorer-data.js';
import type { ReportModel } from '../../analysis/report-view.js';
import { STYLE } from './style.js';
import { explainSectionHtml } from './insight.js';
import { budgetCurveSpec, thresholdCurveSpec, topKCurveSpec } from './insight-charts.js';
import { pct, pval } from '../cells.js';
import { plural } from '../../util/plural.js';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON for a `<script type="application/json">` block: no `<`, `>`, `&` or line separators left raw. */
export function jsonForScript(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64');

/** ` data-v="…"`: a cell's value for sorting, when it is a finite number. */
const dataV = (v: number | null | undefined) => (v !== undefined && v !== null && Number.isFinite(v) ? ` data-v="${v}"` : '');

function cellHtml(c: Cell, sortValue?: number): string {
  const t = escapeHtml(c.text);
  const marks = (c.marks ?? []).map((m) => (m === 'sig' ? '<sup title="differs from the baseline">*</sup>' : '<sup title="not separable from the best">†</sup>')).join('');
  return `<td${dataV(sortValue)}${c.bold ? ' class="best"' : ''}>${c.bold ? `<strong>${t}</strong>` : t}${marks}</td>`;
}

/** The first click on a header sorts best first: this direction (client.ts `nextSortDirection`). */
type First = 'ascending' | 'descending';
const th = (text: string, first: First, attrs = '') => `<th scope="col" data-first="${first}"${attrs}>${escapeHtml(text)}</th>`;

/**
 * The comparison table's column order: the run, then Δ and W/T/L of the main metric (the columns one
 * compares with, so they are on screen whatever the number of metrics), then the means. Indices into
 * `mainTable`'s columns (run, the means, Δ, W/T/L).
 */
export function comparisonColumnOrder(metrics: number): number[] {
  return [0, metrics + 1, metrics + 2, ...Array.from({ length: metrics }, (_, i) => i + 1)];
}

function comparisonSection(m: ReportModel): string {
  const c = m.comparison;
  const t = mainTable(c);
  const keys = c.settings.keys;
  const order = comparisonColumnOrder(keys.length);
  const rows = t.rows.map((cells, i) => {
    const r = c.rows[i]!;
    const v = r.vsBaseline?.[c.settings.mainKey];
    const sortVals = [undefined, ...keys.map((k) => r.means[k]), v?.delta, v ? v.wins - v.losses : undefined];
    return `<tr>${order.map((j) => (j === 0 ? `<th scope="row">${escapeHtml(cells[0]!.text)}</th>` : cellHtml(cells[j]!, sortVals[j]))).join('')}</tr>`;
  });
  const head = order.map((j) => th(t.header[j]!.text, j === 0 ? 'ascending' : 'descending', j === keys.length + 2 ? ' title="wins/ties/losses per query; sorts by wins − losses"' : '')).join('');
  return `<section id="comparison"><h2>Comparison</h2>
<div class="scroll"><table class="sortable" id="comparison-table"><thead><tr>${head}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
<div class="notes">${methodNotes(c, (s) => s).map((n) => `<p>${escapeHtml(n)}</p>`).join('')}<p>${SORT_NOTE}</p></div></section>`;
}

/** How the tables sort, under each sortable table that needs saying. */
const SORT_NOTE = 'Click a column header to sort, best first: means, Δ and W/T/L (by wins − losses) descending; p-values, K and budgets ascending; names A–Z. Click again to reverse. Rows without a value stay last.';

/** The report's runs in order (the comparison's rows): the order of the colours and legends. */
const runsOfModel = (m: ReportModel) => m.comparison.rows.map((r) => r.label);

/**
 * A chart's legend as an HTML list (it wraps to the column, so no label is cut): the colour of each
 * of `shown` (the runs the chart draws, in the report's order) and its short label (labels.ts, the
 * same for a run in every chart), its full label on hover.
 */
function legendHtml(m: ReportModel, shown: Iterable<string>): string {
  const runs = runsOfModel(m);
  const colors = runColors(runs);
  const short = shortLabels(runs);
  const want = new Set(shown);
  const items = runs
    .map((run, i) => (want.has(run) ? `<li title="${escapeHtml(run)}"><svg class="swatch" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><rect width="12" height="12" fill="${colors[i]}"/></svg>${escapeHtml(short[i]!)}</li>` : ''))
    .join('');
  return items ? `<ul class="legend" aria-label="runs">${items}</ul>` : '';
}

/** Said once, in the header, when the legends leave out the start all run labels share. */
function legendNote(m: ReportModel): string {
  const prefix = droppedPrefix(runsOfModel(m));
  return prefix ? ` Chart legends leave out the start all run labels share: … stands for <code>${escapeHtml(prefix)}</code> (hover a legend label for all of it).` : '';
}

async function chartsSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.atK.length === 0) return '';
  return `<section id="charts"><h2>Metrics at k</h2><figure class="chart" id="chart-at-k">${await svg(atKSpec(m.atK, runsOfModel(m)))}${legendHtml(m, m.atK.map((p) => p.run))}</figure></section>`;
}

async function onOffSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.onOff.length === 0) return '';
  const parts: string[] = [];
  for (const v of m.onOff) {
    const keys = new Set(m.comparison.settings.keys);
    const rows = v.metrics
      .filter((x) => keys.has(x.key))
      .map((x) => `<tr><th scope="row">${escapeHtml(x.key)}</th><td${dataV(x.base)}>${pct(x.base)}</td><td${dataV(x.treated)}>${pct(x.treated)}</td><td${dataV(x.treated - x.base)}>${formatPercentDelta(x.base, x.treated)}</td><td${dataV(x.pRandomization)}>${pval(x.pRandomization)}</td><td${dataV(x.pT)}>${pval(x.pT)}</td></tr>`)
      .join('');
    const ceil = Object.entries(v.ceiling).map(([k, x]) => `${escapeHtml(k)} ${pct(x)}`).join(', ');
    parts.push(`<div class="onoff"><h3>${escapeHtml(v.label)} <span class="muted">vs ${escapeHtml(v.versus)}, depth ${v.depth}</span></h3>
<p class="counts">By ${escapeHtml(v.key)}: <span class="helped">helped ${v.counts.helped}</span>, <span class="hurt">hurt ${v.counts.hurt}</span>, unchanged ${v.counts.unchanged}. Ceiling (first stage at depth ${v.depth}): ${ceil || '–'}.</p>
<figure class="chart">${await svg(onOffSpec(v))}</figure>
<div class="scroll"><table class="sortable"><thead><tr>${th('Metric', 'ascending')}${th('Off', 'descending')}${th('On', 'descending')}${th('Δ', 'descending')}${th('p (rand.)', 'ascending')}${th('p (t)', 'ascending')}</tr></thead><tbody>${rows}</tbody></table></div></div>`);
  }
  return `<section id="onoff"><h2>Reranker on/off</h2><p class="muted">Each reranked run against the same first stage without a reranker, per query (paired); ×100. ${SORT_NOTE}</p>${parts.join('\n')}</section>`;
}

function auditSection(m: ReportModel): string {
  if (m.audits.length === 0) return '';
  const oks = Object.keys(m.audits[0]!.overlap);
  const dks = Object.keys(m.audits[0]!.delta).filter((k) => /^(NDCG|Recall|Completeness)@/.test(k));
  const rows = m.audits
    .map((a) => `<tr><th scope="row">${escapeHtml(a.label)}</th>${oks.map((k) => `<td>${formatFixed(a.overlap[k] ?? NaN, 4)}</td>`).join('')}${dks.map((k) => `<td>${formatPercentDelta(0, a.delta[k] ?? NaN)}</td>`).join('')}</tr>`)
    .join('');
  return `<section id="audit"><h2>HNSW audit (approximate vs exact top-k)</h2>
<div class="scroll"><table><thead><tr><th>Run</th>${oks.map((k) => `<th>overlap@${escapeHtml(k)}</th>`).join('')}${dks.map((k) => `<th>Δ ${escapeHtml(k)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

/** Reranker on − off inside each group of a slice: Δ ×100 (helped/hurt), * where Holm's p < 0.05. */
function sliceOnOffTable(s: ReportModel['slices'][number]): string {
  if (s.onOff.length === 0) return '';
  const runs = [...new Set(s.onOff.map((x) => x.run))];
  const rows = runs
    .map((run) => {
      const cells = s.groups.map((g) => {
        const x = s.onOff.find((v) => v.run === run && v.group === g.name);
        return `<td>${x ? `${escapeHtml(formatPercentDelta(x.base, x.treated))}${x.pHolm < 0.05 ? '*' : ''} (${x.helped}/${x.hurt})` : '–'}</td>`;
      });
      return `<tr><th scope="row">${escapeHtml(run)}</th>${cells.join('')}</tr>`;
    })
    .join('');
  return `<p class="muted">Reranker on − off inside each group (Δ ${escapeHtml(s.key)} ×100, helped/hurt queries; * p &lt; 0.05 after Holm over the groups):</p>
<div class="scroll"><table><thead><tr><th>Run</th>${s.groups.map((g) => `<th>${escapeHtml(g.name)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

async function slicesSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.slices.length === 0) return '';
  const parts: string[] = [];
  for (const s of m.slices) {
    parts.push(`<div class="slice"><h3>By ${escapeHtml(s.name)}</h3>${s.note ? `<p class="muted">${escapeHtml(s.note)}</p>` : ''}
<p class="muted">${s.groups.map((g) => `${escapeHtml(g.name)} (${g.queries})`).join(', ')}</p>
<figure class="chart">${await svg(sliceSpec(s, runsOfModel(m)))}${legendHtml(m, s.values.map((v) => v.run))}</figure>${sliceOnOffTable(s)}</div>`);
  }
  return `<section id="slices"><h2>Slices</h2>${parts.join('\n')}</section>`;
}

async function injectionSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.injection.length === 0) return '';
  const target = m.injection[0]!.target;
  const runs = runsOfModel(m);
  const legend = legendHtml(m, m.injection.map((v) => v.label));
  const rows = m.injection
    .map((v) => `<tr><th scope="row">${escapeHtml(v.label)}</th><td${dataV(v.minK)}>${v.minK ?? 'not reached'}</td><td${dataV(v.minBudget)}>${v.minBudget ?? 'not reached'}</td></tr>`)
    .join('');
  return `<section id="injection"><h2>Operating points for skill injection</h2><p class="muted">Completeness (every gold skill injected) when an agent injects the top-K skills, skills within a context budget (cl100k_base tokens of SKILL.md, in rank order while they fit), or skills above a score threshold; from each run's operating-points.json.</p>
<figure class="chart" id="chart-injection-k">${await svg(topKCurveSpec(m.injection, runs))}${legend}</figure>
<figure class="chart" id="chart-injection-budget">${await svg(budgetCurveSpec(m.injection, runs))}${legend}</figure>
<figure class="chart" id="chart-injection-threshold">${await svg(thresholdCurveSpec(m.injection, runs))}${legend}</figure>
<div class="scroll"><table class="sortable"><thead><tr>${th('Run', 'ascending')}${th(`Smallest K for ${formatFixed(100 * target, 0)}%`, 'ascending')}${th(`Smallest budget for ${formatFixed(100 * target, 0)}%`, 'ascending')}</tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function explorerSection(m: ReportModel): string {
  return `<section id="explorer"><h2>Queries</h2>
<div class="controls"><label>Show <select id="q-filter"></select></label> <label>Search <input id="q-search" type="search" placeholder="query text, id or skill name"></label> <span id="q-count"></span></div>
<div id="q-list"></div><button type="button" id="q-more" hidden>Show more</button>
<script type="application/json" id="explorer-data">${jsonForScript(explorerBlock(m.explorer))}</script></section>`;
}

/** The page; `svg` renders each chart (default: `renderSvg`, no cache). */
export async function renderReportHtml(m: ReportModel, svg: SvgRenderer = renderSvg): Promise<string> {
  const body = [
    `<header><h1>${escapeHtml(m.title)}</h1>${m.description ? `<p>${escapeHtml(m.description)}</p>` : ''}<p class="muted">${plural(m.comparison.queries, 'query', 'queries')}, ${plural(m.comparison.rows.length, 'run')}. Written by skillret-eval from the results files; opens offline.${legendNote(m)}</p>
<nav><a href="#comparison">Comparison</a> <a href="#charts">Metrics at k</a> <a href="#onoff">Reranker on/off</a> <a href="#audit">HNSW audit</a> <a href="#slices">Slices</a> <a href="#injection">Skill injection</a> <a href="#explain">Signal</a> <a href="#explorer">Queries</a></nav></header>`,
    comparisonSection(m),
    await chartsSection(m, svg),
    await onOffSection(m, svg),
    auditSection(m),
    await slicesSection(m, svg),
    await injectionSection(m, svg),
    explainSectionHtml(m.explain, (id) => m.explorer.skills[id]?.name ?? ''),
    explorerSection(m),
  ].filter((x) => x !== '');
  const csp = `default-src 'none'; script-src 'sha256-${sha256(CLIENT_SCRIPT)}'; style-src 'sha256-${sha256(STYLE)}'; img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(m.title)} · skillret-eval report</title>
<style>${STYLE}</style>
</head>
<body>
${body.join('\n')}
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}
