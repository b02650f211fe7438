/**
 * Library verbs of the results history (src/history/): record a finished experiment's runs, list and
 * remove entries, recreate the store from results folders, and the leaderboard: the comparable runs
 * of one dataset (same dataset files and evaluation policy), the latest of each run unless `all`,
 * compared by the one comparison (api/compare.ts `compareRuns`: Δ, paired tests with correction,
 * W/T/L against the baseline, the column's best and its group) with the paper's published rows and
 * each run's per-category means beside it.
 */
import { resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import type { ReportInput } from '../formats/report-input.js';
import { readReportInput } from '../formats/report-input.js';
import type { RunFolder } from '../formats/results-reader.js';
import { historyEntries } from '../history/entries.js';
import { historyFile, HistoryStore, type HistoryEntry } from '../history/store.js';
import { mainKey } from '../metrics/measures.js';
import type { PublishedTableView } from '../paper/published-table.js';
import type { Tolerances } from '../metrics/verdict.js';
import { checkCompareOptions, compareRuns, publishedOf, type Comparison, type CompareOptions } from './compare.js';

/** Records the runs of a results folder (as values; tags from its manifest) in the history under `cacheDir`; the ids given. */
export async function recordRuns(input: ReportInput, cacheDir: string): Promise<{ ids: number[]; skipped: string[]; file: string }> {
  const file = historyFile(cacheDir);
  const { entries, skipped } = historyEntries(input);
  const ids = entries.length ? await HistoryStore.update(file, (s) => s.add(entries)) : [];
  return { ids, skipped, file };
}

/** Which entries a listing or a leaderboard takes. */
export interface HistoryFilter {
  /** A dataset fingerprint or a prefix of it (needed when the history holds several datasets). */
  dataset?: string;
  /** Entries whose experiment name is this. */
  experiment?: string;
  /** Entries with a model (first stage or reranker) whose name contains this. */
  model?: string;
  /** Entries recorded with this tag. */
  tag?: string;
  /** Entries finished on or after this date (ISO 8601, e.g. 2026-12-01). */
  since?: string;
}

function checkSince(since: string | undefined): void {
  if (since !== undefined && Number.isNaN(Date.parse(since))) throw new UserError(`--since: expected a date like 2026-12-01, got ${JSON.stringify(since)}`);
}

function modelNames(e: HistoryEntry): string[] {
  return Object.values(e.models).flatMap((m) => {
    const o = m as Record<string, unknown>;
    return [o.model, o.preset].filter((x): x is string => typeof x === 'string');
  });
}

export function filterEntries(entries: readonly HistoryEntry[], f: HistoryFilter): HistoryEntry[] {
  checkSince(f.since);
  const since = f.since !== undefined ? Date.parse(f.since) : undefined;
  return entries.filter(
    (e) =>
      (f.dataset === undefined || e.dataset.startsWith(f.dataset)) &&
      (f.experiment === undefined || e.experiment === f.experiment) &&
      (f.model === undefined || modelNames(e).some((m) => m.includes(f.model!))) &&
      (f.tag === undefined || e.tags.includes(f.tag)) &&
      (since === undefined || Date.parse(e.finishedAt) >= since),
  );
}

/** The history's entries (oldest first) that pass `f`. */
export async function listHistory(cacheDir: string, f: HistoryFilter = {}): Promise<{ file: string; entries: HistoryEntry[] }> {
  const file = historyFile(cacheDir);
  const s = await HistoryStore.open(file);
  try {
    return { file, entries: filterEntries(s.list(), f) };
  } finally {
    s.close();
  }
}

/** Removes entries by id; UserError naming the ids that are not there (nothing is removed then). */
export async function removeHistory(cacheDir: string, ids: readonly number[]): Promise<number[]> {
  const file = historyFile(cacheDir);
  return HistoryStore.update(file, (s) => {
    const there = new Set(s.list().map((e) => e.id));
    const missing = ids.filter((id) => !there.has(id));
    if (missing.length) throw new UserError(`history remove: no entry ${missing.join(', ')} in ${file}`);
    return s.remove(ids);
  });
}

/** Recreates the history from results folders (every entry before is dropped). */
export async function rebuildHistory(cacheDir: string, paths: readonly string[]): Promise<{ file: string; entries: number; skipped: string[] }> {
  if (paths.length === 0) throw new UserError('--rebuild: name the results folders to recreate the history from');
  const input = await readReportInput(paths);
  const { entries, skipped } = historyEntries(input);
  const file = historyFile(cacheDir);
  await HistoryStore.update(file, (s) => {
    s.clear();
    s.add(entries);
  });
  return { file, entries: entries.length, skipped };
}

export interface LeaderboardOptions extends HistoryFilter, Pick<CompareOptions, 'test' | 'correction' | 'alpha' | 'seed' | 'iterations' | 'commonQueries' | 'okWithin' | 'closeWithin'> {
  /** Every entry, not only the latest of each run (labels then end in `#<id>`). */
  all?: boolean;
  /** The run every other is compared with: a label (`exp: bm25/none`), a suffix of one (`bm25/none`) or `#<id>`. Default: the only BM25 run without a reranker, else the best. */
  baseline?: string;
}

export interface Leaderboard {
  file: string;
  dataset: string;
  /** The entries of the rows, best first by the main metric. */
  entries: HistoryEntry[];
  comparison: Comparison;
  /** The paper's published tables the runs reproduce (none when no run has a published counterpart). */
  published: { tolerances: Tolerances; tables: PublishedTableView[] } | undefined;
  /** Per row: main metric per major category. */
  categories: Record<string, number>[];
}

const labelOf = (e: HistoryEntry, all: boolean) => `${e.experiment}: ${e.retriever}/${e.reranker}${all ? ` #${e.id}` : ''}`;

const mean = (e: HistoryEntry, key: string): number => {
  const m = (e.metricsJson.metrics as Record<string, unknown> | undefined)?.[key];
  return typeof m === 'number' ? m : Number.NEGATIVE_INFINITY;
};

function pickBaseline(entries: readonly HistoryEntry[], labels: readonly string[], name: string | undefined): number {
  if (name === undefined) {
    const bm25 = entries.flatMap((e, i) => ((e.models.first_stage as { type?: unknown } | undefined)?.type === 'bm25' && e.reranker === 'none' ? [i] : []));
    return bm25.length === 1 ? bm25[0]! : 0;
  }
  const id = /^#(\d+)$/.exec(name);
  const at = id ? entries.findIndex((e) => e.id === Number(id[1])) : labels.findIndex((l) => l === name);
  if (at >= 0) return at;
  const suffix = labels.flatMap((l, i) => (l.endsWith(name) ? [i] : []));
  if (suffix.length === 1) return suffix[0]!;
  throw new UserError(`--baseline: ${suffix.length > 1 ? 'more than one run is' : 'no run on the leaderboard is'} ${JSON.stringify(name)} (runs: ${labels.map((l) => JSON.stringify(l)).join(', ')})`);
}

/** The leaderboard of the history under `cacheDir` (see the module comment). */
export async function leaderboardOf(cacheDir: string, o: LeaderboardOptions = {}): Promise<Leaderboard> {
  checkCompareOptions(o);
  checkSince(o.since);
  const file = historyFile(cacheDir);
  const s = await HistoryStore.open(file);
  try {
    const all = filterEntries(s.list(), o);
    if (all.length === 0) throw new UserError(`leaderboard: no run in ${file} matches (record runs with \`skillret-eval run\`, or recreate the history with \`leaderboard --rebuild <results folders>\`)`);
    const datasets = [...new Set(all.map((e) => e.dataset))];
    if (datasets.length > 1) {
      const list = datasets.map((d) => `${d.slice(0, 12)} (${[...new Set(all.filter((e) => e.dataset === d).map((e) => e.experiment))].join(', ')})`);
      throw new UserError(`--dataset: the matching runs are over ${datasets.length} different datasets, choose one: ${list.join('; ')}`);
    }
    // The latest entry of each run, unless all are asked for.
    const latest = new Map<string, HistoryEntry>();
    for (const e of all) latest.set(o.all ? String(e.id) : labelOf(e, false), e);
    const first = [...latest.values()][0]!;
    const key = mainKey(Object.keys((first.metricsJson.metrics as Record<string, unknown> | undefined) ?? {}).length ? Object.keys(first.metricsJson.metrics as object) : ['NDCG@10']);
    const entries = [...latest.values()].sort((a, b) => mean(b, key) - mean(a, key) || a.id - b.id);
    const labels = entries.map((e) => labelOf(e, o.all === true));
    const runs: RunFolder[] = entries.map((e, i) => {
      const { records, line } = s.records(e.id);
      const firstRecord = records.values().next();
      return {
        file: `${file}#${e.id}`,
        dir: resolve(e.resultsDir, e.retriever, e.reranker),
        label: labels[i]!,
        retriever: e.retriever,
        reranker: e.reranker,
        experiment: e.experiment,
        metricsJson: e.metricsJson,
        resultsDir: e.resultsDir,
        records,
        line,
        firstKeys: firstRecord.done ? [] : Object.keys(firstRecord.value.metrics),
      };
    });
    const baseline = pickBaseline(entries, labels, o.baseline);
    const { all: _all, baseline: _b, dataset: _d, experiment: _e, model: _m, tag: _t, since: _s, ...compareOptions } = o;
    const comparison = await compareRuns(runs, { ...compareOptions, baseline: labels[baseline]! });
    let published: Leaderboard['published'];
    if (comparison.paper.runs.length > 0) {
      const p = publishedOf(runs, o);
      published = { tolerances: p.tolerances, tables: p.tables };
    }
    return { file, dataset: datasets[0]!, entries, comparison, published, categories: entries.map((e) => e.categories) };
  } finally {
    s.close();
  }
}
