/**
 * The rerank matrix: a reranker's `depth` list (one run per depth, folders `<id>-k<depth>`, one model
 * load), `oracle: true` (the official oracle pool), both in summary.md with on/off attribution; the
 * official JSON result file of every run. Structure on data/mini; then the shared SkillRet sample
 * with the bundled GloVe MaxSim scorer standing in for a reranker (an untrained scorer, not a paper
 * model: its numbers are printed, not asserted).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from './helpers/cli.js';
import { SAMPLE_DIR, sampleExists } from './helpers/shared.js';
import { parseConfig } from '../src/pipeline/config.js';
import { oraclePool } from '../src/rerank/oracle.js';
import { readOfficialJson } from '../src/formats/official-json.js';
import { readTrecRun } from '../src/formats/trec-run.js';
import { trecOrder } from '../src/metrics/rank.js';

const root = resolve(import.meta.dirname, '..');

describe('depth lists in the config', () => {
  const cfg = (rerankers: string, topK = 20) =>
    parseConfig(`name: t\ndataset: { path: /d }\nretrievers:\n  - { id: bm25, type: bm25, top_k: ${topK} }\nrerankers:\n${rerankers}\noutput: /o\n`, '/x.yaml');

  it('expand into one run per depth named <id>-k<depth>, sharing a group', () => {
    const c = cfg('  - { id: none }\n  - { id: m, type: cross-encoder, model: glove-6b-100d-maxsim, depth: [10, 20] }\n  - { id: o, type: cross-encoder, model: glove-6b-100d-maxsim, oracle: true }');
    expect(c.rerankers.map((r) => [r.id, 'depth' in r ? r.depth : null, 'group' in r ? r.group : null, 'oracle' in r ? r.oracle : null])).toEqual([
      ['none', null, null, null],
      ['m-k10', 10, 'm', false],
      ['m-k20', 20, 'm', false],
      ['o', 20, 'o', true],
    ]);
  });

  it('refuse a depth above top_k, a repeated depth and ids that collide after expansion', () => {
    expect(() => cfg('  - { id: m, type: cross-encoder, model: x, depth: [10, 50] }')).toThrow(/rerankers\[0\]\.depth: depth 50 exceeds retrievers\[0\] \("bm25"\) top_k 20/);
    expect(() => cfg('  - { id: m, type: cross-encoder, model: x, depth: [10, 10] }')).toThrow(/a depth is listed twice/);
    expect(() => cfg('  - { id: m-k10, type: cross-encoder, model: x }\n  - { id: m, type: cross-encoder, model: x, depth: [10] }')).toThrow(
      /the run id "m-k10" of "m" is also the id of "m-k10"; rename one/,
    );
  });
});

describe('oracle pool', () => {
  it('missing gold replaces the lowest-ranked non-gold candidates; the pool keeps its size', () => {
    expect(oraclePool(['a', 'g1', 'b', 'c'], ['g1', 'g2', 'g3'])).toEqual({ pool: ['a', 'g1', 'g3', 'g2'], inserted: 2 });
    expect(oraclePool(['a', 'b'], ['a', 'b'])).toEqual({ pool: ['a', 'b'], inserted: 0 });
    expect(oraclePool(['g1', 'x'], ['g1', 'g2', 'g3'])).toEqual({ pool: ['g1', 'g2'], inserted: 1 }); // no room for g3
    expect(oraclePool([], ['g1'])).toEqual({ pool: [], inserted: 0 });
  });
});

function configIn(dir: string, dataset: string, extra = ''): string {
  const f = join(dir, 'matrix.yaml');
  writeFileSync(
    f,
    `name: matrix
dataset: { path: ${dataset}, split: test }
retrievers:
  - { id: bm25, type: bm25, top_k: 20 }
rerankers:
  - { id: none }
  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: [5, 10, 20] }
  - { id: maxsim-oracle, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 10, oracle: true }
${extra}stats: { seed: 1, iterations: 200 }
cache_dir: ${join(dir, 'cache')}
output: ${join(dir, 'out')}
`,
  );
  return f;
}

describe('a depth list and an oracle run end to end (data/mini)', () => {
  it('writes a folder per depth and the oracle run, the matrix and attribution in summary.md, and official.json per run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skr-matrix-'));
    const r = await runCli(['run', configIn(dir, join(root, 'data/mini')), '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = join(dir, 'out');
    for (const run of ['bm25/none', 'bm25/maxsim-k5', 'bm25/maxsim-k10', 'bm25/maxsim-k20', 'bm25/maxsim-oracle'])
      for (const f of ['metrics.json', 'run.trec', 'official.json']) expect(existsSync(join(out, run, f)), `${run}/${f}`).toBe(true);
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('## Rerank matrix (NDCG@10)');
    expect(summary).toMatch(/\| Retriever \| Reranker \| First stage only \| k=5 \| k=10 \| k=20 \| oracle k=10 \|/);
    expect(summary).toMatch(/\| bm25 \| maxsim \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| – \|/);
    expect(summary).toMatch(/\| bm25 \| maxsim-oracle \| [\d.]+ \| – \| – \| – \| [\d.]+ \|/);
    expect(summary).toContain('| maxsim-oracle (oracle pool) |');
    for (const id of ['maxsim-k5', 'maxsim-k10', 'maxsim-k20']) expect(summary).toContain(`| ${id} | NDCG@10 |`);
    // The oracle pool holds every gold skill that fits: its ceiling is full recall at 10.
    const oracle = JSON.parse(readFileSync(join(out, 'bm25/maxsim-oracle/metrics.json'), 'utf8'));
    const k10 = JSON.parse(readFileSync(join(out, 'bm25/maxsim-k10/metrics.json'), 'utf8'));
    expect(oracle.reranking.ceiling['Recall@10']).toBe(1);
    expect(oracle.metrics['Recall@10']).toBeGreaterThanOrEqual(k10.metrics['Recall@10']);
    // The official result file: the run and the stored fractions, readable by the official-format reader.
    const off = JSON.parse(readFileSync(join(out, 'bm25/maxsim-k10/official.json'), 'utf8'));
    expect(Object.keys(off.metrics.test)).toEqual(['NDCG@5', 'NDCG@10', 'NDCG@15', 'MAP@5', 'MAP@10', 'MAP@15', 'Recall@5', 'Recall@10', 'Recall@15', 'Precision@5', 'Precision@10', 'Precision@15', 'Completeness@5', 'Completeness@10', 'Completeness@15']);
    for (const [k, v] of Object.entries(off.metrics.test)) expect(v, k).toBe(k10.metrics[k]);
    const viaOfficial = await readOfficialJson(join(out, 'bm25/maxsim-k10/official.json'));
    const viaTrec = await readTrecRun(join(out, 'bm25/maxsim-k10/run.trec'));
    for (const [q, docs] of viaTrec) expect(trecOrder(viaOfficial.get(q)!).map((d) => d.docId), q).toEqual(trecOrder(docs).map((d) => d.docId));
    // One model load for the three depths.
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.timings_seconds).filter((k) => k.startsWith('load_reranker:'))).toEqual(['load_reranker:maxsim', 'load_reranker:maxsim-oracle']);
  }, 120_000);
});

describe.skipIf(!sampleExists)('the rerank matrix on the shared SkillRet sample (GloVe MaxSim stand-in)', () => {
  it('runs each depth and the oracle pool with attribution', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skr-matrix-sample-'));
    const r = await runCli(['run', configIn(dir, SAMPLE_DIR), '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const summary = readFileSync(join(dir, 'out', 'summary.md'), 'utf8');
    const row = /\| bm25 \| maxsim \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|/.exec(summary)!;
    const orow = /\| bm25 \| maxsim-oracle \| [\d.]+ \| – \| – \| – \| ([\d.]+) \|/.exec(summary)!;
    expect(row).not.toBeNull();
    expect(orow).not.toBeNull();
    expect(row[1]).toBe('75.08'); // BM25 NDCG@10 on the sample (reference: bm25s + trec_eval)
    console.log(`shared sample NDCG@10 (GloVe MaxSim stand-in, not a trained reranker): BM25 ${row[1]}, k=5 ${row[2]}, k=10 ${row[3]}, k=20 ${row[4]}, oracle k=10 ${orow[1]}`);
    expect(summary).toContain('| maxsim-oracle (oracle pool) | NDCG@10 |');
  }, 180_000);
});
