import { describe, expect, it } from 'vitest';
import { configError, configProblems } from './helpers/cli.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig, formatKeyPath } from '../src/pipeline/config.js';
import { planRuns, formatPlan } from '../src/pipeline/plan.js';

const minimal = `name: quickstart
dataset: { path: ../data/mini, split: test }
k: [5, 10, 15]
retrievers:
  - { id: bm25, type: bm25, top_k: 20 }
rerankers:
  - { id: none }
output: ../results/quickstart
`;

const err = (text: string): string => configError(text);

describe('config', () => {
  it('accepts the contract config and resolves paths against the config folder', () => {
    const c = parseConfig(minimal, '/cfg/sub/quickstart.yaml');
    expect(c.name).toBe('quickstart');
    expect(c.dataset.path).toBe('/cfg/data/mini');
    expect(c.output).toBe('/cfg/results/quickstart');
    expect(c.k).toEqual([5, 10, 15]);
    expect(c.retrievers[0]).toEqual({ id: 'bm25', type: 'bm25', top_k: 20, k1: 1.5, b: 0.75 });
    expect(c.rerankers).toEqual([{ id: 'none', type: 'none' }]);
    expect(c.stats).toEqual({ seed: 42, iterations: 10000 });
  });

  it('names the key path and line of an unknown key, with a suggestion', () => {
    expect(err(minimal.replace('top_k: 20', 'topk: 20'))).toBe('/cfg/x.yaml:5: retrievers[0].topk: unknown key (did you mean "top_k"?)');
    expect(err(minimal.replace('dataset:', 'datset:'))).toMatch(/^\/cfg\/x\.yaml:2: datset: unknown key \(did you mean "dataset"\?\)/);
  });

  it('names wrong types, bad enum values and missing fields', () => {
    expect(err(minimal.replace('top_k: 20', 'top_k: "20"'))).toBe('/cfg/x.yaml:5: retrievers[0].top_k: expected number, got "20"');
    expect(err(minimal.replace('type: bm25', 'type: bm26'))).toBe(
      '/cfg/x.yaml:5: retrievers[0].type: expected one of bm25, dense, embeddings, run, fusion, got "bm26" (did you mean "bm25"?)',
    );
    expect(err(minimal.replace('output: ../results/quickstart\n', ''))).toBe('/cfg/x.yaml: output: missing (expected string)');
    expect(err(minimal.replace('k: [5, 10, 15]', 'k: [5, 0]'))).toMatch(/^\/cfg\/x\.yaml:3: k\[1\]: expected number to be >=1/);
    expect(err(minimal.replace('{ id: none }', '{ id: r, model: x }'))).toBe(
      '/cfg/x.yaml:7: rerankers[0].type: missing (expected one of none, cross-encoder, qwen3, remote)',
    );
  });

  it('rejects duplicate ids, a rerank depth beyond top_k, and both/neither dataset sources', () => {
    expect(err(minimal.replace('  - { id: bm25, type: bm25, top_k: 20 }', '  - { id: bm25, type: bm25 }\n  - { id: bm25, type: bm25 }'))).toMatch(
      /retrievers\[1\]\.id: duplicate retriever id "bm25" \(also retrievers\[0\]\)/,
    );
    expect(err(minimal.replace('{ id: none }', '{ id: ce, type: cross-encoder, model: m, depth: 50 }'))).toMatch(
      /rerankers\[0\]\.depth: depth 50 exceeds retrievers\[0\] \("bm25"\) top_k 20/,
    );
    expect(err(minimal.replace('{ path: ../data/mini, split: test }', '{ split: test }'))).toMatch(/dataset: give exactly one of "path"/);
  });

  it('lists every problem, each line self-contained (file:line: key path: message), in the order of the file', () => {
    const text = minimal.replace('k: [5, 10, 15]', 'k: [5, 0]').replace('top_k: 20', 'topk: 20').replace('output: ../results/quickstart\n', '');
    expect(configProblems(text)).toEqual([
      '/cfg/x.yaml:3: k[1]: expected number to be >=1, got number 0',
      '/cfg/x.yaml:5: retrievers[0].topk: unknown key (did you mean "top_k"?)',
      '/cfg/x.yaml: output: missing (expected string)',
    ]);
  });

  it('reports invalid YAML with its line', () => {
    expect(err('name: x\nretrievers: [\n')).toMatch(/^\/cfg\/x\.yaml:\d+: invalid YAML: /);
  });

  it('reports a missing file in one line', () => {
    expect(() => loadConfig('/nonexistent/c.yaml')).toThrow('/nonexistent/c.yaml: cannot read the config (no such file)');
  });

  it('expands the run matrix retriever-major', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const f = join(dir, 'c.yaml');
    writeFileSync(
      f,
      minimal
        .replace('  - { id: bm25, type: bm25, top_k: 20 }', '  - { id: bm25, type: bm25 }\n  - { id: d, type: dense, model: m, index: { type: hnsw } }')
        .replace('  - { id: none }', '  - { id: none }\n  - { id: ce, type: cross-encoder, model: x }'),
    );
    const c = loadConfig(f);
    expect(planRuns(c).map((p) => `${p.retriever.id}/${p.reranker.id}`)).toEqual(['bm25/none', 'bm25/ce', 'd/none', 'd/ce']);
    const d = c.retrievers[1]!;
    expect(d.type === 'dense' && d.index).toEqual({ type: 'hnsw', M: 32, ef_construction: 200, ef_search: 200, seed: 100 });
    const plan = formatPlan(c, { cacheDir: '/c', offline: true, useCache: false });
    expect(plan).toContain('runs (4):');
    expect(plan).toContain(`d × ce → ${join(dir, '../results/quickstart/d/ce')}`);
    expect(plan).toContain('cache: disabled (--no-cache), offline');
  });

  it('formats key paths', () => {
    expect(formatKeyPath(['retrievers', 0, 'index', 'M'])).toBe('retrievers[0].index.M');
    expect(formatKeyPath([])).toBe('(top level)');
  });
});
