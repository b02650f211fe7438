/**
 * The skills-file index cache: what loading a skills file with text on demand keeps (per skill its
 * id, name and labels, the record offsets and lengths, the file's size, SHA-256 and record count,
 * the SKILL.md fallbacks), stored so that a warm rerun over the same file neither reads nor
 * parses its records (95 MB of JSON for v1.1's 6,006 skills).
 *
 * Store kind `skills-index` (cache/store.ts; `<cacheDir>/skills-index/<key>.json`), key over
 * `DOC_TEXT_RULES`, the file's SHA-256 and the SKILL.md field. The file's SHA-256 comes from the
 * file hash memo (cache/file-sha256.ts: by path, size, mtime and inode), so a warm run does not
 * re-read the file for it; a file that changed has a new version, is hashed again and gets a new
 * index. An entry the store finds damaged, or whose index does not fit (counts, types, the file's
 * SHA-256 and size), is reported in one line and the file parsed again (the index rewritten).
 * The loader only writes an index of a file it parsed in full and found valid.
 */
import type { Skill } from '../core/types.js';
import { cacheKey } from '../cache/key.js';
import { CACHE_KINDS, entryKind } from '../cache/kinds.js';
import type { CacheStore } from '../cache/store.js';
import { DOC_TEXT_RULES } from './corpus-fingerprint.js';

// v3: ids are checked for whitespace and control characters when the file is read (fields.ts requireId).
export const SKILLS_INDEX_KIND = entryKind(CACHE_KINDS.skillsIndex, 'skills-index-v3');
export const SKILLS_INDEX_SUBFOLDER = CACHE_KINDS.skillsIndex.folder;

/** A skill without its texts. */
export type SkillHead = Pick<Skill, 'id' | 'name' | 'major' | 'sub' | 'sourceUrl'>;

export interface SkillsIndex {
  skillMdField: string;
  /** The file as it was read. */
  sha256: string;
  bytes: number;
  records: number;
  /** Records whose SKILL.md fell back to the description. */
  fallbacks: number;
  skills: SkillHead[];
  offsets: number[];
  lengths: number[];
}

/** The entry key of the index of a skills file with this SHA-256 and SKILL.md field. */
export function skillsIndexKey(fileSha256: string, skillMdField: string): string {
  return cacheKey(SKILLS_INDEX_KIND.name, [SKILLS_INDEX_KIND.format, DOC_TEXT_RULES, fileSha256, skillMdField]);
}

type Row = [string, string, string | null, string | null, string | null];

/** Writes the index (through the store: framed, atomically). */
export function writeSkillsIndex(store: CacheStore, key: string, index: SkillsIndex): void {
  const rows: Row[] = index.skills.map((s) => [s.id, s.name, s.major ?? null, s.sub ?? null, s.sourceUrl ?? null]);
  const body = JSON.stringify({
    skillMdField: index.skillMdField,
    sha256: index.sha256,
    bytes: index.bytes,
    records: index.records,
    fallbacks: index.fallbacks,
    skills: rows,
    offsets: index.offsets,
    lengths: index.lengths,
  });
  store.write(SKILLS_INDEX_KIND, key, `${body}\n`);
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const optString = (x: unknown): x is string | null => x === null || typeof x === 'string';

/** The stored index, or null (absent, or damaged or not the index of this file version and field: reported by the store). */
export function readSkillsIndex(store: CacheStore, key: string, want: { sha256: string; bytes: number; skillMdField: string }): SkillsIndex | null {
  return store.readJson(SKILLS_INDEX_KIND, key, (value) => decodeIndex(value, want)) ?? null;
}

function decodeIndex(value: unknown, want: { sha256: string; bytes: number; skillMdField: string }): SkillsIndex {
  const bad = (why: string): never => {
    throw new Error(why);
  };
  const v = value as Record<string, unknown>;
  if (!v || typeof v !== 'object') bad('not an index');
  if (v['sha256'] !== want.sha256 || v['bytes'] !== want.bytes || v['skillMdField'] !== want.skillMdField) bad('the index of another file');
  const rows = v['skills'];
  const offsets = v['offsets'];
  const lengths = v['lengths'];
  if (!Array.isArray(rows) || !Array.isArray(offsets) || !Array.isArray(lengths)) bad('no skills, offsets or lengths');
  const r = rows as unknown[];
  if (!isCount(v['records']) || !isCount(v['fallbacks']) || r.length !== v['records'] || (offsets as unknown[]).length !== r.length || (lengths as unknown[]).length !== r.length) bad('counts do not fit');
  if (!(offsets as unknown[]).every(isCount) || !(lengths as unknown[]).every(isCount)) bad('bad offsets or lengths');
  const skills: SkillHead[] = [];
  for (const row of r) {
    if (!Array.isArray(row) || row.length !== 5 || typeof row[0] !== 'string' || typeof row[1] !== 'string' || !optString(row[2]) || !optString(row[3]) || !optString(row[4])) bad(`bad skill row ${skills.length}`);
    const x = row as Row;
    const s: SkillHead = { id: x[0], name: x[1] };
    if (x[2] !== null) s.major = x[2];
    if (x[3] !== null) s.sub = x[3];
    if (x[4] !== null) s.sourceUrl = x[4];
    skills.push(s);
  }
  return { skillMdField: want.skillMdField, sha256: want.sha256, bytes: want.bytes, records: r.length, fallbacks: v['fallbacks'] as number, skills, offsets: offsets as number[], lengths: lengths as number[] };
}
