/**
 * `skillret-eval leaderboard`: the comparable runs of the results history (api/history.ts) as a
 * terminal table, Markdown, HTML or JSON (`--out FILE` writes it, the format from the extension
 * unless --format says); `--rebuild <results folders>` recreates the history from them first.
 * `skillret-eval history`: lists entries, or removes them (`--remove ID…`).
 */
import { extname } from 'node:path';
import { UserError } from '../core/errors.js';
import { checkOutFolder } from '../api/compare.js';
import { leaderboardOf, listHistory, rebuildHistory, removeHistory, type HistoryFilter, type LeaderboardOptions } from '../api/history.js';
import { renderLeaderboardJson, renderLeaderboardMarkdown, renderLeaderboardText } from '../report/systems/leaderboard.js';
import { renderLeaderboardHtml } from '../report/html/leaderboard.js';
import { escapeTerminal } from '../report/systems/text.js';
import { pct } from '../report/cells.js';
import { mainKey } from '../metrics/measures.js';
import { writeFileAtomic } from '../util/atomic.js';
import { defaultCacheDir } from '../util/paths.js';

export const LEADERBOARD_FORMATS = ['table', 'md', 'html', 'json'] as const;
export type LeaderboardFormat = (typeof LEADERBOARD_FORMATS)[number];

export interface LeaderboardCommandOptions extends LeaderboardOptions {
  cacheDir?: string;
  format?: LeaderboardFormat;
  out?: string;
  /** Results folders to recreate the history from before the leaderboard is made. */
  rebuild?: string[];
}

function formatOf(o: LeaderboardCommandOptions): LeaderboardFormat {
  if (o.format !== undefined) {
    if (!LEADERBOARD_FORMATS.includes(o.format)) throw new UserError(`--format: expected one of ${LEADERBOARD_FORMATS.join(', ')}, got ${JSON.stringify(o.format)}`);
    return o.format;
  }
  const ext = o.out !== undefined ? extname(o.out).toLowerCase() : '';
  return ext === '.md' ? 'md' : ext === '.html' || ext === '.htm' ? 'html' : ext === '.json' ? 'json' : 'table';
}

export async function leaderboardCommand(o: LeaderboardCommandOptions): Promise<string> {
  const format = formatOf(o);
  checkOutFolder(o.out, o.rebuild ?? []);
  const cacheDir = o.cacheDir ?? defaultCacheDir();
  const { cacheDir: _c, format: _f, out, rebuild, ...rest } = o;
  let note = '';
  if (rebuild !== undefined) {
    const r = await rebuildHistory(cacheDir, rebuild);
    note = `history recreated: ${r.entries} runs from ${rebuild.length} folder${rebuild.length === 1 ? '' : 's'}${r.skipped.length ? ` (left out, no dataset files in metrics.json: ${r.skipped.join(', ')})` : ''}\n`;
  }
  const v = await leaderboardOf(cacheDir, rest);
  const text = format === 'md' ? renderLeaderboardMarkdown(v) : format === 'html' ? renderLeaderboardHtml(v) : format === 'json' ? renderLeaderboardJson(v) : renderLeaderboardText(v);
  if (out === undefined) return escapeTerminal(note) + text;
  writeFileAtomic(out, text);
  return `${escapeTerminal(note)}wrote ${out} (${v.entries.length} runs, ${v.comparison.queries} queries)\n`;
}

export interface HistoryCommandOptions extends HistoryFilter {
  cacheDir?: string;
  remove?: string[];
  format?: 'table' | 'json';
}

export async function historyCommand(o: HistoryCommandOptions): Promise<string> {
  const cacheDir = o.cacheDir ?? defaultCacheDir();
  if (o.remove !== undefined) {
    const ids = o.remove.map((x) => {
      const m = /^#?(\d+)$/.exec(x.trim());
      if (!m) throw new UserError(`--remove: expected entry ids like 12 or #12, got ${JSON.stringify(x)}`);
      return Number(m[1]);
    });
    const gone = await removeHistory(cacheDir, ids);
    return `removed ${gone.length} entr${gone.length === 1 ? 'y' : 'ies'}: ${gone.map((id) => `#${id}`).join(', ')}\n`;
  }
  const { file, entries } = await listHistory(cacheDir, o);
  if (o.format === 'json') return JSON.stringify({ store: file, entries }, null, 2) + '\n';
  if (entries.length === 0) return `no runs in ${escapeTerminal(file)} match\n`;
  const rows = entries.map((e) => {
    const metrics = (e.metricsJson.metrics as Record<string, unknown> | undefined) ?? {};
    const keys = Object.keys(metrics);
    const key = keys.length > 0 ? mainKey(keys) : undefined;
    const m = key === undefined ? undefined : metrics[key];
    return [`#${e.id}`, e.finishedAt.slice(0, 19).replace('T', ' '), e.dataset.slice(0, 12), `${e.experiment}: ${e.retriever}/${e.reranker}`, key === undefined || typeof m !== 'number' ? '–' : `${key} ${pct(m)}`, e.tags.join(',')];
  });
  const header = ['Entry', 'Finished', 'Dataset', 'Run', 'Main metric', 'Tags'];
  const widths = header.map((h, j) => Math.max(h.length, ...rows.map((r) => [...escapeTerminal(r[j]!)].length)));
  const line = (r: string[]) => r.map((x, j) => escapeTerminal(x).padEnd(widths[j]!)).join('  ').trimEnd();
  return [`${entries.length} run${entries.length === 1 ? '' : 's'} in ${escapeTerminal(file)}:`, line(header), ...rows.map(line)].join('\n') + '\n';
}
