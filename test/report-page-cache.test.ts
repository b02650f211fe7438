/**
 * The page cache of the run step's report.html (src/report/html/page-cache.ts): a warm rerun copies
 * the page it rendered before, byte for byte what rendering gives; the key follows every results
 * file and the settings, and ignores only what the page does not show (summary.md and manifest.json's
 * execution fields: a folder with all of those changed renders to the same bytes, which is what
 * makes leaving them out of the key safe); a cached file that does not check out is rendered again.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '../src/commands/run.js';
import type { ReportOptions } from '../src/analysis/report-view.js';
import { EXECUTION_FIELDS, PAGE_SUBFOLDER, reportPageKey, writeCachedPage } from '../src/report/html/page-cache.js';
import { writeReportFile } from '../src/report/html/write.js';
import { codeFingerprint, jsFingerprint } from '../src/util/package-version.js';

const REPO = resolve(__dirname, '..');
let root: string;
let out: string;
let cache: string;
// What the run step renders with (write.ts writeHtmlReport) for the config's stats.
const settings: ReportOptions = { test: 'randomization', correction: 'holm', alpha: 0.05, seed: 42, iterations: 10000, commonQueries: false };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skillret-page-cache-'));
  const c = parse(readFileSync(join(REPO, 'configs', 'quickstart.yaml'), 'utf8')) as Record<string, unknown> & { dataset: { path: string } };
  c.dataset.path = join(REPO, 'data', 'mini');
  out = join(root, 'out');
  c.output = out;
  cache = join(root, 'cache');
  writeFileSync(join(root, 'quickstart.yaml'), stringify(c));
  await runCommand({ config: join(root, 'quickstart.yaml'), quiet: true, cacheDir: cache });
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const pages = () => readdirSync(join(cache, PAGE_SUBFOLDER)).sort();

/** The page rendered from `dir` without any cache. */
async function rendered(dir: string, o: ReportOptions = settings): Promise<Buffer> {
  const file = join(root, `page-${Math.random().toString(36).slice(2)}.html`);
  await writeReportFile([dir], file, o);
  return readFileSync(file);
}

/** A copy of the results folder, changed by `edit`. */
function copyOf(edit: (dir: string) => void): string {
  const dir = join(root, `copy-${Math.random().toString(36).slice(2)}`);
  cpSync(out, dir, { recursive: true });
  edit(dir);
  return dir;
}

