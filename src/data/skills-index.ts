/**
 * The skills-file index cache: what loading a skills file with text on demand keeps (per skill its
 * id, name and labels, the record offsets and lengths, the file's size, SHA-256 and record count,
 * the SKILL.md fallbacks), stored so that a warm rerun over the same file neither reads nor
 * parses its records (95 MB of JSON for v1.1's 6,006 skills).
 *
 * File `<cacheDir>/skills-index/<key>.json`, key = sha256 of (format, `DOC_TEXT_RULES`, the
 * file's SHA-256, the SKILL.md field). The file's SHA-256 comes from the file hash memo
 * (util/file-sha256.ts: by path, size, mtime and inode), so a warm run does not re-read the file
 * for it; a file that changed has a new version key, is hashed again and gets a new index. The
 * index's first line is `{"format","key","sha256"}` (the sha256 of the rest): an index that does
 * not fit is ignored (the caller parses the file and writes it again); writes are atomic.
 * The loader only writes an index of a file it parsed in full and found valid.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Skill } from '../core/types.js';
import { writeFileAtomic } from '../util/atomic.js';
import { sha256Hex } from '../util/hash.js';
import { DOC_TEXT_RULES } from './corpus-fingerprint.js';

export const SKILLS_INDEX_SUBFOLDER = 'skills-index';
const FORMAT = 'skillret-skills-index-v1';

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

/** The index file of a skills file with this SHA-256 and SKILL.md field. */
export function skillsIndexFile(cacheDir: string, fileSha256: string, skillMdField: string): { path: string; key: string } {
  const key = sha256Hex(`${FORMAT}\n${DOC_TEXT_RULES}\n${fileSha256}\n${skillMdField}\n`);
  return { path: join(cacheDir, SKILLS_INDEX_SUBFOLDER, `${key}.json`), key };
}

type Row = [string, string, string | null, string | null, string | null];

/** Writes the index (atomically). */
export function writeSkillsIndex(path: string, key: string, index: SkillsIndex): void {
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
  const head = JSON.stringify({ format: FORMAT, key, sha256: createHash('sha256').update(body).digest('hex') });
  writeFileAtomic(path, `${head}\n${body}\n`);
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const optString = (x: unknown): x is string | null => x === null || typeof x === 'string';

/** The stored index, or null (absent, damaged, or not the index of this file version and field). */
export function readSkillsIndex(path: string, key: string, want: { sha256: string; bytes: number; skillMdField: string }): SkillsIndex | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const nl = text.indexOf('\n');
    const head = JSON.parse(text.slice(0, nl)) as { format?: unknown; key?: unknown; sha256?: unknown };
    const body = text.slice(nl + 1).replace(/\n$/, '');
    if (head.format !== FORMAT || head.key !== key || head.sha256 !== createHash('sha256').update(body).digest('hex')) return null;
    const v = JSON.parse(body) as Record<string, unknown>;
    if (v['sha256'] !== want.sha256 || v['bytes'] !== want.bytes || v['skillMdField'] !== want.skillMdField) return null;
    const rows = v['skills'];
    const offsets = v['offsets'];
    const lengths = v['lengths'];
    if (!Array.isArray(rows) || !Array.isArray(offsets) || !Array.isArray(lengths)) return null;
    if (!isCount(v['records']) || !isCount(v['fallbacks']) || rows.length !== v['records'] || offsets.length !== rows.length || lengths.length !== rows.length) return null;
    if (!offsets.every(isCount) || !lengths.every(isCount)) return null;
    const skills: SkillHead[] = [];
    for (const r of rows as unknown[]) {
      if (!Array.isArray(r) || r.length !== 5 || typeof r[0] !== 'string' || typeof r[1] !== 'string' || !optString(r[2]) || !optString(r[3]) || !optString(r[4])) return null;
      const s: SkillHead = { id: r[0], name: r[1] };
      if (r[2] !== null) s.major = r[2];
      if (r[3] !== null) s.sub = r[3];
      if (r[4] !== null) s.sourceUrl = r[4];
      skills.push(s);
    }
    return { skillMdField: want.skillMdField, sha256: want.sha256, bytes: want.bytes, records: rows.length, fallbacks: v['fallbacks'] as number, skills, offsets: offsets as number[], lengths: lengths as number[] };
  } catch {
    return null;
  }
}
