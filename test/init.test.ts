/**
 * `skillret-eval init [dir]`: a commented starter config that validates and runs as written, the
 * bundled fixture copied beside it, --dataset / --hub / --model, and no overwrite without --force.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initProject } from '../src/api/init.js';
import { runCommand } from '../src/commands/run.js';
import { findRelease } from '../src/data/hub.js';
import { loadConfig } from '../src/pipeline/config.js';
import { resolveModelRef } from '../src/pipeline/kind-config/model-ref.js';
import { packageFile } from '../src/util/paths.js';
import { runCli, userError } from './helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'skillret-init-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(tmp, `d${++n}`);

describe('init (default: bundled fixture, BM25 + the bundled GloVe embedder)', () => {
  const dir = fresh();
  const config = join(dir, 'skillret-eval.yaml');

  it('writes a commented config and a byte-identical copy of the fixture', async () => {
    const r = await runCli(['init', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Next: npx skillret-eval run ${config}`);
    const text = readFileSync(config, 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('#')).length).toBeGreaterThan(5);
    expect(text).toContain('NOT SkillRet data');
    for (const f of ['README.md', 'skills/test.jsonl', 'queries/test.jsonl', 'qrels/test.jsonl']) {
      expect(readFileSync(join(dir, 'data', 'mini', f)).equals(readFileSync(packageFile('data', 'mini', f)))).toBe(true);
    }
    const c = loadConfig(config);
    expect(c.dataset.path).toBe(join(dir, 'data', 'mini'));
    expect(c.output).toBe(join(dir, 'results', 'starter'));
    expect(c.retrievers.map((x) => [x.id, x.type])).toEqual([['bm25', 'bm25'], ['dense', 'dense']]);
    expect(c.rerankers.map((x) => x.id)).toEqual(['none']);
  });

  it('runs as written and writes its results beside the config', async () => {
    await runCommand({ config, quiet: true });
    for (const run of ['bm25/none', 'dense/none']) expect(existsSync(join(dir, 'results', 'starter', run, 'metrics.json'))).toBe(true);
  });

  it('refuses to overwrite the config without --force, and overwrites it with --force', async () => {
    writeFileSync(config, 'my edits\n');
    const r = await runCli(['init', dir]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toEqual([`skillret-eval: ${config}: already exists; pass --force to overwrite it`]);
    expect(readFileSync(config, 'utf8')).toBe('my edits\n');
    expect((await runCli(['init', dir, '--force'])).code).toBe(0);
    expect(() => loadConfig(config)).not.toThrow();
  });

  it('refuses to replace a differing fixture copy without --force', async () => {
    const d = fresh();
    mkdirSync(join(d, 'data', 'mini', 'qrels'), { recursive: true });
    writeFileSync(join(d, 'data', 'mini', 'qrels', 'test.jsonl'), '{}\n');
    expect(await userError(Promise.resolve().then(() => initProject({ dir: d })))).toContain('qrels/test.jsonl: already exists and differs from the bundled fixture; pass --force');
    expect(existsSync(join(d, 'skillret-eval.yaml'))).toBe(false);
    initProject({ dir: d, force: true });
    expect(readFileSync(join(d, 'data', 'mini', 'qrels', 'test.jsonl')).equals(readFileSync(packageFile('data', 'mini', 'qrels', 'test.jsonl')))).toBe(true);
  });
});

describe('init options', () => {
  it('--hub v1.1 names the pinned release and copies nothing', () => {
    const d = fresh();
    const res = initProject({ dir: d, hub: 'v1.1' });
    const c = loadConfig(res.config);
    const v11 = findRelease('v1.1')!;
    expect(c.dataset.hub).toMatchObject({ repo: v11.repo, revision: v11.revision });
    expect(c.dataset.split).toBe('test');
    expect(existsSync(join(d, 'data'))).toBe(false);
  });

  it('--dataset and --model folders are written relative to the config and resolve back to the same folders', () => {
    const cwd = fresh();
    const data = join(cwd, 'corpora', 'mine');
    for (const role of ['skills', 'queries', 'qrels']) {
      mkdirSync(join(data, role), { recursive: true });
      writeFileSync(join(data, role, 'dev.jsonl'), readFileSync(packageFile('data', 'mini', role, 'test.jsonl')));
    }
    const model = join(cwd, 'my-model');
    mkdirSync(model);
    writeFileSync(join(model, 'config.json'), '{}');
    const res = initProject({ cwd, dir: 'exp', dataset: 'corpora/mine', split: 'dev', model: './my-model' });
    const text = readFileSync(res.config, 'utf8');
    expect(text).toContain('path: ../corpora/mine');
    expect(text).toContain('model: ../my-model');
    const c = loadConfig(res.config);
    expect(c.dataset.path).toBe(data);
    expect(c.dataset.split).toBe('dev');
    const dense = c.retrievers.find((r) => r.id === 'dense');
    expect(dense?.type === 'dense' && resolveModelRef(dense.model, dirname(c.file))).toBe(model);
  });

  it('--model takes a preset or a hub id', () => {
    const a = loadConfig(initProject({ dir: fresh(), model: 'e5-small-v2' }).config);
    expect(a.retrievers.find((r) => r.id === 'dense')).toMatchObject({ model: 'e5-small-v2' });
    const u = initProject({ dir: fresh(), model: 'use-lite-512' }).config;
    expect(loadConfig(u).retrievers.find((r) => r.id === 'dense')).toMatchObject({ model: 'use-lite-512' });
    expect(readFileSync(u, 'utf8')).not.toContain('GloVe word vectors');
    const b = loadConfig(initProject({ dir: fresh(), model: 'my-org/my-embedder@v2' }).config);
    expect(b.retrievers.find((r) => r.id === 'dense')).toMatchObject({ model: 'my-org/my-embedder@v2' });
  });

  it('bad options fail in one line, exit 2, before anything is written', async () => {
    const d = fresh();
    const cases: [string[], string][] = [
      [['--model', 'qwen3-reranker-0.6b'], '--model: "qwen3-reranker-0.6b" is a reranker preset'],
      [['--model', 'glove-6b-100d-statc'], 'did you mean the preset "glove-6b-100d-static"?'],
      [['--model', './nowhere'], '--model: '],
      [['--dataset', join(d, 'nowhere')], '--dataset: '],
      [['--dataset', packageFile('data', 'mini'), '--split', 'dev'], 'dev.jsonl: file not found'],
      [['--dataset', packageFile('data', 'mini'), '--hub', 'v1.1'], '--dataset and --hub: give one of them'],
      [['--split', 'dev'], '--split: only with --dataset'],
      [['--hub', 'v9'], "option '--hub <version>' argument 'v9' is invalid"],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(['init', d, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err, args.join(' ')).toContain(msg);
    }
    expect(existsSync(d)).toBe(false);
  });
});
