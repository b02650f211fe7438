/**
 * Hit@k and Judged@k (src/metrics/hit.ts, judged.ts) through `evaluate` against their plain
 * definitions, on random qrels and runs with frequent score ties (so trec_eval's ranking rule, score
 * descending then doc id descending by UTF-8 bytes, decides the top k):
 * - Hit@k: 1 when some document of grade >= 1 is among the first k of the ranking, else 0
 *   (trec_eval `success.k`, ir_measures `Success@k`; equality with trec_eval 10.0 is in
 *   test/metrics-trec-eval-sample.test.ts);
 * - Judged@k: the share of the first min(k, n) documents that have a qrels line for the query, of any
 *   grade (0 and -1 included), ir_measures' `Judged@k`; 0 for an empty ranking.
 * The reference sorts with its own comparator (Buffer.compare on the UTF-8 bytes) and looks grades up
 * in plain objects: nothing is shared with the evaluator but the inputs.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Qrels, Run } from '../src/core/types.js';
import { evaluate } from '../src/metrics/evaluate.js';
import { type Measure, measureKey, parseMeasure } from '../src/metrics/measures.js';

/** trec_eval order, plainly: score descending, then doc id descending by its UTF-8 bytes. */
function plainOrder(docs: ReadonlyArray<{ docId: string; score: number }>): string[] {
  return [...docs].sort((a, b) => (a.score !== b.score ? b.score - a.score : Buffer.compare(Buffer.from(b.docId), Buffer.from(a.docId)))).map((d) => d.docId);
}

function plainHit(ranked: readonly string[], grades: Record<string, number>, k: number): number {
  return ranked.slice(0, k).some((d) => Object.hasOwn(grades, d) && grades[d]! >= 1) ? 1 : 0;
}

function plainJudged(ranked: readonly string[], grades: Record<string, number>, k: number): number {
  const top = ranked.slice(0, k);
  if (top.length === 0) return 0;
  return top.filter((d) => Object.hasOwn(grades, d)).length / top.length;
}

// Ids from a small alphabet with non-ASCII letters (byte order differs from UTF-16 order for the last two).
const docId = fc.string({ unit: fc.constantFrom('a', 'b', 'B', 'é', '中', '\uE000', '😀'), minLength: 1, maxLength: 3 });
const grade = fc.constantFrom(-1, 0, 0, 1, 1, 2, 3);
const score = fc.constantFrom(0, 0.5, 1, 1, 2, -0.25, 3.75);