describe('report.html page cache', () => {
  it('keeps the page the run rendered: what rendering gives, byte for byte, under the folder\'s key', async () => {
    expect(pages()).toEqual([`${reportPageKey(out, settings)}.html`]);
    const page = readFileSync(join(out, 'report.html'));
    expect(page.equals(await rendered(out))).toBe(true);
    // the settings are the run step's: other settings are another key
    expect(reportPageKey(out, { ...settings, seed: 43 })).not.toBe(reportPageKey(out, settings));
  });

  it('a warm rerun copies it (no rendering) and writes the same bytes', async () => {
    const before = readFileSync(join(out, 'report.html'));
    await runCommand({ config: join(root, 'quickstart.yaml'), quiet: true, cacheDir: cache });
    expect(readFileSync(join(out, 'report.html')).equals(before)).toBe(true);
    expect(pages()).toHaveLength(1);
    let calls = 0;
    const target = join(root, 'warm.html');
    const lines: string[] = [];
    const hit = await writeCachedPage(cache, out, settings, target, async () => (calls++, 'rendered'), (l) => lines.push(l));
    expect([hit, calls, lines]).toEqual([true, 0, []]);
    expect(readFileSync(target).equals(before)).toBe(true);
  }, 300_000);

  it('ignores only what the page does not show: summary.md and the manifest\'s execution fields', async () => {
    const key = reportPageKey(out, settings);
    const changed = copyOf((dir) => {
      const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
      for (const f of EXECUTION_FIELDS) {
        expect(m, f).toHaveProperty(f);
        m[f] = f === 'stages' ? [{ kind: 'retrieval', id: 'other', seconds: 99 }] : f.endsWith('_at') ? '2001-01-01T00:00:00.000Z' : { total: 12345 };
      }
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
      writeFileSync(join(dir, 'summary.md'), '# something else\n');
    });
    expect(reportPageKey(changed, settings)).toBe(key);
    // Safe only because the page does not show them: rendered from the changed folder, same bytes.
    expect((await rendered(changed)).equals(await rendered(out))).toBe(true);
  });

  it('follows every other file: a byte of any results file, the manifest\'s other fields, a new file', async () => {
    const key = reportPageKey(out, settings);
    const files = (dir: string, rel = ''): string[] =>
      readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir, join(rel, e.name)) : [join(rel, e.name)]));
    const keyed = files(out).filter((f) => !['report.html', 'summary.md', 'manifest.json'].includes(f)); // the manifest: below
    expect(keyed.length).toBeGreaterThan(10);
    for (const rel of keyed) {
      const dir = copyOf((d) => {
        const b = readFileSync(join(d, rel));
        b[b.length >> 1]! ^= 0x01;
        writeFileSync(join(d, rel), b);
      });
      expect(reportPageKey(dir, settings), rel).not.toBe(key);
      rmSync(dir, { recursive: true, force: true });
    }
    const renamed = copyOf((d) => {
      const m = JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as { config: { resolved: { name: string } } };
      m.config.resolved.name = 'another name';
      writeFileSync(join(d, 'manifest.json'), JSON.stringify(m, null, 2));
    });
    expect(reportPageKey(renamed, settings)).not.toBe(key);
    const added = copyOf((d) => writeFileSync(join(d, 'bm25', 'none', 'explain.jsonl'), '{}\n'));
    expect(reportPageKey(added, settings)).not.toBe(key);
  });

  it('a cached page that does not check out is rendered again and rewritten', async () => {
    const file = join(cache, PAGE_SUBFOLDER, `${reportPageKey(out, settings)}.html`);
    const good = readFileSync(file);
    const page = readFileSync(join(out, 'report.html'));
    for (const damage of [(b: Buffer) => b.subarray(0, b.length - 10), (b: Buffer) => ((b[b.length - 5]! ^= 0x20), b), () => Buffer.from('garbled')]) {
      writeFileSync(file, damage(Buffer.from(good)));
      let calls = 0;
      const target = join(root, 'again.html');
      const lines: string[] = [];
      const hit = await writeCachedPage(cache, out, settings, target, async () => (calls++, page.toString('utf8')), (l) => lines.push(l));
      expect([hit, calls]).toEqual([false, 1]);
      expect(lines).toEqual([expect.stringMatching(/^report: cached page .*\.html is unusable \(.+\); rendering it again$/)]);
      expect(readFileSync(target).equals(page)).toBe(true);
      expect(readFileSync(file).equals(good)).toBe(true);
    }
  });
});

describe('jsFingerprint (the code part of the page and comparison keys)', () => {
  it('follows every .js file under the folder, its bytes and its path, and nothing else', () => {
    const dir = join(root, 'code');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'a.js'), 'export const a = 1;\n');
    writeFileSync(join(dir, 'sub', 'b.js'), 'export const b = 2;\n');
    writeFileSync(join(dir, 'notes.d.ts'), 'declare const a: number;\n');
    const first = jsFingerprint(dir);
    expect(jsFingerprint(dir)).toBe(first);
    writeFileSync(join(dir, 'notes.d.ts'), 'declare const a: string;\n');
    expect(jsFingerprint(dir)).toBe(first); // not code that runs
    writeFileSync(join(dir, 'sub', 'b.js'), 'export const b = 3;\n');
    const edited = jsFingerprint(dir);
    expect(edited).not.toBe(first);
    rmSync(join(dir, 'sub', 'b.js'));
    writeFileSync(join(dir, 'b.js'), 'export const b = 3;\n');
    expect(jsFingerprint(dir)).not.toBe(edited); // the same file elsewhere
    expect(jsFingerprint(join(dir, 'absent'))).toBe(jsFingerprint(join(dir, 'also-absent')));
    // this checkout's: its built code (the pretest build made dist/)
    expect(codeFingerprint()).toBe(jsFingerprint(join(REPO, 'dist')));
    expect(codeFingerprint()).not.toBe(jsFingerprint(join(dir, 'absent')));
  });
});
