/**
 * Limits and checks: a YAML alias bomb and an unbounded iteration count end in one line (exit 2);
 * compare refuses runs over different dataset files unless told; top_k below the largest k is
 * warned about; documents of a saved run that the corpus lacks are counted in metrics.json and
 * summary.md.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/commands/run.js';
import { runCli } from './helpers/cli.js';

const MINI = resolve(__dirname, '..', 'data', 'mini');
let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), 'skillret-limits-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function config(name: string, body: string[], data = MINI): string {
  const f = join(root, `${name}.yaml`);
  writeFileSync(f, [`name: ${name}`, `dataset: { path: ${JSON.stringify(data)}, split: test }`, ...body, `output: ${JSON.stringify(join(root, name))}`, ''].join('\n'));
  return f;
}

async function oneLine(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code).toBe(2);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  return r.err.trim();
}

describe('limits', () => {
  it('a YAML alias bomb is one line naming the file', async () => {
    const f = join(root, 'bomb.yaml');
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [n, p] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f']]) lines.push(`${n}: &${n} [${Array(9).fill(`*${p}`).join(',')}]`);
    writeFileSync(f, lines.join('\n') + '\n');
    expect(await oneLine(['run', f, '--dry-run'])).toBe(`skillret-eval: ${f}: invalid YAML: Excessive alias count indicates a resource exhaustion attack`);
  });

  it('iterations are bounded (1,000,000) in the config (also --dry-run) and in compare', async () => {
    const f = config('iters', ['retrievers: [{ id: bm25, type: bm25 }]', 'rerankers: [{ id: none }]', 'stats: { iterations: 1e12 }']);
    expect(await oneLine(['run', f, '--dry-run'])).toMatch(new RegExp(`^skillret-eval: ${f}:\\d+: stats\\.iterations: at most 1,000,000 iterations`));
    expect(await oneLine(['compare', 'a', 'b', '--iterations', '1000000000000'])).toBe('skillret-eval: --iterations: expected an integer from 1 to 1000000, got 1000000000000');
  });
});

describe('checks', () => {
  it('warns when top_k is below the largest k; compare refuses runs over different dataset files unless --allow-different-data', async () => {
    const logs: string[] = [];
    await runCommand({ config: config('a', ['retrievers: [{ id: bm25, type: bm25, top_k: 10 }]', 'rerankers: [{ id: none }]']), cache: false, log: (l) => void logs.push(l) });
    expect(logs).toContain('warning: retrievers.bm25.top_k 10 is below the largest k 15: @15 metrics see only 10 documents per query');
    const other = join(root, 'other-data');
    cpSync(MINI, other, { recursive: true });
    const skills = join(other, 'skills', 'test.jsonl');
    writeFileSync(skills, readFileSync(skills, 'utf8').replace('project risk register', 'project risk ledger'));
    await runCommand({ config: config('b', ['retrievers: [{ id: bm25, type: bm25, top_k: 15 }]', 'rerankers: [{ id: none }]'], other), cache: false, quiet: true });
    const a = join(root, 'a', 'bm25', 'none');
    const b = join(root, 'b', 'bm25', 'none');
    expect(await oneLine(['compare', a, b, '--iterations', '100'])).toMatch(/metrics\.json: the runs are over different dataset files \(skills: sha256 [0-9a-f]{12}… vs [0-9a-f]{12}…\); a paired comparison needs the same data \(--allow-different-data to compare anyway\)$/);
    const ok = await runCli(['compare', a, b, '--iterations', '100', '--allow-different-data']);
    expect(ok.code, ok.err).toBe(0);
  });

  it('documents of a saved run that the corpus lacks are counted in metrics.json and summary.md', async () => {
    await runCommand({ config: config('src', ['retrievers: [{ id: bm25, type: bm25, top_k: 15 }]', 'rerankers: [{ id: none }]']), cache: false, quiet: true });
    const runFile = join(root, 'saved.trec');
    const lines = readFileSync(join(root, 'src', 'bm25', 'none', 'run.trec'), 'utf8').split('\n').filter(Boolean);
    const [qid] = lines[0]!.split(' ');
    writeFileSync(runFile, [...lines, `${qid} Q0 not-a-skill-1 99 99.5 x`, `${qid} Q0 not-a-skill-2 98 99.4 x`].join('\n') + '\n');
    await runCommand({ config: config('saved', [`retrievers: [{ id: saved, type: run, path: ${JSON.stringify(runFile)}, top_k: 20 }]`, 'rerankers: [{ id: none }]']), cache: false, quiet: true });
    const m = JSON.parse(readFileSync(join(root, 'saved', 'saved', 'none', 'metrics.json'), 'utf8')) as { first_stage: Record<string, unknown> };
    expect(m.first_stage).toEqual({ type: 'run', top_k: 20, docs_not_in_corpus: 2 });
    expect(readFileSync(join(root, 'saved', 'summary.md'), 'utf8')).toContain('saved: 2 retrieved documents of the saved run are not in the corpus (scored as non-relevant; never reranked).');
  });
});

describe('every error names its file', () => {
  it.each(['config.json', 'tokenizer.json'])('a model folder with a broken %s', async (broken) => {
    const model = join(root, `broken-model-${broken}`);
    const src = realpathSync(resolve(__dirname, '..', 'models', 'glove-6b-100d-static'));
    mkdirSync(model);
    for (const f of readdirSync(src).filter((x) => x !== 'onnx')) cpSync(join(src, f), join(model, f), { recursive: true });
    symlinkSync(join(src, 'onnx'), join(model, 'onnx'));
    writeFileSync(join(model, broken), broken === 'config.json' ? '{"model_type": "bert",' : '{"version": "1.0", "model": {');
    const f = config(`broken-${broken}`, [`retrievers: [{ id: d, type: dense, model: ${JSON.stringify(model)}, pooling: mean }]`, 'rerankers: [{ id: none }]']);
    expect(await oneLine(['run', f, '-q', '--no-cache'])).toMatch(new RegExp(`^skillret-eval: ${join(model, broken)}: malformed JSON: `));
  });
});
