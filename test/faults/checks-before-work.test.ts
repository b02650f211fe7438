/**
 * Class 7 of issue 28: what can be checked before the expensive stages is checked there, in one line
 * naming the file, line and key (or field), exit 2, with nothing in an earlier results folder or in
 * the cache changed: a saved run's missing `path` (beside a dense retriever that would have encoded
 * the corpus first), skill and query ids a TREC run cannot hold (whitespace, control characters:
 * refused when the dataset is loaded, not when run.trec is written), retriever and reranker ids that
 * are names of results files, and a split name that would leave the dataset folder, by `--dry-run`
 * too and for a hub dataset as well as a folder.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { refusedInOneLine } from '../helpers/fault-suite.js';

const REPO = resolve(__dirname, '..', '..');
const MINI = join(REPO, 'data', 'mini');
const dir = mkdtempSync(join(tmpdir(), 'fault-checks-'));
const out = join(dir, 'out');
const cache = join(dir, 'cache');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config file `name` whose dataset, retrievers and rerankers are given as YAML lines; output `out`. */
function config(name: string, dataset: string, retrievers: string[], rerankers: string[] = ['  - { id: none }']): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, ['name: checks', `dataset: ${dataset}`, 'retrievers:', ...retrievers, 'rerankers:', ...rerankers, 'stats: { iterations: 200 }', `output: ${JSON.stringify(out)}`, ''].join('\n'));
  return file;
}

const BM25 = '  - { id: bm25, type: bm25, top_k: 20 }';
const mini = `{ path: ${JSON.stringify(MINI)}, split: test }`;
const run = (cfg: string, ...more: string[]) => ['run', cfg, '--offline', '-q', '--cache-dir', cache, ...more];
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A copy of the mini dataset whose `role` file has line `line` changed by `edit`. */
function datasetWith(name: string, role: 'skills' | 'queries', line: number, edit: (rec: Record<string, unknown>) => void): string {
  const ds = join(dir, name);
  cpSync(MINI, ds, { recursive: true });
  const f = join(ds, role, 'test.jsonl');
  const lines = readFileSync(f, 'utf8').split('\n');
  const rec = JSON.parse(lines[line - 1]!) as Record<string, unknown>;
  edit(rec);
  lines[line - 1] = JSON.stringify(rec);
  writeFileSync(f, lines.join('\n'));
  return ds;
}

describe('checks before the expensive stages', () => {
  beforeAll(async () => {
    const r = await runCli(run(config('good', mini, [BM25])));
    expect(r.code, r.err).toBe(0);
  }, 60_000);

  it("a saved run's missing path is found by the config check, before the dense stage encodes anything, with its key path", async () => {
    const cfg = config('saved', mini, ['  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 20 }', `  - { id: saved, type: run, path: ${JSON.stringify(join(dir, 'nope.trec'))}, top_k: 20 }`]);
    await refusedInOneLine(run(cfg), new RegExp(`^${esc(cfg)}:5: retrievers\\[1\\]\\.path: ${esc(join(dir, 'nope.trec'))}: no such file`), { same: [out], kept: [cache] });
  });

  it('a skill id with a space, a query id with a tab or a control character: refused at load with file, line and field', async () => {
    const skills = datasetWith('ds-skill', 'skills', 3, (r) => void (r.id = 'my skill'));
    await refusedInOneLine(
      run(config('ws-skill', `{ path: ${JSON.stringify(skills)}, split: test }`, [BM25])),
      new RegExp(`^${esc(join(skills, 'skills', 'test.jsonl'))}:3: id: "my skill" holds whitespace \\(U\\+0020\\), which a TREC run cannot hold`),
      { same: [out], kept: [cache] },
    );
    const tab = datasetWith('ds-query', 'queries', 5, (r) => void (r.id = 'q\t5'));
    await refusedInOneLine(run(config('ws-query', `{ path: ${JSON.stringify(tab)}, split: test }`, [BM25])), new RegExp(`^${esc(join(tab, 'queries', 'test.jsonl'))}:5: id: "q\\\\t5" holds whitespace \\(U\\+0009\\)`), { same: [out], kept: [cache] });
    const ctl = datasetWith('ds-ctl', 'queries', 2, (r) => void (r.id = 'q\u00012'));
    await refusedInOneLine(run(config('ctl-query', `{ path: ${JSON.stringify(ctl)}, split: test }`, [BM25])), /queries\/test\.jsonl:2: id: "q\\u00012" holds a control character \(U\+0001\)/, { same: [out], kept: [cache] });
  });

  it('retriever and reranker ids that are names of results files are refused by the config check (--dry-run too), with their key paths', async () => {
    const cfg = config('reserved', mini, ['  - { id: summary.md, type: bm25, top_k: 20 }'], ['  - { id: none }', '  - { id: manifest.json, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 10 }']);
    for (const args of [run(cfg), ['run', cfg, '--dry-run']]) {
      const r = await runCli(args);
      expect(r.code, r.err).toBe(2);
      expect(r.err.trimEnd().split('\n')).toEqual([
        `skillret-eval: ${cfg}:4: retrievers[0].id: "summary.md" is the name of a results file; give another id (an id names a folder of the results)`,
        `skillret-eval: ${cfg}:7: rerankers[1].id: "manifest.json" is the name of a results file; give another id (an id names a folder of the results)`,
      ]);
    }
    await refusedInOneLine(run(config('reserved-run', mini, ['  - { id: report.html, type: bm25, top_k: 20 }'])), /:4: retrievers\[0\]\.id: "report\.html" is the name of a results file/, { same: [out], kept: [cache] });
  });

  it('--dry-run refuses a split that leaves the dataset folder, for a folder and for a hub dataset, naming dataset.split', async () => {
    const evil = '../../../etc/passwd';
    const folder = config('split-folder', `{ path: ${JSON.stringify(MINI)}, split: ${JSON.stringify(evil)} }`, [BM25]);
    const hub = config('split-hub', `{ hub: { repo: someone/data, revision: 0123456789abcdef0123456789abcdef01234567 }, split: ${JSON.stringify(evil)} }`, [BM25]);
    for (const cfg of [folder, hub]) {
      await refusedInOneLine(['run', cfg, '--dry-run', '--cache-dir', cache], new RegExp(`^${esc(cfg)}:2: dataset\\.split: "\\.\\./\\.\\./\\.\\./etc/passwd" is not a valid split name`), { same: [out], kept: [cache] });
    }
    await refusedInOneLine(['data', 'fetch', '--split', evil, '--offline', '--cache-dir', cache], /^--split: "\.\.\/\.\.\/\.\.\/etc\/passwd" is not a valid split name/, { same: [out], kept: [cache] });
  });
});
