/**
 * A first-stage kind and a reranker kind from outside src/ (test/helpers/toy-kinds/, one file each)
 * plus one registration line each: they run through `run --dry-run`, `run` (results, summary.md,
 * report.html, the terminal leaderboard), `explain`, `compare` and the config's checks exactly as the
 * built-in kinds do, with nothing else of the tool told about them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerRerankerKind, registerRetrieverKind } from '../src/index.js';
import { toyRetriever } from './helpers/toy-kinds/toy-retriever.js';
import { toyReranker } from './helpers/toy-kinds/toy-reranker.js';
import { runCli } from './helpers/cli.js';

registerRetrieverKind(toyRetriever);
registerRerankerKind(toyReranker);

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'toy-kinds-'));
const out = join(dir, 'out');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = join(dir, 'toy.yaml');
writeFileSync(
  config,
  [
    'name: toy',
    `dataset: { path: ${join(root, 'data/mini')}, split: test }`,
    'retrievers:',
    '  - { id: bm25, type: bm25, top_k: 20 }',
    '  - { id: toy, type: toy, weight: 2 }',
    'rerankers:',
    '  - { id: none }',
    '  - { id: toy-rr, type: toy-rr, depth: 10 }',
    'stats: { iterations: 200 }',
    `output: ${out}`,
    `cache_dir: ${join(dir, 'cache')}`,
  ].join('\n') + '\n',
);

async function ok(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.err, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return r.out;
}

describe('kinds registered from outside the tool', () => {
  let terminal: string;
  beforeAll(async () => {
    terminal = await ok(['run', config, '--offline', '-q']);
  }, 120_000);

  it('run --dry-run prints their plan lines', async () => {
    const plan = await ok(['run', config, '--dry-run', '--offline']);
    expect(plan).toContain('toy: toy word overlap (weight=2, top_k=20)');
    expect(plan).toContain('toy-rr share of query words depth=10');
  });

  it('run writes their results, summary.md, report.html and the terminal leaderboard', () => {
    for (const run of ['toy/none', 'toy/toy-rr', 'bm25/toy-rr']) {
      const m = JSON.parse(readFileSync(join(out, run, 'metrics.json'), 'utf8'));
      expect(m.metrics['NDCG@10'], run).toBeGreaterThan(0);
    }
    const onOff = JSON.parse(readFileSync(join(out, 'toy/toy-rr/metrics.json'), 'utf8')).reranking;
    expect(onOff.versus).toBe('toy/none');
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/\| toy \/ toy-rr \| \d+\.\d\d/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('toy/toy-rr');
    expect(terminal).toMatch(/^toy\/toy-rr\s+\d+\.\d\d/m);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.stages.find((s: { id: string }) => s.id === 'toy').info).toMatchObject({ type: 'toy', weight: 2, documents: 45 });
  });

  it('explain re-scores with the kinds (the first stage over the corpus, the reranker over its pool)', async () => {
    const first = await ok(['explain', out, '--run', 'toy/none', '--max-queries', '3', '-q']);
    expect(first).toContain('scorer: toy (weight=2) over the corpus');
    const reranked = await ok(['explain', out, '--run', 'toy/toy-rr', '--max-queries', '3', '-q']);
    expect(reranked).toContain('scorer: reranker toy-rr over the pool of toy');
  });

  it('compare reads their runs like any other', async () => {
    const j = JSON.parse(await ok(['compare', out, '--format', 'json', '--iterations', '200']));
    expect(j.runs.map((r: { label: string }) => r.label)).toEqual(['bm25/none', 'bm25/toy-rr', 'toy/none', 'toy/toy-rr']);
  });

  it("their config keys are checked like the built-ins', every problem listed", async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, readFileSync(config, 'utf8').replace('weight: 2', 'wieght: 2').replace('depth: 10', 'depth: 0'));
    const r = await runCli(['run', bad, '--dry-run']);
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines.some((l) => /bad\.yaml:5: retrievers\[1\]\.wieght: unknown key \(did you mean "weight"\?\)/.test(l)), r.err).toBe(true);
    expect(lines.some((l) => /bad\.yaml:8: rerankers\[1\]\.depth: /.test(l)), r.err).toBe(true);
    expect(() => registerRetrieverKind(toyRetriever)).toThrow('a stage kind "toy" is already registered');
  });
});
