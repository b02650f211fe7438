import { describe, expect, it } from 'vitest';
import { rangeText, sentenceWindows, splitSentences, withoutSentence } from '../src/query/segment.js';
import { querySegments, segmentCounts, segmentQueries, strategyLabel } from '../src/query/strategy.js';

describe('splitSentences (Intl.Segmenter)', () => {
  it('splits on sentence ends and paragraph breaks; spans tile the text; blank lines fold into the sentence before', () => {
    const q = '  We run Postgres. Backups fail!\n\nWhy? fix it\nplease';
    const s = splitSentences(q);
    expect(s.map((x) => x.text)).toEqual(['We run Postgres.', 'Backups fail!', 'Why?', 'fix it', 'please']);
    expect(s[0]!.start).toBe(0); // leading whitespace belongs to the first sentence
    expect(s.map((x) => q.slice(x.start, x.end)).join('')).toBe(q);
    expect(q.slice(s[1]!.start, s[1]!.end)).toBe('Backups fail!\n\n');
  });

  it('a text without visible characters has no sentence', () => {
    expect(splitSentences(' \n\t ')).toEqual([]);
    expect(splitSentences('')).toEqual([]);
  });

  it('withoutSentence cuts exactly one raw span', () => {
    const q = 'One. Two. Three.';
    const s = splitSentences(q);
    expect(withoutSentence(q, s, 0)).toBe('Two. Three.');
    expect(withoutSentence(q, s, 1)).toBe('One. Three.');
    expect(withoutSentence(q, s, 2)).toBe('One. Two. ');
  });
});

describe('sentenceWindows', () => {
  it('covers every sentence, last window reaches the end', () => {
    expect(sentenceWindows(5, 3, 1)).toEqual([
      { from: 0, to: 3 },
      { from: 1, to: 4 },
      { from: 2, to: 5 },
    ]);
    expect(sentenceWindows(5, 2, 2)).toEqual([
      { from: 0, to: 2 },
      { from: 2, to: 4 },
      { from: 4, to: 5 },
    ]);
    expect(sentenceWindows(2, 3, 1)).toEqual([{ from: 0, to: 2 }]);
    expect(sentenceWindows(0, 3, 1)).toEqual([]);
  });
  it('rejects a stride that would skip sentences', () => {
    expect(() => sentenceWindows(5, 2, 3)).toThrow(/stride/);
    expect(() => sentenceWindows(5, 0, 1)).toThrow(/size/);
  });
  it('window text spans its sentences', () => {
    const q = 'A one. B two. C three.';
    const s = splitSentences(q);
    expect(rangeText(q, s, { from: 1, to: 3 })).toBe('B two. C three.');
  });
});

describe('query strategies', () => {
  const queries = [
    { id: 'q#1', text: 'First. Second. Third.' },
    { id: 'q2', text: '   ' },
  ];
  it('whole keeps the text; sentences and windows split it; an empty query stays one segment', () => {
    expect(querySegments('First. Second.', { strategy: 'whole' })).toEqual(['First. Second.']);
    expect(querySegments('First. Second. Third.', { strategy: 'sentences', fuse: 'rrf', rrfK: 60 })).toEqual(['First.', 'Second.', 'Third.']);
    expect(querySegments('First. Second. Third.', { strategy: 'windows', size: 2, stride: 1, fuse: 'max', rrfK: 60 })).toEqual([
      'First. Second.',
      'Second. Third.',
    ]);
    expect(querySegments('   ', { strategy: 'sentences', fuse: 'rrf', rrfK: 60 })).toEqual(['   ']);
  });
  it('segment ids are opaque and map back to their query', () => {
    const seg = segmentQueries(queries, { strategy: 'sentences', fuse: 'rrf', rrfK: 60 });
    expect(seg.segments.map((s) => s.id)).toEqual(['seg0', 'seg1', 'seg2', 'seg3']);
    expect(seg.byQuery.get('q#1')).toEqual(['seg0', 'seg1', 'seg2']);
    expect(seg.owner.get('seg3')).toBe('q2');
    expect(segmentCounts(seg)).toEqual({ segments: 4, queries: 2, per_query: { min: 1, mean: 2, max: 3 } });
  });
  it('labels', () => {
    expect(strategyLabel({ strategy: 'whole' })).toBe('whole');
    expect(strategyLabel({ strategy: 'windows', size: 3, stride: 1, fuse: 'rrf', rrfK: 60 })).toBe('windows 3/1·rrf');
  });
});
