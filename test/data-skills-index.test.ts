/**
 * The skills-file index (data/skills-index.ts, dataset.ts `loadSkillsIndexed`): a rerun over the
 * same skills file loads the same skills (ids, names, labels, texts on demand, key order), the
 * same file facts and record positions, without parsing the file; a damaged index is reported in
 * the store's one line and rewritten; a changed file is parsed again and gets its own index.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset, type Dataset } from '../src/data/dataset.js';
import { SKILLS_INDEX_SUBFOLDER } from '../src/data/skills-index.js';
import { clearFileHashMemo } from '../src/cache/file-sha256.js';

const root = mkdtempSync(join(tmpdir(), 'skillret-skills-index-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mini = new URL('../data/mini', import.meta.url).pathname;

function copyMini(name: string): string {
  const dir = join(root, name);
  cpSync(mini, dir, { recursive: true });
  // A whole-second mtime, so that a test can put it back exactly (nanoseconds included).
  utimesSync(join(dir, 'skills', 'test.jsonl'), 1_700_000_000, 1_700_000_000);
  return dir;
}

const load = (dir: string, indexCacheDir?: string, cacheLog?: (line: string) => void): Promise<Dataset> =>
  loadDataset({ path: dir, split: 'test', textOnDemand: true, ...(indexCacheDir !== undefined ? { indexCacheDir } : {}), ...(cacheLog ? { cacheLog } : {}) });

/** Everything a consumer can see of the skills: own enumerable keys in order, texts included. */
const view = (d: Dataset) => ({
  skills: d.skills.map((s) => JSON.stringify(s)),
  files: d.files,
  refs: { ...d.skillRecords, offsets: Array.from(d.skillRecords.offsets), lengths: Array.from(d.skillRecords.lengths), mtimeMs: 0 },
});

describe('skills-file index', () => {
  it('a rerun loads the same skills from the index, without parsing the file', async () => {
    const dir = copyMini('warm');
    const cache = join(root, 'cache-warm');
    const plain = await load(dir);
    const cold = await load(dir, cache);
    expect(readdirSync(join(cache, SKILLS_INDEX_SUBFOLDER))).toHaveLength(1);
    clearFileHashMemo(); // the next load reads the memo file, as a new process does
    const warm = await load(dir, cache);
    expect(view(cold)).toEqual(view(plain));
    expect(view(warm)).toEqual(view(plain));
    expect(warm.skills.length).toBeGreaterThan(10);

    // Proof that the warm load did not parse the file: rewrite the first skill's name in place
    // (same size, mtime put back, same inode): a parse would see it, the index does not.
    const file = join(dir, 'skills', 'test.jsonl');
    const text = readFileSync(file, 'utf8');
    const first = plain.skills[0]!.name;
    const renamed = first.replace(/^./, (c) => (c === 'X' ? 'Y' : 'X'));
    writeFileSync(file, text.replace(JSON.stringify(first), JSON.stringify(renamed)));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    clearFileHashMemo();
    expect((await load(dir, cache)).skills[0]!.name).toBe(first);
    expect((await load(dir)).skills[0]!.name).toBe(renamed);
  });

  it('a damaged index is reported once and rewritten', async () => {
    const dir = copyMini('damaged');
    const cache = join(root, 'cache-damaged');
    const plain = await load(dir);
    await load(dir, cache);
    const indexDir = join(cache, SKILLS_INDEX_SUBFOLDER);
    const file = join(indexDir, readdirSync(indexDir)[0]!);
    const good = readFileSync(file, 'utf8');
    for (const bad of [good.slice(0, good.length / 2), good.replace('"records":', '"records": 1, "x":'), 'garbage\n']) {
      writeFileSync(file, bad);
      clearFileHashMemo();
      const logs: string[] = [];
      expect(view(await load(dir, cache, (l) => logs.push(l)))).toEqual(view(plain));
      expect(logs).toEqual([expect.stringMatching(/^cache: skills-index entry .* is damaged \(.+\); computing it again$/)]);
      expect(logs[0]).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe(good);
    }
  });

  it('a changed skills file is parsed again and gets its own index', async () => {
    const dir = copyMini('changed');
    const cache = join(root, 'cache-changed');
    await load(dir, cache);
    const file = join(dir, 'skills', 'test.jsonl');
    const before = (await load(dir)).skills[0]!.name;
    writeFileSync(file, readFileSync(file, 'utf8').replace(JSON.stringify(before), JSON.stringify(`${before}-v2`)));
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    const plain = await load(dir);
    const indexed = await load(dir, cache);
    expect(indexed.skills[0]!.name).toBe(`${before}-v2`);
    expect(view(indexed)).toEqual(view(plain));
    expect(readdirSync(join(cache, SKILLS_INDEX_SUBFOLDER))).toHaveLength(2);
  });
});
