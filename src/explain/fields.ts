/**
 * Document-field attribution: which field of a gold skill carries the match. Each variant is the
 * skill's document text (src/data/text.ts `buildDocumentText`, the config's fields and separator)
 * rebuilt from a subset of its fields: only name, only description, only body (SKILL.md), and
 * each one removed. A variant is scored against the whole query and ranked among the other
 * candidates with their scores unchanged ("where would this skill rank if it had only its name?").
 */
import type { Skill } from '../core/types.js';
import { buildDocumentText, type DocField } from '../data/text.js';

export type FieldVariant = 'only_name' | 'only_description' | 'only_body' | 'without_name' | 'without_description' | 'without_body';

const FIELD_OF: Record<string, DocField> = { name: 'name', description: 'description', body: 'skill_md' };

/**
 * The variants that differ from the full text, in a fixed order. Only fields of `fields` take
 * part; "without X" with X the only field is left out (nothing would remain), as is a variant of
 * a field the config does not use.
 */
export function fieldVariants(skill: Skill, fields: readonly DocField[], separator: string): { variant: FieldVariant; text: string }[] {
  const out: { variant: FieldVariant; text: string }[] = [];
  for (const [label, field] of Object.entries(FIELD_OF)) {
    if (!fields.includes(field)) continue;
    out.push({ variant: `only_${label}` as FieldVariant, text: buildDocumentText(skill, [field], separator) });
  }
  for (const [label, field] of Object.entries(FIELD_OF)) {
    if (!fields.includes(field) || fields.length === 1) continue;
    out.push({ variant: `without_${label}` as FieldVariant, text: buildDocumentText(skill, fields.filter((f) => f !== field), separator) });
  }
  return out;
}
