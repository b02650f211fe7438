/**
 * Validation before work: a config's problems are all listed, one self-contained line each
 * (`file:line: key.path: message`), not the first one; `run --dry-run` and the start of `run`
 * resolve every model, preset, file and server the plan needs before any stage runs, and list
 * what is missing together with the config's own problems (exit 2, no stack trace).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isUserError, loadConfig, planExperiment, runExperiment, UserError } from '../src/index.js';
import { modelsDir } from '../src/util/paths.js';
import { configProblems, runCli } from './helpers/cli.js';

const MINI = resolve(__dirname, '..', 'data', 'mini');
const tmp = mkdtempSync(join(tmpdir(), 'skillret-validation-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** A config file in a fresh folder (output and cache beside it); its path. */
function config(lines: string[]): { file: string; dir: string } {
  const dir = join(tmp, `c${++n}`);
  mkdirSync(dir);
  const file = join(dir, 'c.yaml');
  writeFileSync(file, lines.join('\n') + '\n');
  return { file, dir };
}

const DATASET = `dataset: { path: ${JSON.stringify(MINI)}, split: test }`;

/** The stderr lines of a refused command, each without the `skillret-eval: ` prefix (asserted on every line). */
function problemLines(err: string): string[] {
  const lines = err.trimEnd().split('\n');
  for (const l of lines) expect(l).toMatch(/^skillret-eval: /);
  return lines.map((l) => l.slice('skillret-eval: '.length));
}

describe('every config problem is listed', () => {
  const four = [
    'name: four',
    DATASET,
    'k: [5, ten]', // 3: wrong type
    'evaluation: trec', // 4: not one of the choices
    'retrievers:',
    '  - { id: bm25, type: bm25, topk: 20 }', // 6: unknown key
    'rerankers:',
    '  - { id: ce, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 50 }', // 8: deeper than top_k
    'output: ./out',
  ];

  it('a config with four distinct mistakes lists all four: file, line, key path and message each', () => {
    expect(configProblems(four.join('\n') + '\n', '/cfg/four.yaml')).toEqual([
      '/cfg/four.yaml:3: k[1]: expected number, got "ten"',
      '/cfg/four.yaml:4: evaluation: expected one of "trec_eval", "official", got "trec"',
      '/cfg/four.yaml:6: retrievers[0].topk: unknown key (did you mean "top_k"?)',
      '/cfg/four.yaml:8: rerankers[0].depth: depth 50 exceeds retrievers[0] ("bm25") top_k 20: the reranker can only see what the first stage returned',
    ]);
  });

  it('the CLI prints each on its own line, then exits 2 without a stack trace', async () => {
    const { file, dir } = config(four);
    const r = await runCli(['run', file, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).not.toMatch(/\n\s+at /);
    const lines = problemLines(r.err);
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => l.split(': ').slice(0, 2).join(': '))).toEqual([`${file}:3: k[1]`, `${file}:4: evaluation`, `${file}:6: retrievers[0].topk`, `${file}:8: rerankers[0].depth`]);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a misspelt key is one mistake: its "missing" twin is not listed again', () => {
    const text = ['name: x', DATASET.replace('dataset:', 'datset:'), 'retrievers: [{ id: bm25, type: bm25 }]', 'output: ./out'].join('\n') + '\n';
    expect(configProblems(text)).toEqual(['/cfg/x.yaml:2: datset: unknown key (did you mean "dataset"?)']);
  });

  it('a library caller gets every problem too (UserError.problems; message = the lines)', () => {
    const { file } = config(four);
    try {
      loadConfig(file);
      expect.unreachable();
    } catch (e) {
      expect(isUserError(e)).toBe(true);
      expect((e as UserError).problems).toHaveLength(4);
      expect((e as Error).message.split('\n')).toEqual((e as UserError).problems);
    }
  });
});

