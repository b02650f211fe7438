/**
 * The two results files that let a report show what was asked and what came back without the
 * dataset: `<output>/queries.jsonl` (each evaluated query's text, generator model and gold ids, in
 * dataset order) and `<output>/skills.jsonl` (name, taxonomy labels and source URL of every skill
 * a report shows: each query's gold and each run's top `maxK`, in corpus order; with `analysis.siblings`,
 * `family`: the sibling family of a skill in one of two or more). Texts are written as
 * they are (JSON-escaped); renderers escape them for their medium.
 */
import type { QueryInfo, SkillInfo } from '../formats/explorer-files.js';

export { QUERIES_FILE, SKILLS_FILE } from '../formats/explorer-files.js';

const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');

export function queriesJsonl(queries: readonly QueryInfo[]): string {
  return jsonl(queries.map((q) => ({ id: q.id, query: q.query, ...(q.generatorModel !== undefined ? { generator_model: q.generatorModel } : {}), gold: q.gold })));
}

export function skillsJsonl(skills: readonly SkillInfo[]): string {
  return jsonl(
    skills.map((s) => ({
      id: s.id,
      name: s.name,
      ...(s.major !== undefined ? { major: s.major } : {}),
      ...(s.sub !== undefined ? { sub: s.sub } : {}),
      ...(s.sourceUrl !== undefined ? { source_url: s.sourceUrl } : {}),
      ...(s.family !== undefined ? { family: s.family } : {}),
    })),
  );
}
