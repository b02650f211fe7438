/**
 * `compare` on two small run folders written to a temp dir: two runs are the N = 2 case of the one
 * comparison (the second against the first, the baseline). NDCG@10 uses the t-test data of
 * test/stats-ttest.test.ts, so its paired t-test p (scipy.stats.ttest_rel(b, a)) is 0.18086547910352666
 * → "0.1809"; means by hand: A 4.5/10 = 45.00, B 5.1/10 = 51.00, Δ +6.00. Per-query NDCG@10 diffs:
 * +.1 +.05 −.2 +.15 +.2 0 +.15 +.05 −.1 +.2 → W/T/L 7/1/2 (lost most: q-02 −0.2, q-08 −0.1).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { userError } from './helpers/cli.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand, type CompareCommandOptions } from '../src/commands/compare.js';

const A10 = [0.5, 0.2, 0.9, 0.4, 0.7, 0.1, 0.3, 0.8, 0.6, 0.0];
const B10 = [0.6, 0.25, 0.7, 0.55, 0.9, 0.1, 0.45, 0.85, 0.5, 0.2];
const A5 = [0.5, 0, 1, 0.25, 0.5, 0, 0.25, 1, 0.5, 0];
const B5 = [0.5, 0.25, 1, 0.5, 0.75, 0, 0.5, 1, 0.5, 0.25];
const qid = (i: number) => `q-0${i}`;

function line(id: string, m: Record<string, number>): string {
  return JSON.stringify({ id, metrics: m, gold: ['s1'], retrieved: ['s1', 's2'] });
}
function runFile(n5: number[], n10: number[], order: number[] = [...n5.keys()]): string {
  return order.map((i) => line(qid(i), { 'NDCG@5': n5[i]!, 'NDCG@10': n10[i]! })).join('\n') + '\n';
}

let root: string;
let dirA: string;
let dirB: string;
function put(name: string, text: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'per-query.jsonl'), text);
  return dir;
}
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'compare-'));
  dirA = put('a', runFile(A5, A10));
  // B lists the queries in another order: pairing is by id
  dirB = put('b', runFile(B5, B10, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]));
  writeFileSync(join(dirA, 'metrics.json'), '{}\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('compare: two runs', () => {
  const two = (o: Partial<CompareCommandOptions> = {}) => compareCommand({ paths: [dirA, dirB], ...o });
  type Row = { label: string; file: string; means: Record<string, number>; worst?: { qid: string; base: number; treated: number }[]; vsBaseline?: Record<string, { pT: number; pRandomization: number; wins: number; ties: number; losses: number; ci: { low: number; high: number } }> };

  it('json: hand-checked means, W/T/L, the queries lost most and the scipy t-test p', async () => {
    const out = await two({ format: 'json', seed: 7, iterations: 2000 });
    expect(out.endsWith('}\n')).toBe(true);
    const j = JSON.parse(out) as { queries: number; settings: { seed: number; iterations: number; mainKey: string; keys: string[] }; runs: Row[] };
    expect(j.runs.map((r) => r.file)).toEqual([join(dirA, 'per-query.jsonl'), join(dirB, 'per-query.jsonl')]);
    expect(j.queries).toBe(10);
    expect(j.settings).toMatchObject({ seed: 7, iterations: 2000, mainKey: 'NDCG@10', keys: ['NDCG@5', 'NDCG@10'] });
    const [a, b] = j.runs;
    expect(a!.means['NDCG@10']).toBeCloseTo(0.45, 14);
    expect(b!.means['NDCG@10']).toBeCloseTo(0.51, 14);
    const v = b!.vsBaseline!['NDCG@10']!;
    expect(Math.abs(v.pT - 0.18086547910352666) / 0.18086547910352666).toBeLessThan(1e-9);
    expect([v.wins, v.ties, v.losses]).toEqual([7, 1, 2]);
    expect(a!.means['NDCG@5']).toBe(0.4);
    expect(b!.means['NDCG@5']).toBe(0.525);
    expect(b!.worst!.map((w) => w.qid)).toEqual(['q-02', 'q-08']);
    expect(b!.worst![0]).toMatchObject({ base: 0.9, treated: 0.7 });
    expect(a!.vsBaseline).toBeUndefined();
  });

  it('is byte-identical for the same seed, and accepts the per-query.jsonl paths themselves', async () => {
    const o = { format: 'json' as const, seed: 7, iterations: 500 };
    const one = await two(o);
    expect(await two(o)).toBe(one);
    const viaFiles = await compareCommand({ ...o, paths: [join(dirA, 'per-query.jsonl'), join(dirB, 'per-query.jsonl')] });
    expect(JSON.parse(viaFiles).runs.map((r: Row) => r.means)).toEqual(JSON.parse(one).runs.map((r: Row) => r.means));
    expect(await two({ ...o, seed: 8 })).not.toBe(one);
  });

  it('table: the run against the baseline metric by metric (both p, CI, W/T/L) and the queries it lost most', async () => {
    const o = { seed: 7, iterations: 2000 };
    const table = await two({ ...o, format: 'table' });
    const j = JSON.parse(await two({ ...o, format: 'json' })) as { runs: Row[] };
    const lines = table.split('\n');
    expect(table).toContain('10 queries');
    const at = lines.findIndex((l) => l.includes('against') && l.includes('seed 7'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]!.split(/\s{2,}/)).toEqual(['Metric', 'Baseline', 'Run', 'Δ', 'p (rand.)', 'p (t)', 'p corr.', '95% CI of Δ', 'W/T/L']);
    const row = lines.slice(at).find((l) => l.startsWith('NDCG@10'))!.split(/\s{2,}/);
    const v = j.runs[1]!.vsBaseline!['NDCG@10']!;
    const sp = (x: number) => (x < 0 ? '' : '+') + (x * 100).toFixed(2);
    expect(row.slice(0, 4)).toEqual(['NDCG@10', '45.00', '51.00', '+6.00']);
    expect(row[4]).toBe(v.pRandomization.toFixed(4));
    expect(row[5]).toBe('0.1809');
    expect(row[7]).toBe(`[${sp(v.ci.low)}, ${sp(v.ci.high)}]`);
    expect(row[8]).toBe('7/1/2');
    expect(lines.slice(at).find((l) => l.startsWith('NDCG@5'))!.split(/\s{2,}/).slice(0, 4)).toEqual(['NDCG@5', '40.00', '52.50', '+12.50']);
    const hurt = lines.filter((l) => l.startsWith('  q-'));
    expect(hurt.map((l) => l.trim().split(/\s+/))).toEqual([
      ['q-02', '90.00', '→', '70.00', '-20.00'],
      ['q-08', '60.00', '→', '50.00', '-10.00'],
    ]);
    expect(table.endsWith('\n')).toBe(true);
  });

  it('measures: only the metrics asked for; the main metric falls back to NDCG at the smallest k', async () => {
    const j = JSON.parse(await two({ format: 'json', iterations: 100, keys: ['NDCG@5'] })) as { settings: { keys: string[]; mainKey: string; seed: number }; runs: Row[] };
    expect(j.settings).toMatchObject({ keys: ['NDCG@5'], mainKey: 'NDCG@5', seed: 42 });
    // NDCG@5 diffs: 0 +.25 0 +.25 +.25 0 +.25 0 0 +.25
    const v = j.runs[1]!.vsBaseline!['NDCG@5']!;
    expect([v.wins, v.ties, v.losses]).toEqual([5, 5, 0]);
    expect(j.runs[1]!.worst).toEqual([]);
  });

  it('different query sets: UserError naming a run and a missing id (or --common-queries)', async () => {
    const c = put('c', runFile(B5, B10, [0, 1, 2, 4, 5, 6, 7, 8, 9]));
    const msg = await userError(compareCommand({ paths: [dirA, c], format: 'table' }));
    expect(msg).toContain('q-03');
    const j = JSON.parse(await compareCommand({ paths: [dirA, c], format: 'json', commonQueries: true, iterations: 10 })) as { queries: number };
    expect(j.queries).toBe(9);
  });

  it('malformed per-query.jsonl: UserError file:line: field', async () => {
    const good = runFile(A5, A10).split('\n');
    const bad = (name: string, lineNo: number, text: string) => {
      const l = [...good];
      l[lineNo - 1] = text;
      return put(name, l.join('\n'));
    };
    const cases: [string, number, string, RegExp][] = [
      ['json', 3, '{"id": "q-02", "metrics": {', /:3: invalid JSON/],
      ['array', 2, '[1, 2]', /:2: .*array/],
      ['noid', 1, '{"metrics": {"NDCG@5": 1, "NDCG@10": 1}}', /:1: id: /],
      ['dup', 4, line('q-01', { 'NDCG@5': 0, 'NDCG@10': 0 }), /:4: id: .*q-01/],
      ['nometrics', 5, '{"id": "q-04"}', /:5: metrics: /],
      ['str', 2, '{"id": "q-01", "metrics": {"NDCG@5": "0.5", "NDCG@10": 1}}', /:2: metrics\.NDCG@5: /],
      ['gold', 6, '{"id": "q-05", "metrics": {"NDCG@5": 0, "NDCG@10": 0}, "gold": "s1"}', /:6: gold: /],
      ['missingkey', 7, '{"id": "q-06", "metrics": {"NDCG@5": 0}}', /:7: metrics\.NDCG@10: missing \(query "q-06"\)/],
    ];
    for (const [name, n, text, what] of cases) {
      const dir = bad(name, n, text);
      const msg = await userError(compareCommand({ paths: [dirA, dir], format: 'json', iterations: 10 }));
      expect(msg.startsWith(join(dir, 'per-query.jsonl')), `${name}: ${msg}`).toBe(true);
      expect(msg, name).toMatch(what);
      void n;
    }
    // a key asked for that no file has: named at A's first line
    expect(await userError(compareCommand({ paths: [dirA, dirB], format: 'json', measures: ['MAP@10'] }))).toBe(`${join(dirA, 'per-query.jsonl')}:1: metrics.MAP@10: missing (query "q-00")`);
  });

  it('blank lines and CRLF are fine', async () => {
    const crlf = put('crlf', '\n' + runFile(B5, B10).replace(/\n/g, '\r\n') + '\r\n\n');
    const j = JSON.parse(await compareCommand({ paths: [dirA, crlf], format: 'json', iterations: 10 }));
    expect(j.queries).toBe(10);
  });

  it('missing folder, folder without runs, empty file, bad options', async () => {
    expect(await userError(compareCommand({ paths: [join(root, 'nope'), dirB] }))).toContain('nope: no such results folder');
    mkdirSync(join(root, 'empty-dir'));
    expect(await userError(compareCommand({ paths: [join(root, 'empty-dir'), dirB] }))).toContain('empty-dir: no runs here');
    const e = put('empty', '\n\n');
    expect(await userError(compareCommand({ paths: [e, dirB] }))).toContain(join(e, 'per-query.jsonl'));
    expect(await userError(two({ seed: -1 }))).toMatch(/^--seed: /);
    expect(await userError(two({ seed: 2 ** 53 }))).toMatch(/^--seed: /);
    expect(await userError(two({ iterations: 0 }))).toMatch(/^--iterations: /);
    expect(await userError(two({ keys: ['NDCG@5', 'NDCG@5'] }))).toBe('--keys: "NDCG@5" given twice');
    expect(await userError(two({ measures: ['NDCG@5', 'NDCG@5'] }))).toBe('--measures: "NDCG@5" given twice');
  });
});
