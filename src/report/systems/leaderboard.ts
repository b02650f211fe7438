/**
 * The leaderboard (api/history.ts) as terminal text, Markdown or JSON: the one comparison of the
 * runs (the same renderers as `compare`), the paper's verdicts and published rows when runs have
 * published counterparts, the main metric per major category, and which history entry each row is.
 * Rendering only.
 */
import type { HistoryEntry } from '../../history/store.js';
import type { ClaimVerdicts, PublishedTableView } from '../../paper/published-table.js';
import type { SystemsComparison } from '../../significance/systems.js';
import type { Tolerances } from '../../metrics/verdict.js';
import { escapeMd, mdTable } from '../markdown.js';
import { pct } from '../cells.js';
import { renderComparisonMarkdown } from './markdown.js';
import { renderComparisonJsonMany } from './json.js';
import { escapeTerminal, renderComparisonText, renderTextTable } from './text.js';
import { renderPublishedTables, renderVerdicts } from './verdicts.js';

/** What a leaderboard renderer is given (api/history.ts `Leaderboard`). */
export interface LeaderboardView {
  file: string;
  dataset: string;
  entries: HistoryEntry[];
  /** The one comparison of the runs (api/compare.ts `Comparison`: with the paper's verdicts). */
  comparison: SystemsComparison & { paper: { tolerances: Tolerances; runs: ClaimVerdicts[] } };
  published: { tolerances: Tolerances; tables: PublishedTableView[] } | undefined;
  categories: Record<string, number>[];
}

/** A model entry's short name: its preset or model. */
function modelOf(e: HistoryEntry): string {
  const names = ['first_stage', 'reranker'].flatMap((k) => {
    const m = e.models[k] as Record<string, unknown> | undefined;
    const n = m?.preset ?? m?.model ?? m?.type;
    return typeof n === 'string' ? [n] : [];
  });
  return names.join(' → ') || '–';
}

function categoryGrid(v: LeaderboardView): { header: string[]; rows: string[][] } | undefined {
  const groups = [...new Set(v.categories.flatMap((c) => Object.keys(c)))];
  if (groups.length < 2) return undefined;
  return { header: ['Run', ...groups], rows: v.comparison.rows.map((r, i) => [r.label, ...groups.map((g) => pct(v.categories[i]![g]))]) };
}

function entriesGrid(v: LeaderboardView): { header: string[]; rows: string[][] } {
  return { header: ['Run', 'Entry', 'Finished', 'Model', 'Results folder'], rows: v.entries.map((e, i) => [v.comparison.rows[i]!.label, `#${e.id}`, e.finishedAt.slice(0, 19).replace('T', ' '), modelOf(e), e.resultsDir]) };
}

const heading = (v: LeaderboardView) =>
  `${v.entries.length} run${v.entries.length === 1 ? '' : 's'} over dataset ${v.dataset.slice(0, 12)} (same dataset files and evaluation policy), ${v.comparison.queries} queries; best first by ${v.comparison.settings.mainKey}.`;

export function renderLeaderboardText(v: LeaderboardView): string {
  const text = (g: { header: string[]; rows: string[][] }, align: ('l' | 'r')[]) =>
    renderTextTable({ header: g.header.map((t) => ({ text: t, untrusted: true })), rows: g.rows.map((r) => r.map((t) => ({ text: t, untrusted: true }))), align, notes: [] }).join('\n');
  const out = [`Leaderboard: ${heading(v)}`, '', renderComparisonText(v.comparison, { details: false }).trimEnd()];
  if (v.comparison.paper.runs.length) out.push('', renderVerdicts(v.comparison.paper.runs, v.comparison.paper.tolerances, 'table').trimEnd());
  const cats = categoryGrid(v);
  if (cats) out.push('', `${escapeTerminal(v.comparison.settings.mainKey)} by major category:`, text(cats, ['l', ...cats.header.slice(1).map(() => 'r' as const)]));
  if (v.published) out.push('', renderPublishedTables(v.published.tables, v.published.tolerances, 'table').trimEnd());
  const e = entriesGrid(v);
  out.push('', `History entries (${escapeTerminal(v.file)}):`, text(e, ['l', 'r', 'l', 'l', 'l']));
  return out.join('\n') + '\n';
}

export function renderLeaderboardMarkdown(v: LeaderboardView): string {
  const md = (g: { header: string[]; rows: string[][] }, align: ('l' | 'r')[]) => mdTable(g.header.map(escapeMd), g.rows.map((r) => r.map(escapeMd)), align);
  const out = ['# Leaderboard\n', `${heading(v)}\n`, renderComparisonMarkdown(v.comparison)];
  if (v.comparison.paper.runs.length) out.push(renderVerdicts(v.comparison.paper.runs, v.comparison.paper.tolerances, 'md'));
  const cats = categoryGrid(v);
  if (cats) out.push(`## ${escapeMd(v.comparison.settings.mainKey)} by major category\n`, md(cats, ['l', ...cats.header.slice(1).map(() => 'r' as const)]));
  if (v.published) out.push('## Published results\n', renderPublishedTables(v.published.tables, v.published.tolerances, 'md'));
  out.push('## History entries\n', md(entriesGrid(v), ['l', 'r', 'l', 'l', 'l']));
  return out.join('\n');
}

export function renderLeaderboardJson(v: LeaderboardView): string {
  const comparison = JSON.parse(renderComparisonJsonMany(v.comparison)) as Record<string, unknown>;
  const value = {
    dataset: v.dataset,
    store: v.file,
    ...comparison,
    entries: v.entries.map((e, i) => ({ label: v.comparison.rows[i]!.label, id: e.id, finished_at: e.finishedAt, experiment: e.experiment, results_dir: e.resultsDir, models: e.models, tags: e.tags, categories: e.categories })),
    ...(v.comparison.paper.runs.length ? { paper: v.comparison.paper } : {}),
    ...(v.published ? { published: v.published.tables.map((t) => ({ id: t.table.id, source: t.table.source, columns: t.table.columns, rows: t.rows })) } : {}),
  };
  return JSON.stringify(value, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? null : x), 2) + '\n';
}
