/**
 * The paper-reproduction verdict in `compare`: a results folder whose runs carry metrics.json `paper`
 * blocks against the v1.1-embedding BM25 row (published NDCG@5 49.31, NDCG@10 51.69, Recall@10 59.41,
 * Completeness@10 44.56), as `run` writes them on a pinned release. bm25/none reproduces NDCG@5,
 * NDCG@10 and Recall@10 exactly (Δ 0, OK) and Completeness@10 at 45.00 (Δ +0.44, close); dense/none
 * claims the same row with NDCG@10 55.00 (Δ +3.31, FAIL).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

let root: string;
function run(exp: string, ret: string, m: Record<string, number>): string {
  const dir = join(root, exp, ret, 'none');
  mkdirSync(dir, { recursive: true });
  const lines = ['q1', 'q2', 'q3'].map((id) => JSON.stringify({ id, metrics: m, gold: ['s1'], retrieved: ['s1'] }));
  writeFileSync(join(dir, 'per-query.jsonl'), lines.join('\n') + '\n');
  writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ experiment: exp, retriever: ret, reranker: 'none', metrics: m, paper: { release: 'v1.1', table: 'v1.1-embedding', row: 'BM25', units: 'percent' } }));
  return dir;
}
const REPRO = { 'NDCG@5': 0.4931, 'NDCG@10': 0.5169, 'Recall@10': 0.5941, 'Completeness@10': 0.45 };

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'compare-paper-'));
  run('good', 'bm25', REPRO);
  run('bad', 'bm25', REPRO);
  run('bad', 'dense', { ...REPRO, 'NDCG@10': 0.55 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('compare --paper / --check', () => {
  it('--paper lists the whole published table with the reproduced row, Δ and verdicts', async () => {
    const r = await runCli(['compare', join(root, 'good'), '--paper']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('v1.1-embedding: ');
    expect(r.out).toMatch(/^BM25 ◀ /m);
    expect(r.out).toMatch(/^bge-small-en-v1\.5 /m); // every published row, not only the reproduced one
    const yours = r.out.split('\n').find((l) => l.includes('yours: bm25/none'))!;
    expect(yours.trim().split(/\s+/).slice(2)).toEqual(['49.31', '51.69', '59.41', '45.00']);
    const verdict = r.out.split('\n').find((l) => l.includes('Δ / verdict'))!;
    expect(verdict).toContain('+0.00 OK');
    expect(verdict).toContain('+0.44 close');
    expect(r.out).toContain('OK: |Δ| ≤ 0.05 points after the official rounding; close: ≤ 1; FAIL: beyond');
    const j = JSON.parse((await runCli(['compare', join(root, 'good'), '--paper', '--format', 'json'])).out);
    const row = j.tables[0].rows.find((x: { model: string }) => x.model === 'BM25');
    expect(row.reproduced[0].cells.map((c: { verdict: string }) => c.verdict)).toEqual(['OK', 'OK', 'OK', 'close']);
  });

  it('published cells print with their published decimals, as `paper` prints them (51.30, 59.00; never 51.3, 59)', async () => {
    const cells = (out: string, model: string) => out.split('\n').find((l) => l.startsWith(`${model} `) || l.startsWith(`| ${model} `))!.split(/[\s|]+/).filter((c) => c !== '').slice(-4);
    const paper = (await runCli(['paper', '--table', 'v1.1-embedding'])).out;
    expect(cells(paper, 'e5-large-v2')).toEqual(['51.30', '53.41', '60.55', '45.45']);
    expect(cells(paper, 'bge-large-en-v1.5')).toEqual(['57.04', '59.00', '64.37', '48.34']);
    const models = paper.split('\n').slice(paper.split('\n').findIndex((l) => l.startsWith('Model ')) + 1).filter((l) => l !== '').map((l) => l.split(/ {2,}/)[0]!);
    expect(models.length).toBeGreaterThan(10);
    for (const format of ['table', 'md']) {
      const r = await runCli(['compare', join(root, 'good'), '--paper', '--format', format]);
      expect(r.code).toBe(0);
      for (const m of models) expect(cells(r.out, m), `${format}: ${m}`).toEqual(cells(paper, m));
    }
    // the "Published results (paper)" table under a comparison: its paper line too
    const dir = join(root, 'e5', 'e5', 'none');
    mkdirSync(dir, { recursive: true });
    const m = { 'NDCG@5': 0.513, 'NDCG@10': 0.5341, 'Recall@10': 0.6055, 'Completeness@10': 0.4545 };
    writeFileSync(join(dir, 'per-query.jsonl'), ['q1', 'q2', 'q3'].map((id) => JSON.stringify({ id, metrics: m, gold: ['s1'], retrieved: ['s1'] })).join('\n') + '\n');
    writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ experiment: 'e5', retriever: 'e5', reranker: 'none', metrics: m, paper: { release: 'v1.1', table: 'v1.1-embedding', row: 'e5-large-v2', units: 'percent' } }));
    for (const format of ['table', 'md']) {
      const r = await runCli(['compare', join(root, 'good', 'bm25', 'none'), dir, '--iterations', '100', '--format', format]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const line = r.out.split('\n').find((l) => /(^|[\s|])paper[\s|]/.test(l) && l.includes('53.41'))!;
      expect(line, format).toBeDefined();
      expect(line.split(/[\s|]+/).filter((c) => c !== '').slice(-4), format).toEqual(['51.30', '53.41', '60.55', '45.45']);
      expect(r.out.split('\n').find((l) => /(^|[\s|])paper[\s|]/.test(l) && l.includes('49.31'))!.split(/[\s|]+/).filter((c) => c !== '').slice(-4)).toEqual(['49.31', '51.69', '59.41', '44.56']);
    }
  });

  it('--check exits 1 on a FAIL verdict, 0 otherwise; tolerances are configurable', async () => {
    expect((await runCli(['compare', join(root, 'good'), '--paper', '--check'])).code).toBe(0);
    const bad = await runCli(['compare', join(root, 'bad'), '--check', '--iterations', '100']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--check: 1 paper-reproduction verdict is FAIL');
    expect(bad.out).toContain('Published results (paper):');
    expect(bad.out).toMatch(/verdict\s+OK\s+FAIL\s+OK\s+close/);
    expect((await runCli(['compare', join(root, 'bad'), '--paper', '--check'])).code).toBe(1);
    expect((await runCli(['compare', join(root, 'bad'), '--paper', '--check', '--close-within', '5'])).code).toBe(0);
    const strict = await runCli(['compare', join(root, 'good'), '--paper', '--check', '--ok-within', '0', '--close-within', '0.2']);
    expect(strict.code).toBe(1);
    expect((await runCli(['compare', join(root, 'good'), '--paper', '--close-within', '0.01', '--ok-within', '0.05'])).code).toBe(2);
  });

  it('--check without any published counterpart is a user error', async () => {
    const dir = join(root, 'plain', 'x', 'none');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'per-query.jsonl'), JSON.stringify({ id: 'q1', metrics: { 'NDCG@10': 1 } }) + '\n');
    const r = await runCli(['compare', join(root, 'plain'), '--check']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no compared run has a published counterpart');
  });
});
