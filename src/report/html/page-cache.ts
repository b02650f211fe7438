/**
 * The `run` step's report.html, kept in the cache: `<cacheDir>/report-html/<key>.html`.
 *
 * The page is a pure function of the results folder's files and the report settings (write.ts reads
 * nothing else), so its key is this tool's version and compiled code (util/package-version.ts
 * `codeFingerprint`: an edited renderer is never answered by an older page), the format below, the settings, and the bytes
 * of every file of the folder, by relative path, except three things the page does not read or
 * show: report.html itself, summary.md (its Cost section records seconds) and the fields of
 * manifest.json that record this one execution (times, stage seconds and cache outcomes, peak
 * memory: `EXECUTION_FIELDS`; test/report-page-cache.test.ts renders a folder with all of them
 * changed and compares the bytes, so a page that starts showing one fails there). A warm rerun whose
 * results files are unchanged copies the page instead of reading the folder back, comparing the
 * runs and rendering (about 0.4 s at full size).
 *
 * The cached file starts with one line naming the format and the SHA-256 of the page after it; a
 * file whose page does not match is reported in one line, and the page is rendered again and the
 * file rewritten.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareUtf8 } from '../../metrics/rank.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { sha256Hex, stableStringify } from '../../util/hash.js';
import { codeFingerprint, ownPackage } from '../../util/package-version.js';

export const PAGE_SUBFOLDER = 'report-html';
/** Bump when what the page shows changes in a way the tool version does not capture. */
const FORMAT = 'skillret-report-page v1';

/** manifest.json fields that describe one execution rather than its results. */
export const EXECUTION_FIELDS = ['started_at', 'finished_at', 'stages', 'timings_seconds', 'peak_rss_bytes', 'peak_rss_mib_after'] as const;
/** Files of a results folder outside the key (see the module comment). */
const NOT_KEYED = new Set(['report.html', 'summary.md']);

/** Files under `dir`, relative paths with `/`, in UTF-8 byte order. */
function filesUnder(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...filesUnder(dir, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort(compareUtf8);
}

/** The manifest without its execution fields, as stable JSON (the raw bytes when it is not a JSON object). */
function keyedManifest(bytes: Buffer): Buffer | string {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return bytes;
  const m = { ...(v as Record<string, unknown>) };
  for (const f of EXECUTION_FIELDS) delete m[f];
  return stableStringify(m);
}

/** The cache key of the page of results folder `dir` with report settings `settings` (see the module comment). */
export function reportPageKey(dir: string, settings: unknown): string {
  const h = createHash('sha256');
  h.update(stableStringify({ format: FORMAT, tool: ownPackage().version, code: codeFingerprint(), settings }));
  for (const rel of filesUnder(dir)) {
    if (NOT_KEYED.has(rel)) continue;
    const raw = readFileSync(join(dir, rel));
    const bytes = rel === 'manifest.json' ? keyedManifest(raw) : raw;
    const size = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    h.update(`\n${JSON.stringify(rel)} ${size}\n`);
    h.update(bytes);
  }
  return h.digest('hex');
}

/** The page kept in `file`; undefined when there is none; a reason when it does not check out. */
function readCached(file: string): Buffer | string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const buf = readFileSync(file);
    const nl = buf.indexOf(0x0a);
    if (nl < 0) return 'no header line';
    const page = buf.subarray(nl + 1);
    return buf.toString('latin1', 0, nl) === `${FORMAT} ${sha256Hex(page)}` ? page : 'header does not match the page (cut short or changed)';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Writes `out` (report.html of results folder `dir`): the cached page when its key is there and
 * checks out, else `render()`'s page, which is then kept. Returns whether the cache answered.
 */
export async function writeCachedPage(
  cacheDir: string,
  dir: string,
  settings: unknown,
  out: string,
  render: () => Promise<string>,
  log: (line: string) => void = () => {},
): Promise<boolean> {
  const file = join(cacheDir, PAGE_SUBFOLDER, `${reportPageKey(dir, settings)}.html`);
  const cached = readCached(file);
  if (cached instanceof Buffer) {
    writeFileAtomic(out, cached);
    return true;
  }
  if (cached !== undefined) log(`report: cached page ${file} is unusable (${cached}); rendering it again`);
  const page = Buffer.from(await render(), 'utf8');
  writeFileAtomic(out, page);
  writeFileAtomic(file, Buffer.concat([Buffer.from(`${FORMAT} ${sha256Hex(page)}\n`, 'latin1'), page]));
  return false;
}
