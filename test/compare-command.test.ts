/**
 * `compare` on two small run folders written to a temp dir. NDCG@10 uses the t-test data of
 * test/stats-ttest.test.ts, so its paired t-test p (scipy.stats.ttest_rel(b, a)) is 0.18086547910352666
 * → "0.1809"; means by hand: A 4.5/10 = 45.00, B 5.1/10 = 51.00, Δ +6.00. Per-query NDCG@10 diffs:
 * +.1 +.05 −.2 +.15 +.2 0 +.15 +.05 −.1 +.2 → helped 7, hurt 2 (q-02 −0.2, q-08 −0.1), unchanged 1.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { userError } from './helpers/cli.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../src/commands/compare.js';

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

describe('compareCommand', () => {
  it('json: hand-checked means, counts, worst list and the scipy t-test p', async () => {
    const out = await compareCommand({ a: dirA, b: dirB, format: 'json', seed: 7, iterations: 2000 });
    expect(out.endsWith('}\n')).toBe(true);
    const j = JSON.parse(out);
    expect(j.a).toBe(join(dirA, 'per-query.jsonl'));
    expect(j.b).toBe(join(dirB, 'per-query.jsonl'));
    expect(j).toMatchObject({ delta: 'b - a', queries: 10, seed: 7, iterations: 2000, primaryKey: 'NDCG@10' });
    expect(Object.keys(j.metrics)).toEqual(['NDCG@5', 'NDCG@10']);
    const n10 = j.metrics['NDCG@10'];
    expect(n10.base).toBeCloseTo(0.45, 14);
    expect(n10.treated).toBeCloseTo(0.51, 14);
    expect(Math.abs(n10.tTest.pValue - 0.18086547910352666) / 0.18086547910352666).toBeLessThan(1e-9);
    expect(n10.tTest.df).toBe(9);
    expect(j.metrics['NDCG@5'].base).toBe(0.4);
    expect(j.metrics['NDCG@5'].treated).toBe(0.525);
    expect(j.counts).toEqual({ helped: 7, hurt: 2, unchanged: 1 });
    expect(j.worst.map((w: { qid: string }) => w.qid)).toEqual(['q-02', 'q-08']);
    expect(j.worst[0]).toMatchObject({ base: 0.9, treated: 0.7 });
  });

  it('is byte-identical for the same seed, and accepts the per-query.jsonl paths themselves', async () => {
    const o = { a: dirA, b: dirB, format: 'json' as const, seed: 7, iterations: 500 };
    const one = await compareCommand(o);
    expect(await compareCommand(o)).toBe(one);
    const viaFiles = await compareCommand({ ...o, a: join(dirA, 'per-query.jsonl'), b: join(dirB, 'per-query.jsonl') });
    expect(viaFiles).toBe(one);
    expect(await compareCommand({ ...o, seed: 8 })).not.toBe(one);
  });

  it('table: A, B, Δ ×100, p-values, CI; counts and the queries hurt most', async () => {
    const o = { a: dirA, b: dirB, seed: 7, iterations: 2000 };
    const table = await compareCommand({ ...o, format: 'table' });
    const j = JSON.parse(await compareCommand({ ...o, format: 'json' }));
    const lines = table.split('\n');
    expect(lines[0]).toBe(`A: ${join(dirA, 'per-query.jsonl')}`);
    expect(lines[1]).toBe(`B: ${join(dirB, 'per-query.jsonl')}`);
    expect(lines[2]).toContain('10 paired queries');
    expect(lines[2]).toContain('seed 7');
    const header = lines[4]!.split(/\s{2,}/);
    expect(header).toEqual(['metric', 'A', 'B', 'Δ', 'p (rand.)', 'p (t)', '95% CI of Δ']);
    const row = lines.find((l) => l.startsWith('NDCG@10'))!.split(/\s{2,}/);
    const ci = j.metrics['NDCG@10'].bootstrap;
    const sp = (x: number) => (x < 0 ? '' : '+') + (x * 100).toFixed(2);
    expect(row.slice(0, 4)).toEqual(['NDCG@10', '45.00', '51.00', '+6.00']);
    expect(row[4]).toBe(j.metrics['NDCG@10'].randomization.pValue.toFixed(4));
    expect(row[5]).toBe('0.1809');
    expect(row[6]).toBe(`[${sp(ci.low)}, ${sp(ci.high)}]`);
    expect(lines.find((l) => l.startsWith('NDCG@5'))!.split(/\s{2,}/).slice(0, 4)).toEqual(['NDCG@5', '40.00', '52.50', '+12.50']);
    expect(table).toContain('By NDCG@10: B helped 7, hurt 2, left 1 unchanged (of 10).');
    const hurt = lines.filter((l) => l.startsWith('  q-'));
    expect(hurt.map((l) => l.trim().split(/\s+/))).toEqual([
      ['q-02', '90.00', '→', '70.00', '-20.00'],
      ['q-08', '60.00', '→', '50.00', '-10.00'],
    ]);
    expect(table.endsWith('\n')).toBe(true);
  });

  it('keys: only the metrics asked for; the primary key falls back to the first', async () => {
    const j = JSON.parse(await compareCommand({ a: dirA, b: dirB, format: 'json', iterations: 100, keys: ['NDCG@5'] }));
    expect(Object.keys(j.metrics)).toEqual(['NDCG@5']);
    expect(j.primaryKey).toBe('NDCG@5');
    expect(j.seed).toBe(42);
    // NDCG@5 diffs: 0 +.25 0 +.25 +.25 0 +.25 0 0 +.25
    expect(j.counts).toEqual({ helped: 5, hurt: 0, unchanged: 5 });
    expect(j.worst).toEqual([]);
  });

  it('different query sets: UserError naming both files and a missing id', async () => {
    const c = put('c', runFile(B5, B10, [0, 1, 2, 4, 5, 6, 7, 8, 9]));
    const msg = await userError(compareCommand({ a: dirA, b: c, format: 'table' }));
    expect(msg).toContain(join(c, 'per-query.jsonl'));
    expect(msg).toContain(`"q-03" (${join(dirA, 'per-query.jsonl')}:4)`);
    const d = put('d', runFile(A5, A10) + line('q-extra', { 'NDCG@5': 0, 'NDCG@10': 0 }) + '\n');
    expect(await userError(compareCommand({ a: d, b: dirB, format: 'table' }))).toContain(`"q-extra" (${join(d, 'per-query.jsonl')}:11)`);
  });

  it('malformed per-query.jsonl: UserError file:line: field', async () => {
    const good = runFile(A5, A10).split('\n');
    const bad = (name: string, lineNo: number, text: string) => {
      const l = [...good];
      l[lineNo - 1] = text;
      return put(name, l.join('\n'));
    };
    const cases: [string, number, string, string][] = [
      ['json', 3, '{"id": "q-02", "metrics": {', 'invalid JSON'],
      ['array', 2, '[1, 2]', 'expected a JSON object, got an array'],
      ['noid', 1, '{"metrics": {"NDCG@5": 1, "NDCG@10": 1}}', 'id: expected a non-empty string, got nothing'],
      ['dup', 4, line('q-01', { 'NDCG@5': 0, 'NDCG@10': 0 }), 'id: duplicate query id "q-01" (first on line 2)'],
      ['nometrics', 5, '{"id": "q-04"}', 'metrics: expected an object of numbers, got nothing'],
      ['str', 2, '{"id": "q-01", "metrics": {"NDCG@5": "0.5", "NDCG@10": 1}}', 'metrics.NDCG@5: expected a finite number, got "0.5"'],
      ['inf', 2, '{"id": "q-01", "metrics": {"NDCG@5": 1e999, "NDCG@10": 1}}', 'metrics.NDCG@5: expected a finite number, got Infinity'],
      ['gold', 6, '{"id": "q-05", "metrics": {"NDCG@5": 0, "NDCG@10": 0}, "gold": "s1"}', 'gold: expected an array of strings, got "s1"'],
      ['missingkey', 7, '{"id": "q-06", "metrics": {"NDCG@5": 0}}', 'metrics.NDCG@10: missing (query "q-06")'],
    ];
    for (const [name, n, text, what] of cases) {
      const dir = bad(name, n, text);
      const msg = await userError(compareCommand({ a: dirA, b: dir, format: 'json', iterations: 10 }));
      if (name === 'json') expect(msg).toMatch(new RegExp(`^${join(dir, 'per-query.jsonl')}:3: invalid JSON \\(.+\\)$`));
      else expect(msg).toBe(`${join(dir, 'per-query.jsonl')}:${n}: ${what}`);
    }
    // a key asked for that no file has: named at A's first line
    expect(await userError(compareCommand({ a: dirA, b: dirB, format: 'json', keys: ['MAP@10'] }))).toBe(
      `${join(dirA, 'per-query.jsonl')}:1: metrics.MAP@10: missing (query "q-00")`,
    );
  });

  it('blank lines and CRLF are fine', async () => {
    const crlf = put('crlf', '\n' + runFile(B5, B10).replace(/\n/g, '\r\n') + '\r\n\n');
    const j = JSON.parse(await compareCommand({ a: dirA, b: crlf, format: 'json', iterations: 10 }));
    expect(j.queries).toBe(10);
  });

  it('missing folder, folder without per-query.jsonl, empty file, bad options', async () => {
    expect(await userError(compareCommand({ a: join(root, 'nope'), b: dirB, format: 'table' }))).toContain('nope: no such run folder');
    mkdirSync(join(root, 'empty-dir'));
    expect(await userError(compareCommand({ a: join(root, 'empty-dir'), b: dirB, format: 'table' }))).toContain(
      `${join(root, 'empty-dir', 'per-query.jsonl')}: not found`,
    );
    const e = put('empty', '\n\n');
    expect(await userError(compareCommand({ a: e, b: dirB, format: 'table' }))).toBe(`${join(e, 'per-query.jsonl')}: no queries (the file is empty)`);
    expect(await userError(compareCommand({ a: dirA, b: dirB, format: 'table', seed: -1 }))).toMatch(/^--seed: /);
    expect(await userError(compareCommand({ a: dirA, b: dirB, format: 'table', seed: 2 ** 53 }))).toMatch(/^--seed: /);
    expect(await userError(compareCommand({ a: dirA, b: dirB, format: 'table', iterations: 0 }))).toMatch(/^--iterations: /);
    expect(await userError(compareCommand({ a: dirA, b: dirB, format: 'table', keys: ['NDCG@5', 'NDCG@5'] }))).toMatch(/^--keys: /);
  });
});
