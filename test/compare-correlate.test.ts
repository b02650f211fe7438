/**
 * `compare --correlate FILE` and `paper --table <id> --correlate`: another benchmark's scores per
 * model (formats/benchmark-scores.ts) paired with the compared runs (by label, published model name,
 * or retriever id: analysis/benchmark-correlation.ts), Spearman ρ and Kendall τ-b of the main metric
 * with bootstrap intervals; bad input is one line naming file:line:column or the flag (exit 2),
 * the scores file checked before any run is read. The statistics themselves are proven in
 * test/stats-rank-correlation.test.ts (scipy and the plain definitions).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../src/commands/compare.js';
import { parseBenchmarkScores } from '../src/formats/benchmark-scores.js';
import { kendallTauB, spearmanRho } from '../src/stats/rank-correlation.js';
import { runCli, userError } from './helpers/cli.js';

let root: string;
let results: string;
/** Each run's NDCG@10 per query (4 queries): means 0.8, 0.6, 0.5, 0.35, 0.2. */
const RUNS: Record<string, number[]> = {
  'alpha/none': [1, 0.8, 0.6, 0.8],
  'beta/none': [0.6, 0.6, 0.6, 0.6],
  'gamma/none': [0.5, 0.5, 0.5, 0.5],
  'delta/none': [0.4, 0.3, 0.3, 0.4],
  'eps/none': [0.2, 0.2, 0.2, 0.2],
};
const csv = (name: string, text: string) => {
  const f = join(root, name);
  writeFileSync(f, text);
  return f;
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'correlate-'));
  results = join(root, 'results');
  for (const [label, vals] of Object.entries(RUNS)) {
    const [retriever, reranker] = label.split('/') as [string, string];
    const dir = join(results, retriever, reranker);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'per-query.jsonl'), vals.map((v, i) => JSON.stringify({ id: `q${i}`, metrics: { 'NDCG@10': v, 'Recall@10': v } })).join('\n') + '\n');
    const paper = retriever === 'gamma' ? { paper: { table: 'v1.0-embedding', row: 'Gamma-Embed-1B' } } : {};
    writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ retriever, reranker, metrics: {}, ...paper }));
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('compare --correlate', () => {
  it('pairs rows by label, published name and retriever id; lists what did not pair; ρ and τ-b of the main metric', async () => {
    const f = csv(
      'mteb.csv',
      '\uFEFF# scores of another benchmark\r\nmodel,MTEB Retrieval\r\nalpha/none,70.5\r\nbeta,71\r\n"Gamma-Embed-1B",50\r\n\r\ndelta/none, 40 \r\nnot-run,99\r\n',
    );
    const out = JSON.parse(await compareCommand({ paths: [results], correlate: f, format: 'json', iterations: 2000 })) as { correlation: Record<string, unknown> & { pairs: { label: string; matchedBy: string; ours: number; theirs: number; line: number }[]; result: { spearman: number; kendall: number; n: number; spearmanCI: { low: number; high: number; iterations: number } } } };
    const c = out.correlation;
    expect(c.key).toBe('NDCG@10');
    expect(c.column).toBe('MTEB Retrieval');
    expect(c.pairs.map((p) => [p.label, p.matchedBy, p.line, p.theirs])).toEqual([
      ['alpha/none', 'label', 3, 70.5],
      ['beta/none', 'retriever id', 4, 71],
      ['gamma/none', 'paper name', 5, 50],
      ['delta/none', 'label', 7, 40],
    ]);
    expect(c.pairs.map((p) => p.ours)).toEqual([0.8, 0.6, 0.5, 0.35]);
    expect(c.unmatchedRows).toEqual([{ name: 'not-run', line: 8 }]);
    expect(c.unmatchedRuns).toEqual(['eps/none']);
    const ours = [0.8, 0.6, 0.5, 0.35];
    const theirs = [70.5, 71, 50, 40];
    expect(c.result.n).toBe(4);
    expect(c.result.spearman).toBe(spearmanRho(ours, theirs)); // 0.8 by hand: ranks 2,1,3,4 vs 1,2,3,4
    expect(c.result.spearman).toBeCloseTo(0.8, 12);
    expect(c.result.kendall).toBe(kendallTauB(ours, theirs)); // (5 − 1) / 6
    expect(c.result.kendall).toBeCloseTo(4 / 6, 12);
    expect(c.result.spearmanCI.iterations).toBe(2000);
    // the seed fixes the interval; another seed moves it
    const again = JSON.parse(await compareCommand({ paths: [results], correlate: f, format: 'json', iterations: 2000 })) as typeof out;
    expect(again.correlation.result).toEqual(c.result);
    const other = JSON.parse(await compareCommand({ paths: [results], correlate: f, format: 'json', iterations: 2000, seed: 5 })) as typeof out;
    expect(other.correlation.result.spearmanCI).not.toEqual(c.result.spearmanCI);
  });

  it('the table adds the statistics and the paired ranks under the comparison; --measures picks the main metric', async () => {
    const f = csv('two.csv', 'run,score,notes\nalpha/none,1,x\nbeta/none,2,y\ngamma/none,3,z\n');
    const text = await compareCommand({ paths: [results], correlate: f, iterations: 500, measures: ['Recall@10'] });
    expect(text).toMatch(/Rank correlation with .*two\.csv \(score\) on Recall@10/);
    expect(text).toMatch(/Spearman ρ +-1\.0000 +95% CI/);
    expect(text).toMatch(/Kendall τ-b +-1\.0000/);
    expect(text).toContain('Runs with no row: delta/none, eps/none');
    const md = await compareCommand({ paths: [results], correlate: f, iterations: 500, format: 'md' });
    expect(md).toMatch(/## Rank correlation with/);
    expect(md).toContain('| Run | Row |');
  });

  it('bad input: one line naming file:line:column or the flag, the scores file before any run is read', async () => {
    const ok = csv('ok.csv', 'model,score\nalpha/none,1\nbeta/none,2\ngamma/none,3\n');
    expect(await userError(compareCommand({ paths: [join(root, 'nope')], correlate: join(root, 'missing.csv') }))).toMatch(/missing\.csv: cannot read the scores file \(--correlate\) \(no such file\)$/);
    expect(await userError(compareCommand({ paths: [results], correlate: root }))).toMatch(/the scores file \(--correlate\) is not a file \(a folder\)$/);
    const bad = csv('bad.csv', 'model,score\nalpha/none,1\nbeta/none, 1.2.3\n');
    expect(await userError(compareCommand({ paths: [join(root, 'nope')], correlate: bad }))).toBe(`${bad}:3:11: "score": expected a number, got " 1.2.3"`);
    const twice = csv('twice.csv', 'model,score\nalpha/none,1\nalpha/none,2\n');
    expect(await userError(compareCommand({ paths: [results], correlate: twice }))).toBe(`${twice}:3:1: "alpha/none" is given twice (also line 2)`);
    const same = csv('same.csv', 'model,score\nalpha/none,1\nalpha,2\nbeta,3\n');
    expect(await userError(compareCommand({ paths: [results], correlate: same }))).toBe(`${same}:3: "alpha" names run alpha/none, which line 2 names already`);
    const few = csv('few.csv', 'model,score\nalpha/none,1\nzeta,2\n');
    expect(await userError(compareCommand({ paths: [results], correlate: few }))).toMatch(/few\.csv: 1 row match a compared run, a rank correlation needs 3 or more/);
    expect(await userError(compareCommand({ paths: [results], correlate: ok, format: 'csv' }))).toBe('--correlate: use --format table, md or json');
    expect(await userError(compareCommand({ paths: [results], correlate: ok, paper: true }))).toMatch(/^--correlate: not with --paper/);
    const r = await runCli(['compare', results, '--correlate', bad]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`${bad}:3:11:`);
  });
});

describe('the scores file', () => {
  it.each([
    ['model,score\n"a, b",1\n"say ""x""",2\n', [['a, b', 1], ['say "x"', 2]], 'model', 'score'],
    ['System;x\n', null, '', ''],
    ['score,Model\n3,m1\n', [['m1', 3]], 'Model', 'score'],
    ['name,extra,Score\nm1,foo,6.1e1\n', [['m1', 61]], 'name', 'Score'],
    ['first,second\nm1,-.5\n', [['m1', -0.5]], 'first', 'second'],
  ])('%j', (text, rows, nameColumn, scoreColumn) => {
    if (rows === null) {
      expect(() => parseBenchmarkScores(text, 'f.csv')).toThrow(/f\.csv:1:1: which column holds the score\?/);
      return;
    }
    const s = parseBenchmarkScores(text, 'f.csv');
    expect(s.rows.map((r) => [r.name, r.score])).toEqual(rows);
    expect([s.nameColumn, s.scoreColumn]).toEqual([nameColumn, scoreColumn]);
  });

  it.each([
    ['', /^f\.csv: empty/],
    ['model,score\n', /^f\.csv:1: a header and no scores$/],
    ['a,b,c\nx,1,2\n', /^f\.csv:1:1: which column holds the score\?.*columns: "a", "b", "c"$/],
    ['model,score\nm1\n', /^f\.csv:2:3: 1 field, the header has 2$/],
    ['model,score\nm1,1,2\n', /^f\.csv:2:6: 3 fields, the header has 2$/],
    ['model,score\nm1,"1\n', /^f\.csv:2:4: a quoted field is not closed$/],
    ['model,score\nm"1,1\n', /^f\.csv:2:2: a quote inside an unquoted field/],
    ['model,score\n ,1\n', /^f\.csv:2:1: empty "model"$/],
    ['model,score\nm1,Infinity\n', /^f\.csv:2:4: "score": expected a number, got "Infinity"$/],
    ['model,score\nm1,1e999\n', /^f\.csv:2:4: "score": expected a number/],
  ])('%j is refused', (text, message) => {
    expect(() => parseBenchmarkScores(text, 'f.csv')).toThrow(message);
  });
});

describe('paper --table v1.0-mteb-vs-skillret --correlate (the paper\'s Table 15)', () => {
  const scipy = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'rank-correlation', 'scipy.json'), 'utf8')) as { cases: { name: string; spearman: number; kendall_b: number }[] };
  const t15 = scipy.cases.find((c) => c.name.startsWith('paper Table 15'))!;

  it('ρ from its own two columns equals scipy (0.7011): 0.70 at the published 2 decimals, not the stated 0.71', async () => {
    const r = await runCli(['paper', '--table', 'v1.0-mteb-vs-skillret', '--correlate', '--format', 'json']);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.out) as { rows: unknown[]; result: { spearman: number; kendall: number }; published: { spearman: number } };
    expect(c.rows).toHaveLength(14);
    expect(Math.abs(c.result.spearman - t15.spearman)).toBeLessThanOrEqual(1e-12);
    expect(Math.abs(c.result.kendall - t15.kendall_b)).toBeLessThanOrEqual(1e-12);
    expect(c.result.spearman.toFixed(2)).toBe('0.70');
    expect(c.published.spearman).toBe(0.71);
    const text = await runCli(['paper', '--table', 'v1.0-mteb-vs-skillret', '--correlate', '--iterations', '1000']);
    expect(text.out).toMatch(/Spearman ρ +0\.7011 +95% CI \[/);
    expect(text.out).toContain("Published: Spearman ρ = 0.71 (stated with Table 15 (Appendix J)); from the table's own columns 0.70 at 2 decimals: NOT reproduced");
    expect(text.out).toContain('Σd² = 136');
  });

  it('refuses a table that is not two columns, and --correlate without --table', async () => {
    const a = await runCli(['paper', '--table', 'v1.0-embedding', '--correlate']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--correlate: table "v1\.0-embedding" has 9 columns/);
    const b = await runCli(['paper', '--correlate']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--correlate: needs --table/);
    const c = await runCli(['paper', '--table', 'v1.0-mteb-vs-skillret', '--correlate', '--iterations', '0']);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--iterations/);
  });
});
