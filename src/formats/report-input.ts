/**
 * Everything an HTML report shows, read from results files only: the runs of the named results
 * folders (formats/results-reader.ts), each folder's manifest.json, queries.jsonl and skills.jsonl
 * (report/explorer-files.ts), and each run's breakdown.json. Missing optional files leave their part
 * of the report empty (a results folder from an older version has no queries.jsonl: the explorer then
 * shows query ids only).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { collectRuns, readManifest, type RunFolder } from './results-reader.js';
import { readExplorerFiles, type QueryInfo, type SkillInfo } from './explorer-files.js';

export type { QueryInfo, SkillInfo };
import { readInsight, type RunInsightFiles } from './insight-files.js';

export interface ReportRun extends RunFolder {
  /** Its breakdown.json, when present. */
  breakdown?: Record<string, unknown>;
  /** Its operating-points.json and explain.jsonl, when present (insight.ts). */
  insight?: RunInsightFiles;
}

export interface ReportInput {
  /** The results folders named (for the title). */
  folders: { dir: string; name: string; manifest?: Record<string, unknown> }[];
  runs: ReportRun[];
  queries: Map<string, QueryInfo>;
  skills: Map<string, SkillInfo>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export async function readReportInput(paths: readonly string[]): Promise<ReportInput> {
  const runs: ReportRun[] = await collectRuns(paths);
  const queries = new Map<string, QueryInfo>();
  const skills = new Map<string, SkillInfo>();
  const folders: ReportInput['folders'] = [];
  const seen = new Set<string>();
  for (const r of runs) {
    r.insight = readInsight(r.label, r.dir);
    const bf = join(r.dir, 'breakdown.json');
    if (existsSync(bf)) {
      const v = JSON.parse(await readFile(bf, 'utf8')) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) r.breakdown = v as Record<string, unknown>;
    }
    const dir = r.resultsDir;
    if (dir === undefined || seen.has(dir)) continue;
    seen.add(dir);
    const manifest = await readManifest(dir);
    const name = str((manifest?.config as { resolved?: { name?: unknown } } | undefined)?.resolved?.name) ?? r.experiment ?? dir;
    folders.push({ dir, name, ...(manifest ? { manifest } : {}) });
    await readExplorerFiles(dir, queries, skills);
  }
  return { folders, runs, queries, skills };
}
