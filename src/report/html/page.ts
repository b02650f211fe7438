/**
 * The self-contained report.html: one file with its style, script, data and charts inlined, opened
 * from disk with no network. A Content-Security-Policy meta tag allows nothing to load (default-src
 * 'none') and only this page's own script and style, by their SHA-256 hashes, so even injected markup
 * could neither run nor fetch. Every untrusted text (run labels, query and skill texts, categories,
 * ids) is HTML-escaped here or set as text by the client script; the explorer data sits in a JSON
 * data block with `<` escaped. Rendering only: every number arrives in the ReportModel.
 */
import { createHash } from 'node:crypto';
import { formatFixed, formatPercentDelta } from '../../metrics/round.js';
import { mainTable, methodNotes, type Cell } from '../systems/model.js';
import { atKSpec, onOffSpec, renderSvg, sliceSpec, type SvgRenderer } from './charts.js';
import { CLIENT_SCRIPT } from './client.js';
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

function cellHtml(c: Cell, sortValue?: number): string {
  const t = escapeHtml(c.text);
  const marks = (c.marks ?? []).map((m) => (m === 'sig' ? '<sup title="differs from the baseline">*</sup>' : '<sup title="not separable from the best">†</sup>')).join('');
  const v = sortValue !== undefined && Number.isFinite(sortValue) ? ` data-v="${sortValue}"` : '';
  return `<td${v}${c.bold ? ' class="best"' : ''}>${c.bold ? `<strong>${t}</strong>` : t}${marks}</td>`;
}

function comparisonSection(m: ReportModel): string {
  const c = m.comparison;
  const t = mainTable(c);
  const keys = c.settings.keys;
  const rows = t.rows.map((cells, i) => {
    const r = c.rows[i]!;
    const v = r.vsBaseline?.[c.settings.mainKey];
    const sortVals = [undefined, ...keys.map((k) => r.means[k]), v?.delta, v ? v.wins - v.losses : undefined];
    return `<tr>${cells.map((cell, j) => (j === 0 ? `<th scope="row">${escapeHtml(cell.text)}</th>` : cellHtml(cell, sortVals[j]))).join('')}</tr>`;
  });
  return `<section id="comparison"><h2>Comparison</h2>
<div class="scroll"><table class="sortable" id="comparison-table"><thead><tr>${t.header.map((h) => `<th scope="col">${escapeHtml(h.text)}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
<div class="notes">${methodNotes(c, (s) => s).map((n) => `<p>${escapeHtml(n)}</p>`).join('')}<p>Click a column header to sort.</p></div></section>`;
}

async function chartsSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.atK.length === 0) return '';
  return `<section id="charts"><h2>Metrics at k</h2><figure class="chart" id="chart-at-k">${await svg(atKSpec(m.atK))}</figure></section>`;
}

async function onOffSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.onOff.length === 0) return '';
  const parts: string[] = [];
  for (const v of m.onOff) {
    const keys = new Set(m.comparison.settings.keys);
    const rows = v.metrics
      .filter((x) => keys.has(x.key))
      .map((x) => `<tr><th scope="row">${escapeHtml(x.key)}</th><td>${pct(x.base)}</td><td>${pct(x.treated)}</td><td>${formatPercentDelta(x.base, x.treated)}</td><td>${pval(x.pRandomization)}</td><td>${pval(x.pT)}</td></tr>`)
      .join('');
    const ceil = Object.entries(v.ceiling).map(([k, x]) => `${escapeHtml(k)} ${pct(x)}`).join(', ');
    parts.push(`<div class="onoff"><h3>${escapeHtml(v.label)} <span class="muted">vs ${escapeHtml(v.versus)}, depth ${v.depth}</span></h3>
<p class="counts">By ${escapeHtml(v.key)}: <span class="helped">helped ${v.counts.helped}</span>, <span class="hurt">hurt ${v.counts.hurt}</span>, unchanged ${v.counts.unchanged}. Ceiling (first stage at depth ${v.depth}): ${ceil || '–'}.</p>
<figure class="chart">${await svg(onOffSpec(v))}</figure>
<table class="sortable"><thead><tr><th>Metric</th><th>Off</th><th>On</th><th>Δ</th><th>p (rand.)</th><th>p (t)</th></tr></thead><tbody>${rows}</tbody></table></div>`);
  }
  return `<section id="onoff"><h2>Reranker on/off</h2><p class="muted">Each reranked run against the same first stage without a reranker, per query (paired); ×100.</p>${parts.join('\n')}</section>`;
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
<figure class="chart">${await svg(sliceSpec(s))}</figure>${sliceOnOffTable(s)}</div>`);
  }
  return `<section id="slices"><h2>Slices</h2>${parts.join('\n')}</section>`;
}

async function injectionSection(m: ReportModel, svg: SvgRenderer): Promise<string> {
  if (m.injection.length === 0) return '';
  const target = m.injection[0]!.target;
  const rows = m.injection
    .map((v) => `<tr><th scope="row">${escapeHtml(v.label)}</th><td>${v.minK ?? 'not reached'}</td><td>${v.minBudget ?? 'not reached'}</td></tr>`)
    .join('');
  return `<section id="injection"><h2>Operating points for skill injection</h2><p class="muted">Completeness (every gold skill injected) when an agent injects the top-K skills, skills within a context budget (cl100k_base tokens of SKILL.md, in rank order while they fit), or skills above a score threshold; from each run's operating-points.json.</p>
<figure class="chart" id="chart-injection-k">${await svg(topKCurveSpec(m.injection))}</figure>
<figure class="chart" id="chart-injection-budget">${await svg(budgetCurveSpec(m.injection))}</figure>
<figure class="chart" id="chart-injection-threshold">${await svg(thresholdCurveSpec(m.injection))}</figure>
<table class="sortable"><thead><tr><th>Run</th><th>Smallest K for ${formatFixed(100 * target, 0)}%</th><th>Smallest budget for ${formatFixed(100 * target, 0)}%</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

function explorerSection(m: ReportModel): string {
  return `<section id="explorer"><h2>Queries</h2>
<div class="controls"><label>Show <select id="q-filter"></select></label> <label>Search <input id="q-search" type="search" placeholder="query text, id or skill name"></label> <span id="q-count"></span></div>
<div id="q-list"></div><button type="button" id="q-more" hidden>Show more</button>
<script type="application/json" id="explorer-data">${jsonForScript(m.explorer)}</script></section>`;
}

/** The page; `svg` renders each chart (default: `renderSvg`, no cache). */
export async function renderReportHtml(m: ReportModel, svg: SvgRenderer = renderSvg): Promise<string> {
  const body = [
    `<header><h1>${escapeHtml(m.title)}</h1>${m.description ? `<p>${escapeHtml(m.description)}</p>` : ''}<p class="muted">${plural(m.comparison.queries, 'query', 'queries')}, ${plural(m.comparison.rows.length, 'run')}. Written by skillret-eval from the results files; opens offline.</p>
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