describe('--dry-run and the start of run resolve what the plan needs', () => {
  const unknownModel = [
    'name: unknown-model',
    DATASET,
    'retrievers:',
    '  - { id: bm25, type: bm25 }',
    '  - id: dense',
    '    type: dense',
    '    model: use-lite-513', // 7
    'output: ./out',
  ];

  it('--dry-run refuses an unknown model, naming the key path and the closest known name', async () => {
    const { file } = config(unknownModel);
    const r = await runCli(['run', file, '--dry-run', '--offline']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(problemLines(r.err)).toEqual([
      `${file}:7: retrievers[1].model: unknown model "use-lite-513": not a preset, not a folder with config.json, not a model under ${modelsDir()}, and not a hub id "org/name[@revision]" (did you mean "use-lite-512"?)`,
    ]);
  });

  it('an unknown reranker model, a preset of the wrong type and a path that is no folder, each on its line', async () => {
    const { file, dir } = config([
      'name: rerankers',
      DATASET,
      'retrievers: [{ id: bm25, type: bm25 }]',
      'rerankers:',
      '  - { id: none }',
      '  - { id: a, type: cross-encoder, model: glove-6b-100d-maxsimm }', // 6
      '  - { id: b, type: cross-encoder, model: qwen3-reranker-0.6b }', // 7: a qwen3 preset
      '  - { id: c, type: qwen3, model: ./no-such-model }', // 8
      'output: ./out',
    ]);
    const r = await runCli(['run', file, '--dry-run', '--offline']);
    expect(r.code).toBe(2);
    const lines = problemLines(r.err);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${file}:6: rerankers\\[1\\]\\.model: unknown model "glove-6b-100d-maxsimm": .*\\(did you mean "glove-6b-100d-maxsim"\\?\\)$`));
    expect(lines[1]).toBe(`${file}:7: rerankers[2].type: "cross-encoder" but qwen3-reranker-0.6b is a qwen3 reranker (set type: qwen3)`);
    expect(lines[2]).toBe(`${file}:8: rerankers[3].model: model folder ${join(dir, 'no-such-model')} not found (a model folder holds config.json, tokenizer files and onnx/)`);
  });

  it('missing files (dataset folder, saved run, ids file) and servers refused offline are listed with the config problems', async () => {
    const { file, dir } = config([
      'name: files',
      'dataset: { path: ./no-data, split: test, skill_filter: { ids_file: ./ids.txt } }', // 2
      'evaluation: trec', // 3: a config problem
      'retrievers:',
      '  - { id: saved, type: run, path: ./runs/bm25.trec }', // 5
      '  - { id: served, type: dense, model: Qwen/Qwen3-Embedding-8B, endpoint: { url: "https://embed.example.com", api: tei } }', // 6
      'output: ./out',
    ]);
    const r = await runCli(['run', file, '--dry-run', '--offline']);
    expect(r.code).toBe(2);
    expect(problemLines(r.err)).toEqual([
      `${file}:2: dataset.path: ${join(dir, 'no-data')}: no such folder (a relative path is resolved against the config's folder); put the dataset there (skills/, queries/, qrels/ with test.jsonl) or point dataset.path at it; \`skillret-eval data fetch --version v1.1\` (or v1.0) downloads a pinned SkillRet test split into the cache and prints the dataset lines to use it`,
      `${file}:2: dataset.skill_filter.ids_file: ${join(dir, 'ids.txt')}: no such file`,
      `${file}:3: evaluation: expected one of "trec_eval", "official", got "trec"`,
      `${file}:5: retrievers[0].path: ${join(dir, 'runs', 'bm25.trec')}: no such file (a saved run: TREC or the official JSON)`,
      `${file}:6: retrievers[1].endpoint.url: offline, and https://embed.example.com/ is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)`,
    ]);
  });

  it('a real run with an unknown model fails before any stage runs: no stage line, no output, no cache entry', async () => {
    const { file, dir } = config(unknownModel);
    const cache = join(dir, 'cache');
    const r = await runCli(['run', file, '--offline', '--cache-dir', cache]);
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/retrieval: |dataset: \d+ skills/);
    expect(problemLines(r.err)).toEqual([expect.stringMatching(new RegExp(`^${file}:7: retrievers\\[1\\]\\.model: unknown model "use-lite-513"`))]);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
    expect(readdirSync(dir)).toEqual(['c.yaml']);
  });

  it('a real run lists the paths it could not write with the rest, and creates nothing while anything is wrong', async () => {
    const { file, dir } = config([...unknownModel.slice(0, -1), 'output: ./taken/out']);
    writeFileSync(join(dir, 'taken'), 'a file where the output folder goes');
    const cache = join(dir, 'new', 'cache');
    const r = await runCli(['run', file, '-q', '--cache-dir', cache]);
    expect(r.code).toBe(2);
    const lines = problemLines(r.err);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${file}:7: retrievers\\[1\\]\\.model: unknown model "use-lite-513"`));
    expect(lines[1]).toBe(`${file}:8: output: ${join(dir, 'taken')} is a file, not a folder`);
    expect(existsSync(join(dir, 'new'))).toBe(false);
  });

  it('the library verbs check a loaded config the same way (planExperiment, runExperiment)', async () => {
    const { file, dir } = config(unknownModel);
    const c = loadConfig(file); // the schema has nothing against it
    const attempts: (() => unknown)[] = [() => planExperiment(c, { offline: true }), () => runExperiment(c, { offline: true, cacheDir: join(dir, 'cache') })];
    for (const attempt of attempts) {
      const e: unknown = await Promise.resolve()
        .then(attempt)
        .then(
          () => undefined,
          (x: unknown) => x,
        );
      expect(isUserError(e), String(e)).toBe(true);
      expect((e as UserError).problems).toEqual([expect.stringMatching(new RegExp(`^${file}:7: retrievers\\[1\\]\\.model: unknown model "use-lite-513"`))]);
    }
    expect(readdirSync(dir)).toEqual(['c.yaml']);
  });
});
