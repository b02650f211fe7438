/** The `type: fusion` retriever in the config: defaults, and one-line errors with key path, line and suggestion. */
import { describe, expect, it } from 'vitest';
import { configError, configProblems } from './helpers/cli.js';
import { parseConfig } from '../src/pipeline/config.js';
import { formatPlan } from '../src/pipeline/plan.js';

const base = (fusion: string, more = '') => `name: t
dataset: { path: ../data/mini }
retrievers:
  - { id: bm25, type: bm25, top_k: 30 }
  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 10 }
${fusion}
${more}output: ./out
`;

const err = (text: string): string => configError(text);

describe('fusion config', () => {
  it('fills the method defaults: rrf_k 60 for rrf, norm min-max for combsum/combmnz, weights all 1', () => {
    const c = parseConfig(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf }'), '/cfg/x.yaml');
    expect(c.retrievers[2]).toEqual({ id: 'hy', type: 'fusion', inputs: ['bm25', 'glove'], method: 'rrf', rrf_k: 60, weights: [1, 1], top_k: 20 });
    const s = parseConfig(base('  - { id: hy, type: fusion, inputs: [glove, bm25], method: combmnz, weights: [0.3, 0.7], top_k: 40 }'), '/cfg/x.yaml');
    expect(s.retrievers[2]).toEqual({ id: 'hy', type: 'fusion', inputs: ['glove', 'bm25'], method: 'combmnz', norm: 'min-max', weights: [0.3, 0.7], top_k: 40 });
    // top_k above an input's top_k is allowed (the fusion sees only each input's candidates); a reranker over it too.
    expect(formatPlan(s, { cacheDir: '/c', offline: true, useCache: true })).toContain(
      '  - hy: fusion combmnz of glove + bm25 (norm=min-max, weights=[0.3, 0.7], top_k=40)',
    );
  });

  it('a fusion may fuse an earlier fusion', () => {
    const c = parseConfig(
      base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf }\n  - { id: hy2, type: fusion, inputs: [hy, bm25], method: combsum, norm: z }'),
      '/cfg/x.yaml',
    );
    expect(c.retrievers.map((r) => r.id)).toEqual(['bm25', 'glove', 'hy', 'hy2']);
  });

  it('names a misspelt input with a suggestion, on its line', () => {
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glvoe], method: rrf }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].inputs[1]: "glvoe" is not a retriever listed before this fusion (did you mean "glove"?)',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, zzzzzzz], method: rrf }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].inputs[1]: "zzzzzzz" is not a retriever listed before this fusion (allowed: bm25, glove)',
    );
  });

  it('refuses inputs listed after the fusion, itself, or twice', () => {
    const later = `name: t
dataset: { path: ../data/mini }
retrievers:
  - { id: bm25, type: bm25 }
  - id: hy
    type: fusion
    inputs:
      - bm25
      - glove
    method: rrf
  - { id: glove, type: dense, model: glove-6b-100d-static }
output: ./out
`;
    expect(err(later)).toBe(
      '/cfg/x.yaml:9: retrievers[1].inputs[1]: "glove" is listed after this fusion (retrievers[2]); a fusion reads runs already computed, so list its inputs before it',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, hy], method: rrf }'))).toBe('/cfg/x.yaml:6: retrievers[2].inputs[1]: a fusion cannot take itself as an input');
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, bm25], method: rrf }'))).toBe('/cfg/x.yaml:6: retrievers[2].inputs[1]: "bm25" is listed twice (also inputs[0])');
    // Both inputs are wrong: both are listed, each on its own line.
    expect(configProblems('name: t\ndataset: { path: x }\nretrievers:\n  - { id: hy, type: fusion, inputs: [a, b], method: rrf }\noutput: o\n')).toEqual([
      '/cfg/x.yaml:4: retrievers[0].inputs[0]: unknown retriever "a": no retriever is listed before this fusion (list its inputs first)',
      '/cfg/x.yaml:4: retrievers[0].inputs[1]: unknown retriever "b": no retriever is listed before this fusion (list its inputs first)',
    ]);
  });

  it('needs at least 2 inputs, one weight per input, a known method, and method-specific keys', () => {
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25], method: rrf }'))).toMatch(/^\/cfg\/x\.yaml:6: retrievers\[2\]\.inputs: expected array to have >=2 items, got a list$/);
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf, weights: [1] }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].weights: expected one weight per input (2), got 1',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf, weights: [0, 0] }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].weights: at least one weight must be positive',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rff }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].method: expected one of "rrf", "combsum", "combmnz", got "rff"',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: combsum, rrf_k: 10 }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].rrf_k: applies to method rrf only (this fusion is combsum)',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf, norm: z }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].norm: applies to combsum and combmnz only (rrf uses ranks, not scores)',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: combsum, norm: minmax }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].norm: expected one of "min-max", "z", "rank", "none", got "minmax"',
    );
    expect(err(base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf, rrfk: 10 }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].rrfk: unknown key (did you mean "rrf_k"?)',
    );
    expect(err(base('  - { id: hy, type: fuson, inputs: [bm25, glove], method: rrf }'))).toBe(
      '/cfg/x.yaml:6: retrievers[2].type: expected one of bm25, dense, embeddings, run, fusion, got "fuson" (did you mean "fusion"?)',
    );
  });

  it('a rerank depth beyond the fusion top_k is refused like for any retriever', () => {
    const text = base('  - { id: hy, type: fusion, inputs: [bm25, glove], method: rrf, top_k: 10 }', 'rerankers:\n  - { id: ce, type: cross-encoder, model: m, depth: 20 }\n')
      .replace('top_k: 10 }\n  - { id: hy', 'top_k: 30 }\n  - { id: hy');
    expect(err(text)).toBe('/cfg/x.yaml:8: rerankers[0].depth: depth 20 exceeds retrievers[2] ("hy") top_k 10: the reranker can only see what the first stage returned');
  });
});
