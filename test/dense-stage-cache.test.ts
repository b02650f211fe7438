/**
 * The dense stage cache (src/retrieval/dense/stage-cache.ts), through whole runs on the bundled
 * fixture with the GloVe embedder (exact index): a warm rerun reads the stage's output and writes
 * results byte-identical to the cold run and to `--no-cache`; a changed skill text, query text or
 * top_k misses; a corrupted or partial cache file is reported in the store's one line and rewritten. Also
 * pins the record → document text rules its key names (DOC_TEXT_RULES).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../src/api/run.js';
import { DOC_TEXT_RULES, STAGE_SUBFOLDER } from '../src/retrieval/dense/stage-cache.js';
import { skillFromRecord } from '../src/data/skill-record.js';
import { buildDocumentText } from '../src/data/text.js';
import { resultsFiles } from './helpers/results-files.js';

const REPO = resolve(__dirname, '..');
const RESULT_FILES = new Set(['metrics.json', 'run.trec', 'per-query.jsonl', 'breakdown.json', 'operating-points.json', 'official.json', 'queries.jsonl', 'skills.jsonl', 'report.html']);
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-dense-stage-'));
  cpSync(join(REPO, 'data', 'mini'), join(root, 'data'), { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function config(name: string, data: string, topK = 10): string {
  const file = join(root, `${name}.yaml`);
  writeFileSync(
    file,
    `name: stage\ndataset: { path: ${JSON.stringify(data)}, split: test }\nretrievers:\n  - { id: glove, type: dense, model: glove-6b-100d-static, index: { type: exact }, top_k: ${topK} }\noutput: ${JSON.stringify(join(root, 'out', name))}\n`,
  );
  return file;
}

function results(dir: string): Map<string, string> {
  return resultsFiles(dir, RESULT_FILES);
}

async function run(name: string, data: string, o: { cacheDir?: string; cache?: boolean; topK?: number } = {}) {
  const logs: string[] = [];
  const cfg = config(name, data, o.topK);
  await runExperiment(cfg, { ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}), ...(o.cache === false ? { cache: false } : {}), log: (l) => logs.push(l) });
  const out = join(root, 'out', name);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { stages: { info: { cache: { stage?: string } } }[] };
  return { files: results(out), stage: manifest.stages[0]!.info.cache.stage, logs: logs.filter((l) => l.startsWith('dense') || l.startsWith('cache:')) };
}

const stageFiles = (cacheDir: string) => (existsSync(join(cacheDir, STAGE_SUBFOLDER)) ? readdirSync(join(cacheDir, STAGE_SUBFOLDER)).map((f) => join(cacheDir, STAGE_SUBFOLDER, f)) : []);

describe('dense stage cache', () => {
  it('warm: the stage output is read, results byte-identical to cold and --no-cache', async () => {
    const cacheDir = join(root, 'c1');
    const data = join(root, 'data');
    const cold = await run('cold', data, { cacheDir });
    expect(cold.stage).toBeUndefined();
    expect(stageFiles(cacheDir)).toHaveLength(1);
    const warm = await run('warm', data, { cacheDir });
    expect(warm.stage).toBe('hit');
    const nocache = await run('nocache', data, { cache: false });
    expect(cold.files.size).toBe(RESULT_FILES.size);
    expect(warm.files).toEqual(cold.files);
    expect(nocache.files).toEqual(cold.files);
    expect(warm.logs).toEqual([]);
  }, 120_000);

  it('a changed skill text, query text or top_k misses, and gives what an uncached run gives', async () => {
    const cacheDir = join(root, 'c2');
    await run('base', join(root, 'data'), { cacheDir });
    const edit = (name: string, file: string, change: (line: string) => string) => {
      const dir = join(root, name);
      cpSync(join(root, 'data'), dir, { recursive: true });
      const p = join(dir, file);
      const lines = readFileSync(p, 'utf8').split('\n');
      lines[2] = change(lines[2]!);
      writeFileSync(p, lines.join('\n'));
      return dir;
    };
    const skill = edit('data-skill', 'skills/test.jsonl', (l) => l.replace('"description":"', '"description":"Kubernetes rollout and docker compose. '));
    const query = edit('data-query', 'queries/test.jsonl', (l) => l.replace('"query":"', '"query":"kubernetes docker deploy '));
    for (const [name, data, topK] of [
      ['skill', skill, 10],
      ['query', query, 10],
      ['topk', join(root, 'data'), 12],
    ] as const) {
      const warm = await run(`${name}-warm`, data, { cacheDir, topK });
      expect(warm.stage, name).toBeUndefined();
      const fresh = await run(`${name}-fresh`, data, { cache: false, topK });
      expect(warm.files, name).toEqual(fresh.files);
      expect((await run(`${name}-again`, data, { cacheDir, topK })).stage, name).toBe('hit');
    }
    expect(stageFiles(cacheDir)).toHaveLength(4);
  }, 240_000);

  it('a corrupted or partial cache file is reported once, the stage run, the file rewritten', async () => {
    const cacheDir = join(root, 'c3');
    const data = join(root, 'data');
    const cold = await run('c3-cold', data, { cacheDir });
    const [file] = stageFiles(cacheDir);
    const good = readFileSync(file!, 'utf8');
    const flipped = good.replace(/("queries":\[\["[^"]+",\[\d+,)(\d)/, (_m, a: string, d: string) => `${a}${(Number(d) + 1) % 10}`);
    expect(flipped).not.toBe(good);
    for (const bad of [good.slice(0, good.length >> 1), flipped, 'garbage\n{}']) {
      writeFileSync(file!, bad);
      const again = await run('c3-again', data, { cacheDir });
      expect(again.stage).toBeUndefined();
      expect(again.logs).toHaveLength(1);
      expect(again.logs[0]).toMatch(/^cache: dense-stage entry .* is damaged \(.+\); computing it again$/);
      expect(again.logs[0]).toContain(file!);
      expect(again.files).toEqual(cold.files);
      expect(readFileSync(file!, 'utf8')).toBe(good);
    }
  }, 240_000);

  it(`record → document text rules are the ones DOC_TEXT_RULES (${DOC_TEXT_RULES}) names`, () => {
    // A change here changes every document text: bump DOC_TEXT_RULES in stage-cache.ts with it.
    const at = { file: 'skills.jsonl', line: 1 };
    const rec = { id: 's1', name: '  Name ', description: ' Desc.\n', skill_md: '\n# Title\nBody\t ', major: 'M' };
    expect(buildDocumentText(skillFromRecord(rec, at, 'skill_md').skill)).toBe('Name | Desc. | # Title\nBody');
    expect(buildDocumentText(skillFromRecord({ id: 's2', name: 'N', description: 'D', skill_md: '  ' }, at, 'skill_md').skill)).toBe('N | D | D');
    expect(buildDocumentText(skillFromRecord(rec, at, 'skill_md').skill, ['skill_md', 'name'], '\n')).toBe('# Title\nBody\nName');
    expect(DOC_TEXT_RULES).toBe('skill-record-v1 text-fields-v1');
  });
});
