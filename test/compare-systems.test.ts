/**
 * The many-system `compare` on small run folders written to a temp dir. Run A is the t-test data of
 * test/stats-ttest.test.ts (B − A: scipy.stats.ttest_rel p = 0.18086547910352666); C beats A on every
 * query by 0.3 minus a small wobble, so its p is tiny. With --test t and Holm over the 2 runs compared
 * with A: p'_C = 2·p_C (smallest first), p'_B = max(2·p_C, p_B) = p_B.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand as compareSystemsCommand } from '../src/commands/compare.js';
import { runCli, userError } from './helpers/cli.js';

const A = [0.5, 0.2, 0.9, 0.4, 0.7, 0.1, 0.3, 0.8, 0.6, 0.0];
const B = [0.6, 0.25, 0.7, 0.55, 0.9, 0.1, 0.45, 0.85, 0.5, 0.2];
const C = A.map((x, i) => x + 0.3 - (i % 3) * 0.01);
const qid = (i: number) => `q-0${i}`;

let root: string;
function put(dir: string, n10: number[], o: { gold?: (i: number) => string[]; skip?: number; metrics?: object } = {}): string {
  mkdirSync(join(root, dir), { recursive: true });
  const lines = n10
    .map((v, i) => (i === o.skip ? '' : JSON.stringify({ id: qid(i), metrics: { 'NDCG@10': v, 'Recall@10': v > 0.5 ? 1 : 0.5 }, gold: o.gold?.(i) ?? ['s1'], retrieved: ['s1'] })))
    .filter((l) => l !== '');
  writeFileSync(join(root, dir, 'per-query.jsonl'), lines.join('\n') + '\n');
  if (o.metrics) writeFileSync(join(root, dir, 'metrics.json'), JSON.stringify(o.metrics));
  return join(root, dir);
}

let a: string, b: string, c: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'compare-systems-'));
  a = put('exp/bm25/none', A, { metrics: { experiment: 'exp', retriever: 'bm25', reranker: 'none' } });
  b = put('exp/dense/none', B, { metrics: { experiment: 'exp', retriever: 'dense', reranker: 'none' } });
  c = put('exp/dense/rr', C, { metrics: { experiment: 'exp', retriever: 'dense', reranker: 'rr' } });
  writeFileSync(join(root, 'exp', 'manifest.json'), JSON.stringify({ runs: [{ dir: 'bm25/none' }, { dir: 'dense/none' }, { dir: 'dense/rr' }] }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('compare over many systems', () => {
  it('json: means, Δ, Holm over the runs compared with the baseline, W/T/L, best and top group', async () => {
    const j = JSON.parse(await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'json', test: 't' }));
    expect(j.runs.map((r: { label: string }) => r.label)).toEqual(['bm25/none', 'dense/none', 'dense/rr']);
    expect(j.baseline).toBe('bm25/none');
    expect(j.settings).toMatchObject({ keys: ['NDCG@10', 'Recall@10'], mainKey: 'NDCG@10', test: 't', correction: 'holm', alpha: 0.05 });
    const [ra, rb, rc] = j.runs;
    expect(ra.vsBaseline).toBeUndefined();
    expect(rb.means['NDCG@10']).toBeCloseTo(0.51, 14);
    const vb = rb.vsBaseline['NDCG@10'];
    const vc = rc.vsBaseline['NDCG@10'];
    expect(Math.abs(vb.pRaw - 0.18086547910352666) / 0.18086547910352666).toBeLessThan(1e-9);
    expect(vc.pRaw).toBeLessThan(1e-6);
    expect(vc.pCorrected).toBeCloseTo(2 * vc.pRaw, 15);
    expect(vb.pCorrected).toBe(vb.pRaw);
    expect(vb.significant).toBe(false);
    expect(vc.significant).toBe(true);
    expect([vb.wins, vb.ties, vb.losses]).toEqual([7, 1, 2]);
    expect([vc.wins, vc.ties, vc.losses]).toEqual([10, 0, 0]);
    expect(vb.delta).toBeCloseTo(0.06, 14);
    expect(vb.ci.low).toBeLessThan(vb.delta);
    expect(vb.ci.high).toBeGreaterThan(vb.delta);
    // C is best on NDCG@10 and separable from both others.
    expect([ra.best['NDCG@10'], rb.best['NDCG@10'], rc.best['NDCG@10']]).toEqual([false, false, true]);
    expect([ra.topGroup['NDCG@10'], rb.topGroup['NDCG@10']]).toEqual([false, false]);
  });

  it('bonferroni and none change only the corrected p', async () => {
    const bon = JSON.parse(await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'json', test: 't', correction: 'bonferroni' }));
    const none = JSON.parse(await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'json', test: 't', correction: 'none' }));
    const vb = bon.runs[1].vsBaseline['NDCG@10'];
    expect(vb.pCorrected).toBeCloseTo(Math.min(1, 2 * vb.pRaw), 15);
    expect(none.runs[1].vsBaseline['NDCG@10'].pCorrected).toBe(vb.pRaw);
  });

  it('identical runs: p = 1, Δ +0.00, all ties, not significant (NaN p-values: test/stats-correction.test.ts)', async () => {
    const twin = put('twin/bm25/none', A);
    const j = JSON.parse(await compareSystemsCommand({ paths: [a, twin, c], format: 'json', test: 't' }));
    const v = j.runs[1].vsBaseline['NDCG@10'];
    expect(v).toMatchObject({ delta: 0, pRaw: 1, pCorrected: 1, significant: false, wins: 0, ties: 10, losses: 0 });
    const text = await compareSystemsCommand({ paths: [a, twin, c], test: 't' });
    expect(text).toMatch(/\+0\.00 \(p 1\.0000\)/);
  });

  it('table: best of the column marked ^ (no Markdown in the terminal), * and † marks, W/T/L, and the method under the table', async () => {
    const t = await compareSystemsCommand({ paths: [join(root, 'exp')], test: 't' });
    const lines = t.split('\n');
    expect(lines[0]).toMatch(/^Run\s+NDCG@10\s+Recall@10\s+Δ NDCG@10\s+W\/T\/L$/);
    expect(lines[1]).toMatch(/^bm25\/none \(baseline\)\s+45\.00\*?\s/);
    expect(lines[3]).toMatch(/^dense\/rr\s+74\.\d\d\^\*\s/);
    expect(t).not.toContain('**');
    expect(t).toContain('^: best of the column.');
    expect(lines[3]).toMatch(/10\/0\/0$/);
    expect(t).toContain('Method: paired t-test (two-sided); Holm correction; α = 0.05.');
    expect(t).toContain('10 queries');
    const r = await compareSystemsCommand({ paths: [join(root, 'exp')], iterations: 500, seed: 3 });
    expect(r).toContain('Method: paired randomization test (two-sided sign flips, 500 iterations, seed 3); Holm correction; α = 0.05.');
    expect(await compareSystemsCommand({ paths: [join(root, 'exp')], iterations: 500, seed: 3 })).toBe(r);
  });

  it('the group marker: a run not separable from the best gets †', async () => {
    // B vs A is not significant (p 0.18); with B best on Recall@10? Use --measures NDCG@10 and drop C.
    const t = await compareSystemsCommand({ paths: [a, b], test: 't', format: 'md' });
    expect(t).toMatch(/\| bm25\/none \(baseline\) \| 45\.00† \|/);
    expect(t).toMatch(/\| dense\/none \| \*\*51\.00\*\* \|/);
  });

  it('--pairs all: the matrix of Δ row − column with Holm over all pairs', async () => {
    const j = JSON.parse(await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'json', test: 't', pairs: 'all' }));
    expect(j.pairs.family).toBe(3);
    expect(j.pairs.delta[1][0]).toBeCloseTo(0.06, 14);
    expect(j.pairs.pRaw[0][1]).toBe(j.pairs.pRaw[1][0]);
    const raw = [j.pairs.pRaw[0][1], j.pairs.pRaw[0][2], j.pairs.pRaw[1][2]].sort((x: number, y: number) => x - y);
    expect(Math.min(...[j.pairs.pCorrected[0][1], j.pairs.pCorrected[0][2], j.pairs.pCorrected[1][2]])).toBeCloseTo(3 * raw[0], 15);
    const t = await compareSystemsCommand({ paths: [join(root, 'exp')], test: 't', pairs: 'all' });
    expect(t).toContain('after Holm correction over all 3 pairs');
  });

  it('randomization: one stream per comparison, so a pair has the same p in every place it appears', async () => {
    const j = JSON.parse(await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'json', pairs: 'all', iterations: 800, seed: 5 }));
    const key = j.pairs.key;
    // The baseline (row 0) comparisons come from the attribution pass, the matrix from the batched pass.
    for (const i of [1, 2]) expect(j.pairs.pRaw[0][i]).toBe(j.runs[i].vsBaseline[key].pRaw);
    expect(j.pairs.pRaw[1][2]).toBe(j.pairs.pRaw[2][1]);
    // Asking for one metric only changes no p of that metric.
    const one = JSON.parse(await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'json', pairs: 'all', iterations: 800, seed: 5, measures: [key] }));
    expect(one.pairs.pRaw).toEqual(j.pairs.pRaw);
    expect(one.runs[2].vsBaseline[key]).toEqual(j.runs[2].vsBaseline[key]);
  });

  it('latex: booktabs, \\textbf best, escaped run names, notes under the table', async () => {
    const odd = put('odd/x_&%$#{}~^\\/none', A, { metrics: { retriever: 'x_&%$#{}~^\\', reranker: 'none' } });
    const t = await compareSystemsCommand({ paths: [odd, c], format: 'latex', test: 't' });
    expect(t).toContain('\\toprule');
    expect(t).toContain('\\midrule');
    expect(t).toContain('\\bottomrule');
    expect(t).toContain('x\\_\\&\\%\\$\\#\\{\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{}/none (baseline)');
    expect(t).toMatch(/\\textbf\{74\.\d\d\}\$\^\{\*\}\$/);
    expect(t).toContain('\\footnotesize');
    expect(t).toContain('Holm correction; $\\alpha$ = 0.05');
  });

  it('csv: one row per run × metric; method columns; formula-looking names defused', async () => {
    const evil = put('evil/=cmd()/none', B, { metrics: { retriever: '=cmd()', reranker: 'none' } });
    const t = await compareSystemsCommand({ paths: [a, evil], format: 'csv', test: 't' });
    const lines = t.trim().split('\n');
    expect(lines[0]!.split(',').slice(0, 8)).toEqual(['run', 'metric', 'mean', 'delta', 'p_raw', 'p_corrected', 'significant', 'ci_low']);
    expect(lines).toHaveLength(1 + 2 * 2);
    expect(lines[3]!.startsWith("'=cmd()/none,NDCG@10,0.51")).toBe(true);
    expect(lines[3]).toContain(',holm,0.05,42,10000,10');
  });

  it('refuses runs over different queries, naming the first difference; --common-queries drops and says so', async () => {
    const short = put('short/bm25/none', B, { skip: 4 });
    const m = await userError(compareSystemsCommand({ paths: [a, short] }));
    expect(m).toContain('lacks query "q-04"');
    expect(m).toContain('--common-queries');
    const j = JSON.parse(await compareSystemsCommand({ paths: [a, short], format: 'json', commonQueries: true, iterations: 100 }));
    expect(j.queries).toBe(9);
    expect(j.dropped).toEqual({ missing: 1, judgedDifferently: 0 });
    const t = await compareSystemsCommand({ paths: [a, short], commonQueries: true, iterations: 100 });
    expect(t).toContain('9 queries (--common-queries: 1 dropped, 1 not in every run, 0 judged differently)');
  });

  it('refuses runs scored against different qrels', async () => {
    const other = put('qrels/bm25/none', B, { gold: (i) => (i === 2 ? ['s9'] : ['s1']) });
    const m = await userError(compareSystemsCommand({ paths: [a, other] }));
    expect(m).toMatch(/different qrels: query "q-02" has gold \["s1"\] in bm25\/none .* but \["s9"\]/);
    const j = JSON.parse(await compareSystemsCommand({ paths: [a, other], format: 'json', commonQueries: true, iterations: 100 }));
    expect(j.dropped).toEqual({ missing: 0, judgedDifferently: 1 });
  });

  it('labels runs of two experiments apart; --baseline by label; --out writes the file', async () => {
    const other = put('exp2/bm25/none', B, { metrics: { experiment: 'exp2', retriever: 'bm25', reranker: 'none' } });
    const j = JSON.parse(await compareSystemsCommand({ paths: [a, other], format: 'json', baseline: 'exp2: bm25/none', iterations: 100 }));
    expect(j.runs.map((r: { label: string }) => r.label)).toEqual(['exp: bm25/none', 'exp2: bm25/none']);
    expect(j.baseline).toBe('exp2: bm25/none');
    const out = join(root, 'table.md');
    const msg = await compareSystemsCommand({ paths: [join(root, 'exp')], format: 'md', out, iterations: 100 });
    expect(msg).toBe(`wrote ${out} (3 runs, 10 queries)\n`);
    expect(readFileSync(out, 'utf8')).toContain('| Run | NDCG@10 |');
  });

  it('bad input: one line naming the flag or file', async () => {
    expect(await userError(compareSystemsCommand({ paths: [join(root, 'nope')] }))).toContain('no such results folder');
    expect(await userError(compareSystemsCommand({ paths: [a], baseline: 'x/y' }))).toContain('--baseline: no compared run is "x/y"');
    expect(await userError(compareSystemsCommand({ paths: [a], alpha: 2 }))).toContain('--alpha');
    expect(await userError(compareSystemsCommand({ paths: [a], measures: ['MRR@10'] }))).toMatch(/per-query\.jsonl:1: metrics\.MRR@10: missing/);
    expect(await userError(compareSystemsCommand({ paths: [a], out: join(root, 'no', 'x.md') }))).toContain('--out');
  });

  it('CLI: one engine for any number of runs: two run folders get the same table as more, whatever the flags', async () => {
    const many = await runCli(['compare', join(root, 'exp'), '--iterations', '100', '--format', 'md']);
    expect(many.code).toBe(0);
    expect(many.out).toContain('| dense/rr |');
    const two = await runCli(['compare', a, b, '--iterations', '100']);
    expect(two.code).toBe(0);
    expect(two.out).toMatch(/^Run /);
    expect(two.out).toContain('against');
    const twoT = await runCli(['compare', a, b, '--iterations', '100', '--test', 't']);
    expect(twoT.out).toMatch(/^Run /);
    expect(twoT.out.split('\n')[0]).toBe(two.out.split('\n')[0]);
    const bad = await runCli(['compare', a, '--correction', 'sidak']);
    expect(bad.code).toBe(2);
  });
});

describe('compare --slice', () => {
  let exp: string;
  beforeAll(() => {
    // Queries 0–4 have gold s1 (major "Alpha"), 5–9 gold s2 (major "Beta"); q-09 also s1. Lengths: i+1 words.
    const gold = (i: number) => (i < 5 ? ['s1'] : i === 9 ? ['s2', 's1'] : ['s2']);
    put('sl/bm25/none', A, { gold, metrics: { experiment: 'sl', retriever: 'bm25', reranker: 'none' } });
    put('sl/dense/none', B, { gold, metrics: { experiment: 'sl', retriever: 'dense', reranker: 'none' } });
    exp = join(root, 'sl');
    writeFileSync(join(exp, 'manifest.json'), JSON.stringify({ runs: [{ dir: 'bm25/none' }, { dir: 'dense/none' }] }));
    writeFileSync(join(exp, 'queries.jsonl'), A.map((_, i) => JSON.stringify({ id: qid(i), query: 'w '.repeat(i + 1), gold: gold(i) })).join('\n') + '\n');
    writeFileSync(join(exp, 'skills.jsonl'), [{ id: 's1', name: 'one', major: 'Alpha' }, { id: 's2', name: 'two', major: 'Be<ta|' }].map((s) => JSON.stringify(s)).join('\n') + '\n');
  });
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

  it('json: each group compared on its own queries; each_gold puts q-09 in both majors', async () => {
    const j = JSON.parse(await compareSystemsCommand({ paths: [exp], format: 'json', slice: 'major' }));
    expect(j.slice).toBe('major');
    expect(j.category_rule).toBe('each_gold');
    expect(j.overlapping).toBe(true);
    expect(j.groups.map((g: { group: string; queries: number }) => [g.group, g.queries])).toEqual([
      ['Alpha', 6],
      ['Be<ta|', 5],
    ]);
    const alpha = j.groups[0].comparison;
    expect(alpha.runs[0].means['NDCG@10']).toBeCloseTo(mean([...A.slice(0, 5), A[9]!]), 14);
    expect(alpha.runs[1].means['NDCG@10']).toBeCloseTo(mean([...B.slice(0, 5), B[9]!]), 14);
    expect(j.groups[1].comparison.runs[1].means['NDCG@10']).toBeCloseTo(mean(B.slice(5)), 14);
  });

  it('primary_gold: a partition; length: tertiles of the compared queries with their boundaries', async () => {
    const p = JSON.parse(await compareSystemsCommand({ paths: [exp], format: 'json', slice: 'major', categoryRule: 'primary_gold' }));
    expect(p.groups.map((g: { queries: number }) => g.queries)).toEqual([5, 5]);
    const l = JSON.parse(await compareSystemsCommand({ paths: [exp], format: 'json', slice: 'length' }));
    // Word counts 1..10: ranks ⌈10/3⌉ = 4 and ⌈20/3⌉ = 7.
    expect(l.boundaries).toEqual([4, 7]);
    expect(l.groups.map((g: { group: string; queries: number }) => [g.group, g.queries])).toEqual([
      ['≤ 4 words', 4],
      ['5–7 words', 3],
      ['> 7 words', 3],
    ]);
  });

  it('md escapes group names; csv has slice and group columns; a bad slice is one line', async () => {
    const md = await compareSystemsCommand({ paths: [exp], format: 'md', slice: 'major' });
    expect(md).toContain('## major: Be&lt;ta\\| (5 queries)');
    expect(md).toContain("Each query counts once in each distinct major of its gold skills (the paper's rule)");
    const csv = (await compareSystemsCommand({ paths: [exp], format: 'csv', slice: 'gold' })).trimEnd().split('\n');
    expect(csv[0]!.startsWith('slice,group,run,metric,mean')).toBe(true);
    expect(csv.filter((l) => l.startsWith('gold,1 gold,'))).toHaveLength(4); // 2 runs × 2 metrics
    expect(csv.filter((l) => l.startsWith('gold,2 gold,'))).toHaveLength(4);
    const r = await runCli(['compare', exp, '--slice', 'colour']);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('--slice');
    expect(await userError(compareSystemsCommand({ paths: [exp], slice: 'generator' }))).toContain('--slice generator: no compared query has a generator model');
    expect(await userError(compareSystemsCommand({ paths: [exp], slice: 'major', categoryRule: 'first' }))).toContain('--category-rule: expected one of each_gold, primary_gold');
  });
});
