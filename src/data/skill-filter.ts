/**
 * `dataset.skill_filter`: the corpus subset a run searches (the official `skill_ids_filter`), given
 * as a file of skill ids (one per line; blank lines and `#` comments ignored) or a field predicate
 * (`field: major | sub`, with `equals` or `in`). Gold skills outside the subset are unknown gold
 * (dataset.ts, `unknown_gold`). Pure: the ids file is read by the caller (readSkillIdsFile).
 */
import { MAX_ID_FILE_BYTES, readBoundedSync } from '../util/files.js';
import { UserError } from '../core/errors.js';
import type { Skill } from '../core/types.js';
import { plural } from '../util/plural.js';

export type SkillFilter =
  | { kind: 'ids'; ids: ReadonlySet<string>; file: string }
  | { kind: 'field'; field: 'major' | 'sub'; values: readonly string[] };

/** Reads a file of skill ids into a filter; errors name the file. */
export function readSkillIdsFile(file: string): SkillFilter {
  const text = readBoundedSync(file, 'skill id file', MAX_ID_FILE_BYTES).toString('utf8');
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((raw) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    ids.add(line);
  });
  if (ids.size === 0) throw new UserError(`${file}: no skill ids (one per line)`);
  return { kind: 'ids', ids, file };
}

/** The skills the filter keeps (corpus order) and how many it left out; an empty result is an error. */
export function applySkillFilter(skills: readonly Skill[], f: SkillFilter): { skills: Skill[]; removed: number } {
  const keep =
    f.kind === 'ids'
      ? (s: Skill) => f.ids.has(s.id)
      : (s: Skill) => {
          const v = f.field === 'major' ? s.major : s.sub;
          return v !== undefined && f.values.includes(v);
        };
  const out = skills.filter(keep);
  if (out.length === 0) {
    const what = f.kind === 'ids' ? `none of the ${plural(f.ids.size, 'id')} of ${f.file}` : `no skill with ${f.field} in [${f.values.map((v) => JSON.stringify(v)).join(', ')}]`;
    throw new UserError(`dataset.skill_filter: ${what} is in the corpus; the filtered corpus would be empty`);
  }
  if (f.kind === 'ids') {
    const known = new Set(skills.map((s) => s.id));
    const unknown = [...f.ids].filter((id) => !known.has(id));
    if (unknown.length > 0) throw new UserError(`${f.file}: ${plural(unknown.length, 'id')} not in the corpus, e.g. ${JSON.stringify(unknown[0])}`);
  }
  return { skills: out, removed: skills.length - out.length };
}
