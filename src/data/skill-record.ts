/** One skill record of the skills JSONL file as a `Skill` (shared by the loader and the document store). */
import type { Skill } from '../core/types.js';
import { optionalString, requireId, type RecordAt } from './fields.js';
import { pyStrip } from './text.js';

/**
 * The skill of one record, with the official fallbacks (SKILL.md from `skillMdField`, the
 * description when missing or blank). Validates the fields; the id is not checked for uniqueness here.
 */
export function skillFromRecord(rec: Record<string, unknown>, at: RecordAt, skillMdField: string): { skill: Skill; fallback: boolean; carrier: boolean } {
  const id = requireId(rec, 'id', at);
  const name = optionalString(rec, 'name', at) ?? '';
  const description = optionalString(rec, 'description', at) ?? '';
  const carrier = Object.hasOwn(rec, skillMdField);
  let skillMd = optionalString(rec, skillMdField, at);
  let fallback = false;
  if (skillMd === undefined || pyStrip(skillMd) === '') {
    skillMd = description;
    fallback = true;
  }
  const skill: Skill = { id, name, description, skillMd };
  const major = optionalString(rec, 'major', at);
  const sub = optionalString(rec, 'sub', at);
  if (major !== undefined) skill.major = major;
  if (sub !== undefined) skill.sub = sub;
  // Display-only fields: taken when they are strings, never a reason to refuse the data.
  if (typeof rec.source_url === 'string' && rec.source_url !== '') skill.sourceUrl = rec.source_url;
  return { skill, fallback, carrier };
}

