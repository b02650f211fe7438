/**
 * SKILL.md token counts for the operating points (skill-tokens.ts): the worker path
 * (count-workers.ts, each worker reading its records from the skills file) gives the counts of
 * `countTokens` in process, whatever the number of threads or tasks; only the run's skills are
 * counted; the count cache is filled by the workers and answers them on the next run; a skills file
 * changed since loading is one clear error. The worker is the compiled one (dist/): build first.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Run } from '../src/core/types.js';
import { UserError } from '../src/core/errors.js';
import { loadDataset } from '../src/data/dataset.js';
import { fileDocSource } from '../src/data/doc-store.js';
import { countSkillTokensOnWorkers } from '../src/operating-points/count-workers.js';
import { SkillTokenCounts } from '../src/operating-points/skill-tokens.js';
import { CorpusTokenCounts, CORPUS_TOKENS_KIND, TokenCountCache, textHash } from '../src/operating-points/token-cache.js';
import { forgeEntry } from './helpers/cache-damage.js';
import { countTokens } from '../src/operating-points/token-count.js';
import { cleanupTemp, makeDataset } from './fixtures/data/make-dataset.js';

afterAll(cleanupTemp);
const cacheDir = mkdtempSync(join(tmpdir(), 'skillret-skill-tokens-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

// 40 skills: non-ASCII, line breaks of every kind, code, a blank SKILL.md (description fallback), repeats
const words = ['deploy', ' the', "it's", '日本語', '👍🏽', '\r\n', '\n\n', '  ', '```ts\nconst x = 1;\n```', '3.14159', 'Ωmega', '—', '\t'];
const records = Array.from({ length: 40 }, (_, i) => ({
  id: `s${String(i).padStart(2, '0')}`,
  name: `Skill ${i}`,
  description: `does thing ${i}`,
  skill_md: i === 7 ? '   ' : Array.from({ length: 20 + ((i * 37) % 300) }, (_, j) => words[(i * 7 + j * j) % words.length]).join(i % 3 ? ' ' : ''),
}));
const skills = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const queries = records.slice(0, 3).map((r, i) => JSON.stringify({ id: `q${i}`, query: 'x', skill_ids: [r.id] })).join('\n') + '\n';

async function load() {
  const dir = makeDataset({ skills, queries });
  const ds = await loadDataset({ path: dir, split: 'test', textOnDemand: true });
  return { dir, ds, source: fileDocSource(ds.skillRecords) };
}

const runOf = (ids: string[]): Run => new Map([['q0', ids.slice(0, 15).map((docId) => ({ docId, score: 1 }))], ['q1', ids.slice(10, 25).map((docId) => ({ docId, score: 1 }))]]);

describe('SKILL.md token counts on worker threads', () => {
  it('equal countTokens in process, for any threads and task size', async () => {
    const { ds, source } = await load();
    const want = ds.skills.map((s) => countTokens(s.skillMd));
    expect(want[7]).toBe(countTokens('does thing 7')); // the description stands in for a blank SKILL.md
    const all = ds.skills.map((_, i) => i);
    for (const [threads, taskBytes] of [[1, 1e9], [2, 300], [3, 1]] as const) {
      const { counts, hashes } = await countSkillTokensOnWorkers(source, all, threads, null, taskBytes);
      expect([...counts]).toEqual(want);
      expect(hashes).toBeNull();
    }
    const some = [3, 4, 9, 21, 39];
    expect([...(await countSkillTokensOnWorkers(source, some, 2, null, 500)).counts]).toEqual(some.map((i) => want[i]));
  });

  it('count only the skills of the run, the same on workers and in process', async () => {
    const { ds, source } = await load();
    const ids = ds.skills.map((s) => s.id).reverse();
    const run = runOf(ids);
    const inRun = new Set([...run.values()].flatMap((h) => h.map((x) => x.docId)));
    const read: number[] = [];
    const make = (threads: number) =>
      new SkillTokenCounts({ ids: ds.skills.map((s) => s.id), skillMd: (i) => (read.push(i), ds.skills[i]!.skillMd), source, cache: TokenCountCache.open(cacheDir, false), threads, minParallelBytes: 0 });
    const workers = make(2);
    await workers.prepare(run);
    expect(read).toEqual([]); // the workers read the texts themselves
    const inProcess = make(0);
    await inProcess.prepare(run);
    expect(inRun.size).toBe(25);
    expect(read.length).toBe(inRun.size);
    for (const s of ds.skills) expect(workers.get(s.id)).toBe(countTokens(s.skillMd));
    expect(read.length).toBe(ds.skills.length); // the skills outside the run were read and counted on demand
    for (const s of ds.skills) expect(inProcess.get(s.id)).toBe(countTokens(s.skillMd));
    expect(workers.get('not-a-skill')).toBe(0);
  });

  it('fill the count cache and are answered by it on the next run (in process, and by the workers)', async () => {
    const { ds, source } = await load();
    const ids = ds.skills.map((s) => s.id);
    const dir = join(cacheDir, 'on');
    const opts = { ids, skillMd: (i: number) => ds.skills[i]!.skillMd, source, threads: 2, minParallelBytes: 0 };
    const first = TokenCountCache.open(dir, true);
    await new SkillTokenCounts({ ...opts, cache: first }).prepare(runOf(ids));
    first.save();
    const again = TokenCountCache.open(dir, true);
    expect(again.knownHashes()).toHaveLength(new Set(ds.skills.slice(0, 25).map((s) => s.skillMd)).size); // the run's skills
    // a forged count proves the next run takes what the cache holds
    const h = textHash(ds.skills[3]!.skillMd);
    expect(again.lookup(h)).toBe(countTokens(ds.skills[3]!.skillMd));
    again.record(h, 99999);
    const counts = new SkillTokenCounts({ ...opts, cache: again });
    await counts.prepare(runOf(ids));
    expect(counts.get(ids[3]!)).toBe(99999);
    expect(counts.get(ids[4]!)).toBe(countTokens(ds.skills[4]!.skillMd));
    // the workers themselves, given the cache's hashes: -1 for a text the cache holds, and every hash
    const w = await countSkillTokensOnWorkers(source, [3, 30], 2, again.knownHashes(), 1);
    expect([...w.counts]).toEqual([-1, countTokens(ds.skills[30]!.skillMd)]);
    expect(w.hashes).toEqual([h, textHash(ds.skills[30]!.skillMd)]);
  });

  it('refuse a skills file that changed after loading, with one clear error', async () => {
    const { dir, ds, source } = await load();
    appendFileSync(join(dir, 'skills', 'test.jsonl'), '{"id":"late"}\n');
    const p = countSkillTokensOnWorkers(source, ds.skills.map((_, i) => i), 2, null, 300);
    await expect(p).rejects.toBeInstanceOf(UserError);
    await expect(countSkillTokensOnWorkers(source, [0], 1, null)).rejects.toThrow(/changed while the run was reading it/);
  });
});

describe("a corpus's own counts", () => {
  it('answer a warm run without reading or hashing a SKILL.md, and only for the same skills file, field and skills', async () => {
    const { ds, source } = await load();
    const ids = ds.skills.map((s) => s.id);
    const dir = join(cacheDir, 'corpus');
    const key = { skillsSha256: ds.files.find((f) => f.role === 'skills')!.sha256, skillMdField: undefined, ids };
    const read: number[] = [];
    const make = (corpus: CorpusTokenCounts, threads = 0) =>
      new SkillTokenCounts({ ids, skillMd: (i) => (read.push(i), ds.skills[i]!.skillMd), source, cache: TokenCountCache.open(dir, true), corpus, threads, minParallelBytes: 0 });
    const first = make(CorpusTokenCounts.open(dir, true, key), 2);
    await first.prepare(runOf(ids));
    first.save();
    const files = readdirSync(join(dir, 'tokens', 'by-corpus'));
    expect(files).toHaveLength(1);
    // warm: the run's skills come from the corpus counts, nothing is read
    read.length = 0;
    const warm = make(CorpusTokenCounts.open(dir, true, key));
    await warm.prepare(runOf(ids));
    for (const i of [0, 5, 14, 24]) expect(warm.get(ids[i]!)).toBe(countTokens(ds.skills[i]!.skillMd));
    expect(read).toEqual([]);
    expect(warm.get(ids[30]!)).toBe(countTokens(ds.skills[30]!.skillMd)); // outside the first run: counted now
    expect(read).toEqual([30]);
    warm.save();
    // a forged count proves they are what answers
    const file = join(dir, 'tokens', 'by-corpus', files[0]!);
    const doc = { counts: ids.map((_, i) => (i === 3 ? 4242 : -1)) };
    forgeEntry(file, CORPUS_TOKENS_KIND, JSON.stringify(doc));
    expect(make(CorpusTokenCounts.open(dir, true, key)).get(ids[3]!)).toBe(4242);
    // another skills file, field or skill list: other counts
    expect(CorpusTokenCounts.open(dir, true, { ...key, skillsSha256: '0'.repeat(64) }).counts.every((n) => n === -1)).toBe(true);
    expect(CorpusTokenCounts.open(dir, true, { ...key, skillMdField: 'body' }).counts.every((n) => n === -1)).toBe(true);
    expect(CorpusTokenCounts.open(dir, true, { ...key, ids: [...ids].reverse() }).counts.every((n) => n === -1)).toBe(true);
    // an entry that does not fit, or does not parse, or is damaged, is reported and ignored
    const good = readFileSync(file);
    for (const bad of ['{"counts":[1,2]}', '{"version":1}', 'not json', '{"counts":[' + ids.map(() => '1.5').join(',') + ']}']) {
      forgeEntry(file, CORPUS_TOKENS_KIND, bad);
      const logs: string[] = [];
      expect(CorpusTokenCounts.open(dir, true, key, (l) => logs.push(l)).counts.every((n) => n === -1)).toBe(true);
      expect(logs).toEqual([expect.stringMatching(new RegExp(`^cache: tokens-corpus entry ${file} is damaged \\(.+\\); computing it again$`))]);
    }
    for (const bad of [good.subarray(0, good.length - 1), Buffer.concat([good, Buffer.from('1')]), Buffer.from(good.toString('latin1').replace(/4242/, '4243'), 'latin1')]) {
      writeFileSync(file, bad);
      const logs: string[] = [];
      expect(CorpusTokenCounts.open(dir, true, key, (l) => logs.push(l)).counts.every((n) => n === -1)).toBe(true);
      expect(logs).toHaveLength(1);
    }
    // off with the cache: nothing written
    const off = CorpusTokenCounts.open(join(cacheDir, 'off'), false, key);
    off.counts[0] = 7;
    off.save();
    expect(() => readdirSync(join(cacheDir, 'off'))).toThrow();
  });
});
