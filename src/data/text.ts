/**
 * Text rules of the SkillRet protocol (section 2): Python's `str.strip()` and the composite
 * document string `strip(name) | strip(description) | strip(skill_md)`.
 */
import type { Skill } from '../core/types.js';

/**
 * Python's whitespace set (`str.isspace()`, which is what `str.strip()` with no argument removes),
 * as printed by Python 3.11: `[c for c in range(0x110000) if chr(c).isspace()]`.
 * Unlike JavaScript's `trim()` it includes U+001C..U+001F and U+0085 and excludes U+FEFF.
 */
export const PY_WHITESPACE: readonly number[] = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

const WS = new Set<number>(PY_WHITESPACE);

/** True if the UTF-16 code unit is Python whitespace (all of them are in the BMP). */
export function isPyWhitespace(code: number): boolean {
  return WS.has(code);
}

/** Python `s.strip()` (no argument): removes leading and trailing Python whitespace. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && WS.has(s.charCodeAt(start))) start++;
  while (end > start && WS.has(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** A field of a skill that can go into the document text. */
export type DocField = 'name' | 'description' | 'skill_md';

/** The protocol's document fields, in order. */
export const DEFAULT_DOC_FIELDS: readonly DocField[] = ['name', 'description', 'skill_md'];

/** The protocol's field separator. */
export const DEFAULT_DOC_SEPARATOR = ' | ';

function fieldValue(skill: Skill, field: DocField): string {
  const v = field === 'skill_md' ? skill.skillMd : skill[field];
  return typeof v === 'string' ? v : '';
}

/**
 * The document text of a skill: each field stripped (Python `strip()`), joined by `separator`.
 * A missing field counts as "". With the defaults this is the official
 * `f"{name.strip()} | {description.strip()} | {skill_md.strip()}"` (skill_md already fell back to
 * the description on loading). No character truncation.
 */
export function buildDocumentText(
  skill: Skill,
  fields: readonly DocField[] = DEFAULT_DOC_FIELDS,
  separator: string = DEFAULT_DOC_SEPARATOR,
): string {
  return fields.map((f) => pyStrip(fieldValue(skill, f))).join(separator);
}
