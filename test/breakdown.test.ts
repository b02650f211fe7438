/**
 * Query slices: the pure folds (hand-computed), the category rules (each gold skill, the paper's;
 * primary gold), gold counts and length tertiles, the on/off comparison inside each group, the
 * summary section and breakdown.json on a two-major dataset worked out by hand, and on data/mini the
 * identity "query-weighted mean of the group means = overall mean" for every partition.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { breakdownBy, breakdownByMany, primaryGold, queryCategories, queryCategoriesAll, UNLABELLED } from '../src/metrics/breakdown.js';
import { lengthGroup, tertileBoundaries, wordCount } from '../src/metrics/query-slices.js';
import type { Evaluation } from '../src/metrics/evaluate.js';
import { analyze } from '../src/analysis/report.js';
import { runSlices } from '../src/analysis/run-slices.js';
import { roundHalfEven } from '../src/util/python-round.js';
import type { ExperimentResult } from '../src/pipeline/experiment.js';
import { writeResults } from '../src/report/results-folder.js';
import { renderSummary } from '../src/report/summary.js';
import { runOn, writeTwoMajors } from './helpers/two-majors.js';

const root = resolve(__dirname, '..');

describe('breakdownBy', () => {
  it('groups, counts and averages by hand; largest group first, ties by name, unlabelled last', () => {
    const perQuery = new Map<string, Record<string, number>>([
      ['q1', { N: 1, R: 1 }],
      ['q2', { N: 0.5, R: 1 }],
      ['q3', { N: 0, R: 0 }],
      ['q4', { N: 0.25, R: 0.5 }],
      ['q5', { N: 0.75, R: 0.25 }],
    ]);
    const group: Record<string, string | undefined> = { q1: 'Zeta', q2: 'Beta', q3: 'Zeta', q4: undefined, q5: 'Alpha' };
    const b = breakdownBy(perQuery, (q) => group[q], ['N', 'R']);
    expect([...b.keys()]).toEqual(['Zeta', 'Alpha', 'Beta', UNLABELLED]);
    expect(b.get('Zeta')).toEqual({ queries: 2, metrics: { N: 0.5, R: 0.5 } });
    expect(b.get('Alpha')).toEqual({ queries: 1, metrics: { N: 0.75, R: 0.25 } });
    expect(b.get('Beta')).toEqual({ queries: 1, metrics: { N: 0.5, R: 1 } });
    expect(b.get(UNLABELLED)).toEqual({ queries: 1, metrics: { N: 0.25, R: 0.5 } });
    expect(breakdownBy(new Map(), () => 'x', ['N']).size).toBe(0);
  });

  it('primary gold: the first judgement with the highest grade; none relevant → none', () => {
    expect(primaryGold(new Map([['a', 1], ['b', 1]]))).toBe('a');
    expect(primaryGold(new Map([['a', 1], ['b', 2], ['c', 2]]))).toBe('b');
    expect(primaryGold(new Map([['a', 0], ['b', 1]]))).toBe('b');
    expect(primaryGold(new Map([['a', 0]]))).toBeUndefined();
  });

  it('category of a query: major (or sub) of the primary gold skill; missing or blank label → undefined', () => {
    const skills = [
      { id: 's1', major: 'M1', sub: 'S1' },
      { id: 's2', major: 'M2' },
      { id: 's3', major: '  ' },
      { id: 's4' },
    ];
    const qrels = new Map([
      ['q1', new Map([['s1', 1], ['s2', 1]])],
      ['q2', new Map([['s1', 1], ['s2', 2]])],
      ['q3', new Map([['s3', 1], ['s1', 1]])],
      ['q4', new Map([['s4', 1]])],
      ['q5', new Map([['gone', 1]])],
    ]);
    expect([...queryCategories(qrels, skills)]).toEqual([['q1', 'M1'], ['q2', 'M2'], ['q3', undefined], ['q4', undefined], ['q5', undefined]]);
    expect(queryCategories(qrels, skills, 'sub').get('q1')).toBe('S1');
    expect(queryCategories(qrels, skills, 'sub').get('q2')).toBeUndefined();
  });
});

describe('two-major dataset (BM25, by hand: see test/helpers/two-majors.ts)', () => {
  let res: ExperimentResult;
  const ndcgQ5 = 1 / (1 + 1 / Math.log2(3));
  const primary = (r: ExperimentResult): ExperimentResult => ({ ...r, config: { ...r.config, report: { ...r.config.report, category_rule: 'primary_gold' } } });

  beforeAll(async () => {
    res = await runOn(writeTwoMajors());
  });

  it('summary.md: "NDCG@10 by slice", the paper rule by default (q-5 counts in both majors), counts in the header', () => {
    const md = renderSummary(analyze(res));
    expect(md).toContain('## NDCG@10 by slice');
    expect(md).toContain('### By major category');
    expect(md).toContain('| Run | Alpha Engineering (3) | Beta Creation (3) | All (5) |');
    // A = (1 + 1 + 0.61315) / 3 = 0.87105; B = (1 + 0 + 0.61315) / 3 = 0.53772; all = 3.61315 / 5.
    expect(md).toContain('| bm25 / none | 87.11 | 53.77 | 72.26 |');
    expect(md).toContain('counts once in each distinct major of its gold skills');
    expect(md).toContain('can sum to more than the queries');
    // By number of gold skills: q-1..q-4 have one, q-5 two.
    expect(md).toContain('### By number of gold skills');
    expect(md).toContain('| Run | 1 gold (4) | 2 gold (1) | All (5) |');
    expect(md).toContain('| bm25 / none | 75.00 | 61.31 | 72.26 |');
    // Every query has 1 or 2 words: one length group, so no length table; one sub: no sub table.
    expect(md).not.toContain('### By query length');
    expect(md).not.toContain('### By sub-category');
  });

  it('category_rule primary_gold: the primary gold skill only, a partition', () => {
    const md = renderSummary(analyze(primary(res)));
    expect(md).toContain('| Run | Beta Creation (3) | Alpha Engineering (2) | All (5) |');
    expect(md).toContain('| bm25 / none | 53.77 | 100.00 | 72.26 |');
    expect(md).toContain('primary gold skill');
  });

  it('breakdown.json: every slice with counts and 5-decimal means; byte-identical on rewrite', () => {
    const out = mkdtempSync(join(tmpdir(), 'breakdown-'));
    try {
      const r = { ...res, config: { ...res.config, output: out } };
      const extras = { startedAt: 'x', finishedAt: 'y', cacheDir: out, useCache: false, offline: true, totalSeconds: 0 };
      writeResults(analyze(r), extras);
      const file = join(out, 'bm25/none/breakdown.json');
      const first = readFileSync(file);
      const doc = JSON.parse(first.toString('utf8'));
      expect(doc.category_rule).toBe('each_gold');
      expect(Object.keys(doc.slices)).toEqual(['major', 'sub', 'gold', 'length']);
      const major = doc.slices.major;
      expect(major.overlapping).toBe(true);
      expect(Object.keys(major.groups)).toEqual(['Alpha Engineering', 'Beta Creation']);
      expect(major.groups['Beta Creation'].queries).toBe(3);
      expect(major.groups['Beta Creation'].metrics['NDCG@10']).toBe(roundHalfEven((1 + ndcgQ5) / 3, 5));
      expect(major.groups['Beta Creation'].metrics['Recall@10']).toBe(0.5); // (1 + 0 + 0.5) / 3
      expect(major.groups['Beta Creation'].metrics['Completeness@10']).toBe(0.33333);
      expect(major.groups['Alpha Engineering'].metrics['NDCG@10']).toBe(roundHalfEven((2 + ndcgQ5) / 3, 5));
      expect(major.groups['Beta Creation'].vs_none).toBeUndefined();
      expect(doc.slices.gold.groups).toEqual({
        '1 gold': { queries: 4, metrics: expect.objectContaining({ 'NDCG@10': 0.75, 'Recall@10': 0.75 }) },
        '2 gold': { queries: 1, metrics: expect.objectContaining({ 'NDCG@10': roundHalfEven(ndcgQ5, 5), 'Recall@10': 0.5, 'Completeness@10': 0 }) },
      });
      expect(doc.slices.length.boundaries).toEqual([2, 2]);
      expect(Object.keys(doc.slices.length.groups)).toEqual(['≤ 2 words']);
      writeResults(analyze(r), extras);
      expect(readFileSync(file).equals(first)).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('slices', () => {
  it('word counts, tertile boundaries and group names', () => {
    expect(wordCount('  a  b\u00a0c\td\n')).toBe(4);
    expect(wordCount('   ')).toBe(0);
    expect(tertileBoundaries([9, 1, 8, 2, 7, 3, 6, 4, 5])).toEqual([3, 6]);
    expect(tertileBoundaries([1, 2, 3, 4])).toEqual([2, 3]); // ranks ⌈4/3⌉ = 2 and ⌈8/3⌉ = 3
    expect(tertileBoundaries([])).toBeUndefined();
    expect(lengthGroup(3, [3, 6])).toBe('≤ 3 words');
    expect(lengthGroup(4, [3, 6])).toBe('4–6 words');
    expect(lengthGroup(7, [3, 6])).toBe('> 6 words');
    expect(lengthGroup(4, [3, 4])).toBe('4 words');
  });

  it('each_gold categories: distinct labels of relevant gold skills in judgement order', () => {
    const skills = [
      { id: 's1', major: 'M1' },
      { id: 's2', major: 'M2' },
      { id: 's3', major: 'M1' },
      { id: 's4' },
    ];
    const qrels = new Map([
      ['q1', new Map([['s2', 1], ['s1', 1], ['s3', 1]])],
      ['q2', new Map([['s1', 0], ['s4', 1]])],
    ]);
    expect([...queryCategoriesAll(qrels, skills)]).toEqual([['q1', ['M2', 'M1']], ['q2', []]]);
  });

  it('a query in several groups counts once in each; explicit order first', () => {
    const perQuery = new Map([
      ['a', { N: 1 }],
      ['b', { N: 0 }],
      ['c', { N: 0.5 }],
    ]);
    const groups: Record<string, string[]> = { a: ['X', 'Y', 'X'], b: ['Y'], c: [] };
    const b = breakdownByMany(perQuery, (q) => groups[q]!, ['N'], ['Y']);
    expect([...b]).toEqual([
      ['Y', { queries: 2, metrics: { N: 0.5 } }],
      ['X', { queries: 1, metrics: { N: 1 } }],
      [UNLABELLED, { queries: 1, metrics: { N: 0.5 } }],
    ]);
  });

  it('on/off inside each group: Δ, helped/hurt and Holm over the groups, by hand', () => {
    const qrels = new Map([
      ['q1', new Map([['s1', 1]])],
      ['q2', new Map([['s1', 1]])],
      ['q3', new Map([['s2', 1]])],
      ['q4', new Map([['s2', 1], ['s1', 1]])],
    ]);
    const data = {
      queries: ['q1', 'q2', 'q3', 'q4'].map((id, i) => ({ id, text: 'w '.repeat(i + 1) })),
      qrels,
      skills: [
        { id: 's1', major: 'A' },
        { id: 's2', major: 'B' },
      ],
    };
    const ev = (vals: number[]) => ({ perQuery: new Map(vals.map((v, i) => [`q${i + 1}`, { N: v }])) }) as unknown as Evaluation;
    const base = ev([0.5, 0.5, 1, 0]);
    const treated = ev([1, 0.5, 0.5, 1]);
    const [off, on] = runSlices(
      data,
      [
        { retriever: 'r', reranker: 'none', evaluation: base },
        { retriever: 'r', reranker: 'x', evaluation: treated, base },
      ],
      { rule: 'each_gold', keys: ['N'], primaryKey: 'N', seed: 7, iterations: 2000 },
    );
    expect(off!.slices[0]!.groups.get('A')!.vsNone).toBeUndefined();
    const major = on!.slices.find((s) => s.name === 'major')!;
    // A: q1, q2, q4 (q4 has gold in A and B); B: q3, q4.
    const a = major.groups.get('A')!;
    expect(a.queries).toBe(3);
    expect(a.metrics.N).toBeCloseTo(2.5 / 3, 15);
    expect(a.vsNone).toMatchObject({ helped: 2, hurt: 0, unchanged: 1 });
    expect(a.vsNone!.delta).toBeCloseTo(2.5 / 3 - 1 / 3, 15);
    const b = major.groups.get('B')!;
    expect(b.vsNone).toMatchObject({ helped: 1, hurt: 1, unchanged: 0, delta: 0.25 });
    for (const g of [a, b]) {
      expect(g.vsNone!.pValue).toBeGreaterThan(0);
      expect(g.vsNone!.pHolm).toBeGreaterThanOrEqual(g.vsNone!.pValue);
    }
    // Holm with two tests: the smaller p doubled, the larger kept (or raised to the first).
    const [lo, hi] = [a, b].map((g) => g.vsNone!.pValue).sort((x, y) => x - y);
    const corrected = [a, b].map((g) => g.vsNone!.pHolm).sort((x, y) => x - y);
    expect(corrected[0]).toBeCloseTo(Math.min(1, 2 * lo!), 15);
    expect(corrected[1]).toBeCloseTo(Math.max(Math.min(1, 2 * lo!), hi!), 15);
    // With only three queries (2^3 = 8 sign patterns) no group can be significant.
    expect(a.vsNone!.pValue).toBeGreaterThan(0.05);
  });
});

describe('data/mini (6 majors in the corpus)', () => {
  it('partitions: the query-weighted mean of the group means is the overall mean; each_gold covers every query', async () => {
    const res = await runOn(join(root, 'data/mini'));
    const overall = res.runs[0]!.evaluation.aggregate;
    const evaluated = res.runs[0]!.evaluation.counts.evaluated;
    const check = (report: ReturnType<typeof analyze>, name: string, partition: boolean) => {
      const s = report.slices[0]!.slices.find((x) => x.name === name)!;
      const groups = [...s.groups.values()];
      const n = groups.reduce((t, g) => t + g.queries, 0);
      if (!partition) {
        expect(n).toBeGreaterThanOrEqual(evaluated);
        return s;
      }
      expect(n).toBe(evaluated);
      for (const key of Object.keys(overall)) {
        const weighted = groups.reduce((t, g) => t + g.queries * g.metrics[key]!, 0) / n;
        expect(weighted).toBeCloseTo(overall[key]!, 12);
      }
      return s;
    };
    const primaryMajor = check(analyze({ ...res, config: { ...res.config, report: { ...res.config.report, category_rule: 'primary_gold' } } }), 'major', true);
    expect([...primaryMajor.groups.keys()]).toEqual(['Software Engineering', 'Business & Planning', 'AI Agents', 'Content Creation', 'Data & ML']);
    expect([...primaryMajor.groups.values()].map((g) => g.queries)).toEqual([11, 4, 3, 2, 1]);
    const report = analyze(res);
    check(report, 'major', false);
    check(report, 'gold', true);
    const length = check(report, 'length', true);
    expect(length.boundaries).toBeDefined();
    expect(length.groups.size).toBe(3);
    expect(overall['NDCG@10']).toBeCloseTo(0.84315, 5);
  });
});
