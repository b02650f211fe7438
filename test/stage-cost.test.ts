/**
 * The cost row of a stage (analysis/stage-cost.ts) from the typed cost facts every kind's info is
 * checked against (core/stages.ts StageCostFacts): each branch of rates, truncation and cache words,
 * on the info shapes the kinds write (BM25, local dense, a dense stage cache hit, rerankers).
 */
import { describe, expect, it } from 'vitest';
import type { StageInfo } from '../src/core/stages.js';
import { stageCost } from '../src/analysis/stage-cost.js';
import type { StageRecord } from '../src/pipeline/experiment.js';

const retrieval = (info: StageInfo): StageRecord => ({ kind: 'retrieval', id: 'r', params: {}, info, seconds: 1.5 });
const rerank = (info: StageInfo): StageRecord => ({ kind: 'rerank', id: 'x', over: 'r', params: {}, info, seconds: 2 });

describe('stage cost rows', () => {
  it('BM25: index built, index reused, hits reused', () => {
    expect(stageCost(retrieval({ type: 'bm25', cache: 'miss' })).cache).toBe('index built');
    expect(stageCost(retrieval({ type: 'bm25', cache: 'off' })).cache).toBe('index built');
    expect(stageCost(retrieval({ type: 'bm25', cache: 'hit' })).cache).toBe('index reused');
    expect(stageCost(retrieval({ type: 'bm25', cache: 'hit', runCache: true })).cache).toBe('hits reused');
    expect(stageCost(retrieval({ type: 'bm25', cache: 'hit' })).rates).toEqual([]);
  });

  it('dense: throughputs in order, null rates left out, truncation of documents, embedding cache hits', () => {
    const c = stageCost(
      retrieval({
        type: 'dense',
        throughput: { docsPerSec: 512.25, tokensPerSec: 9000 },
        truncation: { documentsTruncated: 3, documentsTotal: 45 },
        cache: { stage: 'miss', hits: 40, misses: 5 },
      }),
    );
    expect(c).toEqual({
      kind: 'retrieval',
      id: 'r',
      seconds: 1.5,
      rates: [
        { value: 512.25, digits: 1, unit: 'docs/s' },
        { value: 9000, digits: 0, unit: 'tokens/s' },
      ],
      truncation: { count: 3, total: 45, of: 'documents' },
      cache: '40 hit / 5 miss',
    });
    expect(stageCost(retrieval({ type: 'dense', throughput: { docsPerSec: null, tokensPerSec: null } })).rates).toEqual([]);
    expect(stageCost(retrieval({ type: 'dense', truncation: { documentsTruncated: 0, documentsTotal: 0 } })).truncation).toBeUndefined();
  });

  it('dense: a stage cache hit says so before the embedding counts', () => {
    expect(stageCost(retrieval({ type: 'dense', cache: { stage: 'hit', hits: 3, misses: 0 } })).cache).toBe('stage output reused');
  });

  it('rerankers: pairs/s and truncation of the pairs scored now; all cached → no rate', () => {
    const some = stageCost(rerank({ pairs: 100, cachedPairs: 40, truncatedPairs: 6, pairsPerSecond: 250 }));
    expect(some).toEqual({
      kind: 'rerank',
      id: 'x',
      over: 'r',
      seconds: 2,
      rates: [{ value: 250, digits: 1, unit: 'pairs/s' }],
      truncation: { count: 6, total: 60, of: 'scored pairs' },
      cache: '40 / 100 pairs cached',
    });
    const all = stageCost(rerank({ pairs: 100, cachedPairs: 100, truncatedPairs: 0, pairsPerSecond: 0 }));
    expect(all.rates).toEqual([]);
    expect(all.truncation).toBeUndefined();
    expect(all.cache).toBe('100 / 100 pairs cached');
  });

  it('a kind that measures nothing gets seconds only', () => {
    expect(stageCost(retrieval({ type: 'run', path: 'x.trec' }))).toEqual({ kind: 'retrieval', id: 'r', seconds: 1.5, rates: [] });
  });
});
