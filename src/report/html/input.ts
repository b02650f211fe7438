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
import { UserError, where } from '../../core/errors.js';
import { collectRuns, readManifest, type RunFolder } from '../../formats/results-reader.js';
import { QUERIES_FILE, SKILLS_FILE } from '../explorer-files.js';
import { readInsight, type RunInsightFiles } from './insight.js';

export interface QueryInfo {
  id: string;
  query: string;
  generatorModel?: string;
  gold: string[];
}

export interface SkillInfo {
  id: string;
  name: string;
  major?: string;
  sub?: string;
  sourceUrl?: string;
}

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

async function readJsonl(file: string, each: (rec: Record<string, unknown>, line: number) => void): Promise<void> {
  const text = await readFile(file, 'utf8');
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw new UserError(`${where(file, i + 1)}invalid JSON (${(e as Error).message.replace(/\s+/g, ' ')})`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UserError(`${where(file, i + 1)}expected a JSON object`);
    each(v as Record<string, unknown>, i + 1);
  });
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
    const qf = join(dir, QUERIES_FILE);
    if (existsSync(qf)) {
      await readJsonl(qf, (rec, line) => {
        const id = str(rec.id);
        if (id === undefined) throw new UserError(`${where(qf, line, 'id')}expected a string`);
        const gold = Array.isArray(rec.gold) ? rec.gold.filter((x): x is string => typeof x === 'string') : [];
        const gm = str(rec.generator_model);
        if (!queries.has(id)) queries.set(id, { id, query: str(rec.query) ?? '', ...(gm !== undefined ? { generatorModel: gm } : {}), gold });
      });
    }
    const sf = join(dir, SKILLS_FILE);
    if (existsSync(sf)) {
      await readJsonl(sf, (rec, line) => {
        const id = str(rec.id);
        if (id === undefined) throw new UserError(`${where(sf, line, 'id')}expected a string`);
        const [major, sub, sourceUrl] = [str(rec.major), str(rec.sub), str(rec.source_url)];
        if (!skills.has(id))
          skills.set(id, { id, name: str(rec.name) ?? '', ...(major !== undefined ? { major } : {}), ...(sub !== undefined ? { sub } : {}), ...(sourceUrl !== undefined ? { sourceUrl } : {}) });
      });
    }
  }
  return { folders, runs, queries, skills };
}
