/**
 * The terminal report of `explain` (src/report/explain-output.ts): every count with its noun in the right
 * number (1 query, 1 pair; 2 queries, 2 pairs), no word printed twice in a row.
 */
import { describe, expect, it } from 'vitest';
import type { ExplainResult } from '../src/pipeline/explain-run.js';
import { renderExplainText } from '../src/report/explain-output.js';

const stats = (mean: number) => ({ mean, quantiles: {} });

function result(n: number): ExplainResult {
  return {
    runDir: '/r/bm25/ce',
    retriever: 'bm25',
    reranker: 'ce',
    scorer: 'reranker ce (cross-encoder) over the pool of bm25',
    selection: 'all queries',
    explanations: Array.from({ length: n }, (_, i) => ({ id: `q${i}`, gold: [] })) as never,
    concentration: {
      pairs: n,
      without_signal: n,
      top1: stats(0.5),
      top2: stats(0.75),
      top3: stats(1),
      by_length: [{ slice: '≤100 words', pairs: n, top1: 0.5, top2: 0.75, top3: 1 }],
    },
    cost: { queries: n, scoredTexts: n, encodedTexts: null, modelPairs: n, seconds: 0.5 },
  };
}

describe('explain terminal text', () => {
  it('one of each: singular nouns', () => {
    const text = renderExplainText(result(1), ['/r/bm25/ce/explain.jsonl']);
    expect(text).toBe(
      [
        'explain bm25/ce: 1 query (all queries), 2 (query, gold skill) pairs',
        'scorer: reranker ce (cross-encoder) over the pool of bm25',
        'concentration of sentence-erasure importance (share held by the top 1 / 2 / 3 sentences, mean over pairs):',
        '  all: 0.50 / 0.75 / 1.00 (1 pair; 1 with no positive importance left out)',
        '  ≤100 words: 0.50 / 0.75 / 1.00 (1 pair)',
        'cost: 1 text or pair scored, 1 pair through the model (the rest from the score cache), 0.50 s',
        'wrote /r/bm25/ce/explain.jsonl',
        '',
      ].join('\n'),
    );
  });

  it('two of each: plural nouns', () => {
    const text = renderExplainText({ ...result(2), concentration: { ...result(2).concentration, without_signal: 0 }, cost: { ...result(2).cost, encodedTexts: 2 } }, []);
    expect(text.split('\n')[0]).toBe('explain bm25/ce: 2 queries (all queries), 2 (query, gold skill) pairs');
    expect(text).toContain('  all: 0.50 / 0.75 / 1.00 (2 pairs)\n');
    expect(text).toContain('  ≤100 words: 0.50 / 0.75 / 1.00 (2 pairs)\n');
    expect(text).toContain('cost: 2 texts or pairs scored, 2 encoded by the model (the rest from the cache), 2 pairs through the model');
  });

  it('one (query, gold skill) pair in all', () => {
    const text = renderExplainText({ ...result(1), concentration: { ...result(1).concentration, without_signal: 0 } }, []);
    expect(text.split('\n')[0]).toBe('explain bm25/ce: 1 query (all queries), 1 (query, gold skill) pair');
  });
});