const arbCase = fc
  .array(
    fc.record({
      judged: fc.dictionary(docId, grade, { maxKeys: 8 }),
      ranking: fc.uniqueArray(fc.record({ docId, score }), { selector: (d) => d.docId, maxLength: 14 }),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((qs) => {
    const qrels: Qrels = new Map();
    const run: Run = new Map();
    qs.forEach((q, i) => {
      qrels.set(`q${i}`, new Map(Object.entries(q.judged)));
      run.set(`q${i}`, q.ranking);
    });
    return { qs, qrels, run };
  });

const ks = fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 4 });

describe('Hit@k and Judged@k equal their plain definitions', () => {
  test.prop([arbCase, ks])('per query and the mean, for every k', ({ qs, qrels, run }, cutoffs) => {
    const measures: Measure[] = cutoffs.flatMap((k) => [
      { name: 'Hit', k },
      { name: 'Judged', k },
    ]);
    const ev = evaluate(qrels, run, measures);
    const sums = new Map<string, number>();
    qs.forEach((q, i) => {
      const ranked = plainOrder(q.ranking);
      const rec = ev.perQuery.get(`q${i}`)!;
      for (const k of cutoffs) {
        const h = plainHit(ranked, q.judged, k);
        const j = plainJudged(ranked, q.judged, k);
        expect(rec[`Hit@${k}`], `q${i} Hit@${k}`).toBe(h);
        expect(rec[`Judged@${k}`], `q${i} Judged@${k}`).toBe(j);
        sums.set(`Hit@${k}`, (sums.get(`Hit@${k}`) ?? 0) + h);
        sums.set(`Judged@${k}`, (sums.get(`Judged@${k}`) ?? 0) + j);
      }
    });
    for (const [key, s] of sums) expect(ev.aggregate[key]).toBeCloseTo(s / qs.length, 12);
  });

  test.prop([arbCase, fc.integer({ min: 1, max: 20 })])('Hit@k = 1 exactly when MRR@k > 0, and = 1 - (Recall@k = 0) on queries with gold', ({ qrels, run }, k) => {
    const ev = evaluate(qrels, run, [{ name: 'Hit', k }, { name: 'MRR', k }, { name: 'Recall', k }]);
    for (const rec of ev.perQuery.values()) {
      expect(rec[`Hit@${k}`]).toBe(rec[`MRR@${k}`]! > 0 ? 1 : 0);
      expect(rec[`Hit@${k}`]).toBe(rec[`Recall@${k}`]! > 0 ? 1 : 0);
    }
  });
});

describe('Hit@k and Judged@k by hand', () => {
  it('judged counts grade 0 and -1, not unjudged; the denominator is min(k, length) (ir_measures)', () => {
    const qrels: Qrels = new Map([['q', new Map([['a', 1], ['b', 0], ['c', -1]])]]);
    const run: Run = new Map([['q', [{ docId: 'x', score: 4 }, { docId: 'b', score: 3 }, { docId: 'c', score: 2 }, { docId: 'a', score: 1 }]]]);
    const ev = evaluate(qrels, run, ['Judged@1', 'Judged@2', 'Judged@4', 'Judged@10', 'Hit@1', 'Hit@3', 'Hit@4', 'success_10'].map(parseMeasure));
    expect(ev.perQuery.get('q')).toEqual({ 'Judged@1': 0, 'Judged@2': 0.5, 'Judged@4': 0.75, 'Judged@10': 0.75, 'Hit@1': 0, 'Hit@3': 0, 'Hit@4': 1, 'Hit@10': 1 });
  });

  it('the ir_measures test case of Judged (query 1: 1 of 4 judged)', () => {
    const qrels: Qrels = new Map([
      ['0', new Map([['D0', 0], ['D1', 1], ['D2', 1], ['D3', 2], ['D4', 0]])],
      ['1', new Map([['D0', 1], ['D3', 2], ['D5', 2]])],
    ]);
    const run: Run = new Map([
      ['0', [{ docId: 'D0', score: 0.8 }, { docId: 'D2', score: 0.7 }, { docId: 'D1', score: 0.3 }, { docId: 'D3', score: 0.4 }, { docId: 'D4', score: 0.1 }]],
      ['1', [{ docId: 'D1', score: 0.8 }, { docId: 'D3', score: 0.7 }, { docId: 'D4', score: 0.3 }, { docId: 'D2', score: 0.4 }]],
    ]);
    const ev = evaluate(qrels, run, [parseMeasure('Judged@1000'), parseMeasure('Judged@1')]);
    expect(ev.perQuery.get('0')).toEqual({ 'Judged@1000': 1, 'Judged@1': 1 });
    expect(ev.perQuery.get('1')).toEqual({ 'Judged@1000': 0.25, 'Judged@1': 0 });
  });

  it('an empty ranking scores 0 on both', () => {
    const ev = evaluate(new Map([['q', new Map([['a', 1]])]]), new Map([['q', []]]), [parseMeasure('Hit@5'), parseMeasure('Judged@5')]);
    expect(ev.perQuery.get('q')).toEqual({ 'Hit@5': 0, 'Judged@5': 0 });
  });

  it('names: trec_eval success_1 / success.1, ir_measures Success@1 and Judged@10, SkillRouter FullCoverage@10', () => {
    expect(['Hit@1', 'hit@1', 'success_1', 'success.1', 'Success@1'].map((s) => measureKey(parseMeasure(s)))).toEqual(Array(5).fill('Hit@1'));
    expect(['Judged@10', 'judged_10', 'judged.10'].map((s) => measureKey(parseMeasure(s)))).toEqual(Array(3).fill('Judged@10'));
    expect(['FullCoverage@10', 'full_coverage_10'].map((s) => measureKey(parseMeasure(s)))).toEqual(Array(2).fill('Completeness@10'));
    expect(['recall.50', 'recall_50', 'R@50', 'ndcg_cut.100'].map((s) => measureKey(parseMeasure(s)))).toEqual(['Recall@50', 'Recall@50', 'Recall@50', 'NDCG@100']);
  });
});
