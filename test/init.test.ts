/**
 * `skillret-eval init [dir]`: a commented starter config that validates and runs as written, the
 * bundled fixture copied beside it, --dataset / --hub / --model, and no overwrite without --force.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initProject } from '../src/api/init.js';
import { runCommand } from '../src/commands/run.js';
import { findRelease } from '../src/data/hub.js';
import { loadConfig } from '../src/pipeline/config.js';
import { resolveModelRef } from '../src/pipeline/kind-config/model-ref.js';
import { packageFile } from '../src/util/paths.js';
import { runCli, userError } from './helpers/cli.js';
import { cliCommand, initCommand } from '../src/commands/init.js';

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
    // Printed in this checkout (the tests' folder): npx runs a project's own bin, never the registry with --no-install.
    expect(r.out).toContain(`Next: npx --no-install skillret-eval run ${config}\n`);
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

describe('init: the next command runs from where it is printed, never from the registry', () => {
  const bin = packageFile('bin', 'skillret-eval.js');
  /** `Next: …` of `init` started as `script` (node's argv[1]) in `cwd` with `path` as $PATH. */
  const next = (cwd: string, script: string | undefined, path = '/usr/bin') => {
    mkdirSync(cwd, { recursive: true });
    const line = initCommand({ dir: cwd, force: true, cwd }, { script, cwd, path }).split('\n').find((l) => l.startsWith('Next: '))!;
    return line.slice('Next: '.length);
  };

  it('in a project that depends on it (node_modules/.bin/skillret-eval): npx --no-install', () => {
    const project = fresh();
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(bin, join(project, 'node_modules', '.bin', 'skillret-eval'));
    expect(next(project, join(project, 'node_modules', '.bin', 'skillret-eval'))).toBe('npx --no-install skillret-eval run skillret-eval.yaml');
    expect(cliCommand({ script: undefined, cwd: project, path: undefined })).toBe('npx --no-install skillret-eval');
    // A checkout of skillret-eval itself: npx runs the project's own bin.
    expect(cliCommand({ script: bin, cwd: packageFile(), path: undefined })).toBe('npx --no-install skillret-eval');
  });

  it('started as the skillret-eval command of a folder on PATH (a global install): skillret-eval', () => {
    const prefix = fresh();
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    symlinkSync(bin, join(prefix, 'bin', 'skillret-eval'));
    const work = fresh();
    expect(next(work, join(prefix, 'bin', 'skillret-eval'), ['/nowhere', join(prefix, 'bin'), '/usr/bin'].join(delimiter))).toBe('skillret-eval run skillret-eval.yaml');
    // Another skillret-eval comes first on PATH: the bare name would run that one, so the path it was started by.
    const other = fresh();
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'skillret-eval'), '#!/bin/sh\n');
    expect(next(work, join(prefix, 'bin', 'skillret-eval'), [other, join(prefix, 'bin')].join(delimiter))).toBe(`${join(prefix, 'bin', 'skillret-eval')} run skillret-eval.yaml`);
    // The folders npx adds to PATH for one command (a project's .bin, its cache) are gone afterwards.
    const project = fresh();
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    const npxBin = join(project, 'node_modules', '.bin', 'skillret-eval');
    symlinkSync(bin, npxBin);
    expect(next(work, npxBin, [join(project, 'node_modules', '.bin'), '/usr/bin'].join(delimiter))).toBe(`${npxBin} run skillret-eval.yaml`);
  });

  it("started through a path to the bin that is not on PATH (a checkout's bin, a project's .bin from elsewhere): that path", () => {
    const work = fresh();
    expect(next(work, bin)).toBe(`node ${bin} run skillret-eval.yaml`);
    const project = fresh();
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(bin, join(project, 'node_modules', '.bin', 'skillret-eval'));
    expect(next(work, join(project, 'node_modules', '.bin', 'skillret-eval'))).toBe(`${join(project, 'node_modules', '.bin', 'skillret-eval')} run skillret-eval.yaml`);
    // Started some other way (in-process, by another program): this package's bin.
    expect(next(work, '/usr/lib/node_modules/some-runner/index.js')).toBe(`node ${bin} run skillret-eval.yaml`);
  });

  it('the printed command runs as printed (--dry-run), from the folder it was printed in; never a bare npx', async () => {
    const d = fresh();
    mkdirSync(d);
    for (const [cwd, line] of [
      [process.cwd(), (await runCli(['init', d])).out],
      [d, spawnSync(process.execPath, [bin, 'init', '--force'], { cwd: d, encoding: 'utf8' }).stdout],
    ] as const) {
      const cmd = line.split('\n').find((l) => l.startsWith('Next: '))!.slice('Next: '.length);
      expect(cmd).not.toMatch(/\bnpx (?!--no-install )/); // a bare npx goes to the registry where nothing provides the bin
      const run = spawnSync('sh', ['-c', `${cmd} --dry-run --offline`], { cwd, encoding: 'utf8' });
      expect(run.status, `${cmd}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('experiment: starter');
    }
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
