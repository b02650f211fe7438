/**
 * The `run` pipeline end to end on the bundled fixture with BM25: the results
 * folder contract, byte-identical reruns, atomicity, and one-line errors.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');

function config(dir: string, extra = ''): string {
  const f = join(dir, 'exp.yaml');
  writeFileSync(
    f,
    `name: t
dataset: { path: ${join(root, 'data/mini')}, split: test }
k: [5, 10, 15]
retrievers:
  - { id: bm25, type: bm25, top_k: 20 }
rerankers:
  - { id: none }
output: ./out
${extra}`,
  );
  return f;
}

const cli = runCli;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out.sort();
}

describe('run pipeline (BM25 on data/mini)', () => {
  it('writes the results folder contract, byte-identical on rerun', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipe-'));
    const f = config(dir, `cache_dir: ./cache\n`);
    const first = await cli(['run', f, '-q']);
    expect(first.code).toBe(0);
    const out = join(dir, 'out');
    const files = walk(out).map((p) => p.slice(out.length + 1));
    expect(files).toEqual(['bm25/none/breakdown.json', 'bm25/none/metrics.json', 'bm25/none/official.json', 'bm25/none/operating-points.json', 'bm25/none/per-query.jsonl', 'bm25/none/run.trec', 'manifest.json', 'queries.jsonl', 'report.html', 'skills.jsonl', 'summary.md']);
    const snapshot = Object.fromEntries(['bm25/none/breakdown.json', 'bm25/none/metrics.json', 'bm25/none/official.json', 'bm25/none/operating-points.json', 'bm25/none/per-query.jsonl', 'bm25/none/run.trec', 'queries.jsonl', 'skills.jsonl', 'report.html'].map((p) => [p, readFileSync(join(out, p))]));

    const metrics = JSON.parse(readFileSync(join(out, 'bm25/none/metrics.json'), 'utf8'));
    expect(Object.keys(metrics.metrics).slice(0, 15)).toEqual([
      'NDCG@5', 'NDCG@10', 'NDCG@15', 'MAP@5', 'MAP@10', 'MAP@15', 'Recall@5', 'Recall@10', 'Recall@15',
      'Precision@5', 'Precision@10', 'Precision@15', 'Completeness@5', 'Completeness@10', 'Completeness@15',
    ]);
    expect(metrics.queries).toBe(21);
    // Stored fractions are rounded to 5 decimals.
    for (const v of Object.values(metrics.metrics) as number[]) expect(Math.round(v * 1e5) / 1e5).toBe(v);

    // per-query.jsonl: one line per query; aggregation is the mean of these values.
    const lines = readFileSync(join(out, 'bm25/none/per-query.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(21);
    const mean = lines.reduce((s, l) => s + l.metrics['NDCG@10'], 0) / lines.length;
    expect(Math.abs(mean - metrics.metrics['NDCG@10'])).toBeLessThan(5e-6);
    expect(lines[0]).toHaveProperty('gold');
    expect(lines[0].retrieved.length).toBe(20);

    // run.trec: 6 columns, ranks from 1, top_k per query.
    const trec = readFileSync(join(out, 'bm25/none/run.trec'), 'utf8').trim().split('\n');
    expect(trec).toHaveLength(21 * 20);
    expect(trec[0]!.split(' ')).toHaveLength(6);
    expect(trec[0]!.split(' ')[3]).toBe('1');

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.tool.name).toBe('skillret-eval');
    expect(manifest.node).toBe(process.version);
    expect(manifest.config.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.dataset.files.map((x: { role: string }) => x.role)).toEqual(['skills', 'queries', 'qrels']);
    expect(manifest.dataset.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.stages[0]).toMatchObject({ kind: 'retrieval', id: 'bm25', params: { type: 'bm25', k1: 1.5, b: 0.75, top_k: 20 } });
    expect(typeof manifest.timings_seconds.total).toBe('number');
    expect(manifest.peak_rss_bytes).toBeGreaterThan(1e6);
    // The running peak after each timed step: same steps as the timings, never falling, at most the final peak.
    expect(Object.keys(manifest.peak_rss_mib_after)).toEqual(Object.keys(manifest.timings_seconds).filter((k) => k !== 'total'));
    const peaks = Object.values(manifest.peak_rss_mib_after) as number[];
    expect(peaks.every((p, i) => p > 1 && (i === 0 || p >= peaks[i - 1]!))).toBe(true);
    expect(peaks[peaks.length - 1]! * 2 ** 20).toBeLessThanOrEqual(manifest.peak_rss_bytes + 2 ** 20);

    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(/\| bm25 \/ none \| \d+\.\d\d \| \d+\.\d\d \|/);
    expect(summary).toMatch(/\| retrieval \| bm25 \|.*\| index built \|/);

    // Second run (now from the BM25 cache) and a --no-cache run: identical bytes.
    for (const args of [['run', f, '-q'], ['run', f, '-q', '--no-cache']]) {
      expect((await cli(args)).code).toBe(0);
      for (const [p, bytes] of Object.entries(snapshot)) expect(readFileSync(join(out, p)).equals(bytes), p).toBe(true);
      // The Cost line says where BM25's hits came from: the run cache on the warm run, built again without a cache.
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(args.includes('--no-cache') ? /\| retrieval \| bm25 \|.*\| index built \|/ : /\| retrieval \| bm25 \|.*\| hits reused \|/);
    }
    expect(existsSync(join(dir, 'cache'))).toBe(true);
  });

  it('a failing run leaves earlier results intact and no temporary files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipe-'));
    cpSync(join(root, 'data/mini'), join(dir, 'data'), { recursive: true });
    const f = join(dir, 'exp.yaml');
    writeFileSync(f, readFileSync(config(dir), 'utf8').replace(join(root, 'data/mini'), './data'));
    expect((await cli(['run', f, '-q', '--no-cache'])).code).toBe(0);
    const before = readFileSync(join(dir, 'out/bm25/none/metrics.json'));
    // Break the data: a malformed line in the queries file.
    writeFileSync(join(dir, 'data/queries/test.jsonl'), readFileSync(join(dir, 'data/queries/test.jsonl'), 'utf8') + '{"id": "q-x", \n');
    const r = await cli(['run', f, '-q', '--no-cache']);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/queries\/test\.jsonl:22: malformed JSON/);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/);
    expect(readFileSync(join(dir, 'out/bm25/none/metrics.json')).equals(before)).toBe(true);
    expect(walk(join(dir, 'out')).filter((p) => p.endsWith('.tmp'))).toEqual([]);
  });

  it('bad configs fail in one line with the key path and exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipe-'));
    const f = config(dir, 'cache_dri: ./c\n');
    const r = await cli(['run', f]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`skillret-eval: ${f}:9: cache_dri: unknown key (did you mean "cache_dir"?)\n`);
  });

  it('--dry-run prints the plan and runs nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipe-'));
    const f = config(dir);
    const r = await cli(['run', f, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('runs (1):');
    expect(r.out).toContain('bm25 × none');
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('unknown commands and options exit 2', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['run', 'x.yaml', '--no-such-flag'])).code).toBe(2);
  });
});
