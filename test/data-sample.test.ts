import { SAMPLE_DIR } from './helpers/shared.js';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset, loadGold } from '../src/data/dataset.js';
import { buildDocumentText } from '../src/data/text.js';
import { cleanupTemp, makeTempDir } from './fixtures/data/make-dataset.js';

const SAMPLE = SAMPLE_DIR;
const present = existsSync(join(SAMPLE, 'skills', 'test.jsonl'));
if (!present) console.log(`skipping SkillRet sample tests: ${SAMPLE} is absent`);

afterAll(cleanupTemp);

const qrelsToObj = (q: Map<string, Map<string, number>>) => Object.fromEntries([...q].map(([k, v]) => [k, Object.fromEntries(v)]));

describe.skipIf(!present)('the shared SkillRet v1.1 sample', () => {
  it('loads 287 skills, 30 queries, 42 qrels with the SOURCE.md hashes', async () => {
    const ds = await loadDataset({ path: SAMPLE, split: 'test' });
    expect(ds.skills).toHaveLength(287);
    expect(ds.queries).toHaveLength(30);
    expect(ds.goldSource).toBe('qrels');
    expect([...ds.qrels.values()].reduce((n, m) => n + m.size, 0)).toBe(42);
    expect(ds.stats).toEqual({
      skillMdFallbacks: 0,
      skillsFilteredOut: 0,
      queriesWithoutGold: [],
      queriesWithoutRelevant: [],
      droppedGoldPairs: 0,
      droppedGoldQueries: [],
      unknownGoldKept: 0,
      goldDisagreement: [], // the sample's qrels and skill_ids agree
      grades: { judgements: 42, maxGrade: 1, aboveOne: 0 }, // every gold at grade 1, as the Hub path's
    });
    expect(ds.files.map((f) => [f.role, f.records, f.bytes, f.sha256])).toEqual([
      ['skills', 287, 4_633_404, '17ad6957a6033d71cb4ca0c92c3dbc1b2253d00ad1f3dade179a7c631bfbdd1c'],
      ['queries', 30, 37_823, 'c084e1f94b8cab54b7cd89d639f24b38e779af8a8e9a7742a6bbf0b2768f594f'],
      ['qrels', 42, 3_654, '9e19fcf0a34a8f8b3ad154f0179b871bcc0de11d6d107159be5f3797ea9f20e7'],
    ]);
    // SOURCE.md: 19 queries with 1 gold, 10 with 2, 1 with 3
    const sizes = [...ds.qrels.values()].map((m) => m.size);
    expect([1, 2, 3].map((k) => sizes.filter((s) => s === k).length)).toEqual([19, 10, 1]);
    expect(ds.queries[0]!.id).toBe('q-00029');
  });

  it('builds the same document strings as the official Python build_skill_text', async () => {
    const ds = await loadDataset({ path: SAMPLE, split: 'test' });
    const joined = ds.skills.map((s) => buildDocumentText(s)).join('\n');
    // python3: "\n".join(f"{name.strip()} | {desc.strip()} | {skill_md.strip()}" ...) over the file, utf-8 sha256
    expect([...joined].length).toBe(2_186_922); // code points, as Python counts
    expect(createHash('sha256').update(joined, 'utf8').digest('hex')).toBe('1bda3791db07820dd8940c92f78a29932d4bb3295966046ff457046992157cfd');
    // skill_md = body in this sample, so mapping 'body' gives the same documents
    const byBody = await loadDataset({ path: SAMPLE, split: 'test', skillMdField: 'body' });
    expect(byBody.skills.map((s) => buildDocumentText(s)).join('\n')).toBe(joined);
  });

  it('gives the same gold from the queries skill_ids as from the qrels file', async () => {
    const dir = makeTempDir();
    mkdirSync(join(dir, 'queries'));
    copyFileSync(join(SAMPLE, 'queries', 'test.jsonl'), join(dir, 'queries', 'test.jsonl'));
    const fromQueries = await loadGold(dir, 'test');
    const fromQrels = await loadGold(SAMPLE, 'test');
    expect(fromQueries.goldSource).toBe('queries');
    expect(fromQrels.goldSource).toBe('qrels');
    const sortObj = (o: Record<string, Record<string, number>>) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
    expect(sortObj(qrelsToObj(fromQueries.qrels))).toBe(sortObj(qrelsToObj(fromQrels.qrels)));
  });
});
