/**
 * Reading the two explorer files of a results folder (written by report/explorer-files.ts):
 * `queries.jsonl` (each evaluated query's text, generator model and gold ids) and `skills.jsonl`
 * (name, taxonomy labels and source URL of the skills a report shows). A bad line is one error
 * naming the file, line and field.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError, where } from '../core/errors.js';

export const QUERIES_FILE = 'queries.jsonl';
export const SKILLS_FILE = 'skills.jsonl';

/** A query as queries.jsonl holds it. */
export interface QueryInfo {
  id: string;
  query: string;
  generatorModel?: string;
  gold: string[];
}

/** A skill as skills.jsonl holds it. */
export interface SkillInfo {
  id: string;
  name: string;
  major?: string;
  sub?: string;
  sourceUrl?: string;
  /** Its sibling family's id (a skill in a family of two or more, with `analysis.siblings`). */
  family?: string;
}

export async function readJsonl(file: string, each: (rec: Record<string, unknown>, line: number) => void): Promise<void> {
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

/**
 * Reads a results folder's queries.jsonl and skills.jsonl (when present) into `queries` and
 * `skills`; an id already there is kept (the first results folder read wins).
 */
export async function readExplorerFiles(dir: string, queries: Map<string, QueryInfo>, skills: Map<string, SkillInfo>): Promise<void> {
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
      const [major, sub, sourceUrl, family] = [str(rec.major), str(rec.sub), str(rec.source_url), str(rec.family)];
      if (!skills.has(id))
        skills.set(id, { id, name: str(rec.name) ?? '', ...(major !== undefined ? { major } : {}), ...(sub !== undefined ? { sub } : {}), ...(sourceUrl !== undefined ? { sourceUrl } : {}), ...(family !== undefined ? { family } : {}) });
    });
  }
}
