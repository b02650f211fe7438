/** evaluate(): re-ranking, skipping rules, counts and the mean; aggregate() as a fold. */
import { describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import type { Qrels, Run } from '../src/core/types.js';
import { aggregate, evaluate } from '../src/metrics/evaluate.js';
import { defaultMeasures, measureKey, parseMeasures } from '../src/metrics/measures.js';

const L3 = Math.log2(3);

const qrels = (): Qrels =>
  new Map([
    ['q1', new Map([['a', 2], ['b', 1]])],
    ['q2', new Map([['c', 1]])],
    ['q3', new Map([['d', 0]])], // no relevant document: zeros, counted (trec_eval 10.0)
    ['q4', new Map([['e', 1]])], // missing from the run: skipped
    ['q5', new Map(['f', 'g', 'h', 'i', 'j', 'k'].map((d) => [d, 1]))], // 6 relevant > 5
  ]);

const run = (): Run =>
  new Map([
    // submitted as a, x, b; scores put x first, then the a/b tie goes to b (b > a): x, b, a
    ['q1', [{ docId: 'a', score: 0.5 }, { docId: 'x', score: 0.9 }, { docId: 'b', score: 0.5 }]],
    ['q2', []], // ran, retrieved nothing: scores 0
    ['q3', [{ docId: 'd', score: 1 }]],
    ['q5', ['f', 'g', 'h', 'i', 'j'].map((docId, i) => ({ docId, score: 5 - i }))],
    ['qX', [{ docId: 'a', score: 1 }]], // not in the qrels: ignored
  ]);

describe('evaluate', () => {
  const ev = evaluate(qrels(), run(), defaultMeasures([5, 10]));

  it('scores q1 with the tie broken by doc id descending', () => {
    const q1 = ev.perQuery.get('q1')!;
    // ranking x, b, a. DCG@5 = 1/log2(3) [b] + 2/log2(4) [a] = 0.63093 + 1 = 1.63093
    // IDCG@5 = 2 + 1/log2(3) = 2.63093 -> 0.619906 (a before b would give 1.76186/2.63093 = 0.669672)
    expect(q1['NDCG@5']).toBeCloseTo((1 / L3 + 1) / (2 + 1 / L3), 15);
    expect(q1['MAP@5']).toBeCloseTo((1 / 2 + 2 / 3) / 2, 15); // b at 2: 1/2, a at 3: 2/3 -> 7/12
    expect(q1['Recall@5']).toBe(1);
    expect(q1['Precision@5']).toBe(0.4); // 2/5
    expect(q1['Precision@10']).toBe(0.2); // 2/10, 3 returned
    expect(q1['Completeness@5']).toBe(1);
    expect(q1['MRR@5']).toBe(0.5);
  });

  it('scores an empty ranking as zeros', () => {
    expect(Object.values(ev.perQuery.get('q2')!)).toEqual(new Array(12).fill(0));
  });

  it('scores a query with more gold than k', () => {
    const q5 = ev.perQuery.get('q5')!;
    // top 5 all relevant, R = 6: IDCG@5 is cut at 5, so NDCG@5 = 1
    expect(q5['NDCG@5']).toBe(1);
    expect(q5['MAP@5']).toBeCloseTo(5 / 6, 15); // (1+1+1+1+1)/6
    expect(q5['Recall@5']).toBeCloseTo(5 / 6, 15);
    expect(q5['Completeness@5']).toBe(0);
    expect(q5['Completeness@10']).toBe(0);
    expect(q5['Precision@10']).toBe(0.5); // 5/10
    // NDCG@10 = sum_{i=1..5} 1/log2(i+1) / sum_{i=1..6} 1/log2(i+1)
    const dcg5 = 1 + 1 / L3 + 1 / 2 + 1 / Math.log2(5) + 1 / Math.log2(6);
    expect(q5['NDCG@10']).toBeCloseTo(dcg5 / (dcg5 + 1 / Math.log2(7)), 15);
  });

  it('evaluates the queries in both, in qrels order, and counts the rest', () => {
    expect([...ev.perQuery.keys()]).toEqual(['q1', 'q2', 'q3', 'q5']);
    expect(Object.values(ev.perQuery.get('q3')!)).toEqual(new Array(12).fill(0));
    expect(ev.counts).toEqual({
      evaluated: 4,
      qrelsQueries: 5,
      missingFromRun: ['q4'],
      notInQrels: ['qX'],
      emptyRankings: 1,
      noRelevant: ['q3'],
      moreGoldThanK: { '5': 1, '10': 0 },
      queryIdAsDoc: [],
    });
  });

  it('means over evaluated queries only (missing ones are not zeros; all-non-positive ones are)', () => {
    // NDCG@5: (0.619906 + 0 + 0 + 1) / 4
    expect(ev.aggregate['NDCG@5']).toBeCloseTo(((1 / L3 + 1) / (2 + 1 / L3) + 0 + 0 + 1) / 4, 15);
    // MAP@5: (7/12 + 0 + 0 + 5/6) / 4 = 17/48
    expect(ev.aggregate['MAP@5']).toBeCloseTo(17 / 48, 15);
    // Precision@5: (0.4 + 0 + 0 + 1) / 4
    expect(ev.aggregate['Precision@5']).toBeCloseTo(1.4 / 4, 15);
    // Completeness@5: (1 + 0 + 0 + 0) / 4
    expect(ev.aggregate['Completeness@5']).toBeCloseTo(1 / 4, 15);
    expect(Object.keys(ev.aggregate)).toEqual(defaultMeasures([5, 10]).map(measureKey));
  });

  it('rejects a doc id twice in one ranking, naming query and doc', () => {
    const r = run();
    r.set('q1', [{ docId: 'a', score: 1 }, { docId: 'a', score: 0.5 }]);
    expect(() => evaluate(qrels(), r, defaultMeasures([5]))).toThrow(UserError);
    expect(() => evaluate(qrels(), r, defaultMeasures([5]))).toThrow(/query "q1": document "a" appears more than once/);
    // Past 64 documents the check uses a Set; ids built at run time (not the same string objects).
    const long = Array.from({ length: 90 }, (_, i) => ({ docId: `d${i}`, score: 90 - i }));
    r.set('q1', [...long, { docId: ['d', '7'].join(''), score: 0 }]);
    expect(() => evaluate(qrels(), r, defaultMeasures([5]))).toThrow(/query "q1": document "d7" appears more than once/);
    r.set('q1', [{ docId: 'b', score: 1 }, { docId: ['b'].join(''), score: 0.5 }]);
    expect(() => evaluate(qrels(), r, defaultMeasures([5]))).toThrow(/query "q1": document "b" appears more than once/);
    r.set('q1', long);
    expect(() => evaluate(qrels(), r, defaultMeasures([5]))).not.toThrow();
  });

  it('rejects a non-finite score', () => {
    const r = run();
    r.set('q2', [{ docId: 'c', score: Number.NaN }]);
    expect(() => evaluate(qrels(), r, defaultMeasures([5]))).toThrow(/query "q2": document "c": score is not a finite number/);
  });

  it('reports (and scores) a doc id equal to the query id', () => {
    const q: Qrels = new Map([['q1', new Map([['q1', 1]])]]);
    const e = evaluate(q, new Map([['q1', [{ docId: 'q1', score: 1 }]]]), parseMeasures(['P@1']));
    expect(e.perQuery.get('q1')!['Precision@1']).toBe(1);
    expect(e.counts.queryIdAsDoc).toEqual(['q1']);
  });

  it('refuses when no query is in both run and qrels', () => {
    expect(() => evaluate(qrels(), new Map([['zz', []]]), defaultMeasures([5]))).toThrow(UserError);
  });
});

describe('aggregate', () => {
  it('folds any subset; order of the map does not matter', () => {
    const pq = new Map([
      ['b', { m: 0.1 }],
      ['a', { m: 0.2 }],
      ['c', { m: 0.6 }],
    ]);
    const rev = new Map([...pq].reverse());
    // sum in id order a, b, c: (0.2 + 0.1) + 0.6 = 0.9000000000000001 -> / 3
    expect(aggregate(pq, ['m'])).toEqual({ m: (0.2 + 0.1 + 0.6) / 3 });
    expect(aggregate(rev, ['m'])).toEqual(aggregate(pq, ['m']));
    expect(aggregate(new Map([['a', { m: 0.2 }]]), ['m'])).toEqual({ m: 0.2 });
  });

  it('gives NaN for an empty set', () => {
    expect(Number.isNaN(aggregate(new Map(), ['m'])['m'])).toBe(true);
  });
});
