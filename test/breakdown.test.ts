/**
 * Breakdown by taxonomy category: the pure fold (hand-computed), the primary-gold rule, the summary
 * section and breakdown.json on a two-major dataset worked out by hand, and on data/mini the
 * identity "query-weighted mean of the category means = overall mean".
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { breakdownBy, primaryGold, queryCategories, UNLABELLED } from '../src/metrics/breakdown.js';
import { roundHalfEven } from '../src/metrics/round.js';
import type { ExperimentResult } from '../src/pipeline/experiment.js';
import { writeResults } from '../src/report/results-folder.js';
import { breakdownJson, renderBreakdownSection, runBreakdowns } from '../src/report/breakdown.js';
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

  beforeAll(async () => {
    res = await runOn(writeTwoMajors());
  });

  it('summary.md has "NDCG@10 by category" with the query counts in the header', () => {
    const md = renderSummary(res);
    expect(md).toContain('## NDCG@10 by category');
    expect(md).toContain('| Run | Beta Creation (3) | Alpha Engineering (2) | All (5) |');
    // B = (1 + 0 + 0.61315) / 3 = 0.53772; A = 1; all = 3.61315 / 5 = 0.72263.
    expect(md).toContain('| bm25 / none | 53.77 | 100.00 | 72.26 |');
  });

  it('breakdown.json: by major, counts and 5-decimal means; byte-identical on rewrite', () => {
    const out = mkdtempSync(join(tmpdir(), 'breakdown-'));
    try {
      const r = { ...res, config: { ...res.config, output: out } };
      const extras = { startedAt: 'x', finishedAt: 'y', cacheDir: out, useCache: false, offline: true, totalSeconds: 0 };
      writeResults(r, extras);
      const file = join(out, 'bm25/none/breakdown.json');
      const first = readFileSync(file);
      const doc = JSON.parse(first.toString('utf8'));
      expect(doc.by).toBe('major');
      expect(Object.keys(doc.groups)).toEqual(['Beta Creation', 'Alpha Engineering']);
      expect(doc.groups['Beta Creation'].queries).toBe(3);
      expect(doc.groups['Beta Creation'].metrics['NDCG@10']).toBe(roundHalfEven((1 + ndcgQ5) / 3, 5));
      expect(doc.groups['Beta Creation'].metrics['NDCG@10']).toBe(0.53772);
      expect(doc.groups['Beta Creation'].metrics['Recall@10']).toBe(0.5); // (1 + 0 + 0.5) / 3
      expect(doc.groups['Beta Creation'].metrics['Completeness@10']).toBe(0.33333);
      expect(doc.groups['Alpha Engineering']).toEqual({ queries: 2, metrics: Object.fromEntries(res.measures.map((m) => [`${m.name}@${m.k}`, m.name === 'Precision' ? roundHalfEven(1 / m.k, 5) : 1])) });
      writeResults(r, extras);
      expect(readFileSync(file).equals(first)).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('no section with fewer than 2 majors (an unlabelled group does not count)', () => {
    const [b] = runBreakdowns(res);
    const oneMajor = { ...b!, groups: new Map([...b!.groups].filter(([g]) => g === 'Beta Creation')) };
    oneMajor.groups.set(UNLABELLED, { queries: 2, metrics: {} });
    expect(renderBreakdownSection(res, [oneMajor])).toBe('');
    expect(renderBreakdownSection(res, [])).toBe('');
    expect(renderSummary(res, { breakdowns: [oneMajor] })).not.toContain('by category');
    const json = breakdownJson(oneMajor) as { groups: Record<string, unknown> };
    expect(Object.keys(json.groups)).toEqual(['Beta Creation', UNLABELLED]);
    expect(json.groups[UNLABELLED]).toEqual({ queries: 2, metrics: {} });
  });
});

describe('data/mini (6 majors in the corpus)', () => {
  it('the query-weighted mean of the category means is the overall mean, for every metric', async () => {
    const res = await runOn(join(root, 'data/mini'));
    const [b] = runBreakdowns(res);
    const groups = b!.groups;
    expect([...groups.keys()]).toEqual(['Software Engineering', 'Business & Planning', 'AI Agents', 'Content Creation', 'Data & ML']);
    expect([...groups.values()].map((g) => g.queries)).toEqual([11, 4, 3, 2, 1]);
    const overall = res.runs[0]!.evaluation.aggregate;
    const n = [...groups.values()].reduce((s, g) => s + g.queries, 0);
    expect(n).toBe(res.runs[0]!.evaluation.counts.evaluated);
    for (const key of Object.keys(overall)) {
      const weighted = [...groups.values()].reduce((s, g) => s + g.queries * g.metrics[key]!, 0) / n;
      expect(weighted).toBeCloseTo(overall[key]!, 12);
    }
    expect(overall['NDCG@10']).toBeCloseTo(0.84315, 5);
  });
});
