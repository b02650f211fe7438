import { describe, expect, it } from 'vitest';
import { aggregateScores, fuseSegmentLists, fuseSegmentRun } from '../src/query/fuse-segments.js';

const s1 = [
  { docId: 'a', score: 3 },
  { docId: 'b', score: 2 },
];
const s2 = [
  { docId: 'b', score: 5 },
  { docId: 'c', score: 1 },
];

describe('fusing segment lists', () => {
  it('rrf: Σ 1/(k + rank) over the segments that returned the doc', () => {
    const out = fuseSegmentLists([s1, s2], { fuse: 'rrf', rrfK: 60, topK: 10 });
    expect(out).toEqual([
      { docId: 'b', score: 1 / 62 + 1 / 61 },
      { docId: 'a', score: 1 / 61 },
      { docId: 'c', score: 1 / 62 },
    ]);
  });
  it('max: the best segment score', () => {
    expect(fuseSegmentLists([s1, s2], { fuse: 'max', rrfK: 60, topK: 2 })).toEqual([
      { docId: 'b', score: 5 },
      { docId: 'a', score: 3 },
    ]);
  });
  it('mean: a segment without the doc contributes its lowest score; empty segments do not count', () => {
    // a: (3 + 1) / 2; b: (2 + 5) / 2; c: (2 + 1) / 2
    expect(fuseSegmentLists([s1, [], s2], { fuse: 'mean', rrfK: 60, topK: 10 })).toEqual([
      { docId: 'b', score: 3.5 },
      { docId: 'a', score: 2 },
      { docId: 'c', score: 1.5 },
    ]);
    expect(fuseSegmentLists([[], []], { fuse: 'mean', rrfK: 60, topK: 10 })).toEqual([]);
  });
  it('a run over segments becomes a run over queries; ties by doc id descending', () => {
    const run = fuseSegmentRun(
      new Map([
        ['seg0', [{ docId: 'x', score: 1 }]],
        ['seg1', [{ docId: 'y', score: 1 }]],
      ]),
      new Map([
        ['q', ['seg0', 'seg1']],
        ['empty', []],
      ]),
      { fuse: 'max', rrfK: 60, topK: 5 },
    );
    expect(run.get('q')).toEqual([
      { docId: 'y', score: 1 },
      { docId: 'x', score: 1 },
    ]);
    expect(run.get('empty')).toEqual([]);
  });
  it('reranker aggregation', () => {
    expect(aggregateScores([1, -2, 4], 'max')).toBe(4);
    expect(aggregateScores([1, -2, 4], 'mean')).toBe(1);
    expect(() => aggregateScores([], 'max')).toThrow();
  });
});
