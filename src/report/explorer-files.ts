/**
 * The two results files that let a report show what was asked and what came back without the
 * dataset: `<output>/queries.jsonl` (each evaluated query's text, generator model and gold ids, in
 * dataset order) and `<output>/skills.jsonl` (name, taxonomy labels and source URL of every skill
 * a report shows: each query's gold and each run's top `maxK`, in corpus order). Texts are written as
 * they are (JSON-escaped); renderers escape them for their medium.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError, where } from '../core/errors.js';
import type { ExperimentResult } from '../pipeline/experiment.js';
import { trecOrder } from '../metrics/rank.js';

export const QUERIES_FILE = 'queries.jsonl';
export const SKILLS_FILE = 'skills.jsonl';

export function queriesJsonl(res: ExperimentResult): string {
  const lines: string[] = [];
  for (const q of res.dataset.queries) {
    const judged = res.dataset.qrels.get(q.id);
    if (!judged) continue;
    const gold = [...judged].filter(([, g]) => g >= 1).map(([id]) => id);
    lines.push(JSON.stringify({ id: q.id, query: q.text, ...(q.generatorModel !== undefined ? { generator_model: q.generatorModel } : {}), gold }));
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

export function skillsJsonl(res: ExperimentResult): string {
  const maxK = Math.max(...res.config.k);
  const shown = new Set<string>();
  for (const judged of res.dataset.qrels.values()) for (const [id, g] of judged) if (g >= 1) shown.add(id);
  for (const r of res.runs) for (const docs of r.run.values()) for (const d of trecOrder(docs).slice(0, maxK)) shown.add(d.docId);
  const lines: string[] = [];
  for (const s of res.dataset.skills) {
    if (!shown.has(s.id)) continue;
    lines.push(
      JSON.stringify({
        id: s.id,
        name: s.name,
        ...(s.major !== undefined ? { major: s.major } : {}),
        ...(s.sub !== undefined ? { sub: s.sub } : {}),
        ...(s.sourceUrl !== undefined ? { source_url: s.sourceUrl } : {}),
      }),
    );
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

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
      const [major, sub, sourceUrl] = [str(rec.major), str(rec.sub), str(rec.source_url)];
      if (!skills.has(id))
        skills.set(id, { id, name: str(rec.name) ?? '', ...(major !== undefined ? { major } : {}), ...(sub !== undefined ? { sub } : {}), ...(sourceUrl !== undefined ? { sourceUrl } : {}) });
    });
  }
}
