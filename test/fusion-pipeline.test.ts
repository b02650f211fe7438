/**
 * Fusion end to end: configs/hybrid-rrf.yaml (BM25 + the GloVe static embedder fused by RRF) on
 * the bundled fixture, offline: the results folder, the manifest, the fused run equal to RRF over
 * the inputs' written runs, a reranker over the fusion, byte-identical reruns. Then BM25 vs GloVe
 * vs RRF NDCG@10 on the shared SkillRet sample (measured and printed, not asserted).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readTrecRun } from '../src/formats/trec-run.js';
import { rrf } from '../src/fusion/rrf.js';
import { trecOrder } from '../src/metrics/rank.js';
import { SAMPLE_DIR, sampleExists } from './helpers/shared.js';

const root = resolve(__dirname, '..');

const cli = runCli;

/** configs/hybrid-rrf.yaml pointed at a temp output and cache, with `extra` appended to the rerankers. */
function hybridIn(dir: string, rerankers = ''): string {
  const text = readFileSync(join(root, 'configs/hybrid-rrf.yaml'), 'utf8')
    .replace('path: ../data/mini', `path: ${join(root, 'data/mini')}`)
    .replace('  - { id: none }\n', `  - { id: none }\n${rerankers}`)
    .replace('output: ../results/hybrid-rrf', `output: ${join(dir, 'out')}\ncache_dir: ${join(dir, 'cache')}`);
  const f = join(dir, 'hybrid.yaml');
  writeFileSync(f, text);
  return f;
}

const FILES = ['metrics.json', 'run.trec', 'per-query.jsonl'];

describe('configs/hybrid-rrf.yaml on data/mini', () => {
  it('writes fusion/none, equals RRF over the inputs, can be reranked, and reruns byte-identically', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusion-'));
    const f = hybridIn(dir, '  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 20 }\n');
    const r = await cli(['run', f, '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = join(dir, 'out');
    const runs = ['bm25/none', 'glove/none', 'fusion/none', 'fusion/maxsim'];
    for (const run of runs) for (const file of FILES) expect(existsSync(join(out, run, file)), `${run}/${file}`).toBe(true);

    const metrics = JSON.parse(readFileSync(join(out, 'fusion/none/metrics.json'), 'utf8'));
    expect(metrics.first_stage).toEqual({ type: 'fusion', top_k: 20 });
    expect(metrics.queries).toBe(21);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const stage = manifest.stages.find((s: { id: string; kind: string }) => s.kind === 'retrieval' && s.id === 'fusion');
    expect(stage.params).toEqual({ type: 'fusion', inputs: ['bm25', 'glove'], method: 'rrf', rrf_k: 60, weights: [1, 1], top_k: 20 });
    expect(stage.info).toMatchObject({ type: 'fusion', method: 'rrf', rrf_k: 60, weights: [1, 1], top_k: 20, input_candidates_max: { bm25: 30, glove: 30 } });
    expect(manifest.stages.some((s: { kind: string; over?: string }) => s.kind === 'rerank' && s.over === 'fusion')).toBe(true);

    // The fused run is RRF (k 60) over exactly what the inputs wrote (their top 30), cut to 20.
    const bm25 = await readTrecRun(join(out, 'bm25/none/run.trec'));
    const glove = await readTrecRun(join(out, 'glove/none/run.trec'));
    const fused = await readTrecRun(join(out, 'fusion/none/run.trec'));
    const expected = rrf([bm25, glove], { k: 60, topK: 20 });
    expect(fused.size).toBe(21);
    for (const [qid, docs] of fused) expect(trecOrder(docs), qid).toEqual(expected.get(qid));
    // …and differs from both inputs' top 20.
    const top = (run: typeof fused) => JSON.stringify([...run].map(([q, d]) => [q, trecOrder(d).slice(0, 20).map((x) => x.docId)]));
    expect(top(fused)).not.toBe(top(bm25));
    expect(top(fused)).not.toBe(top(glove));

    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(/\| fusion \/ none \| \d+\.\d\d \|/);

    const first = Object.fromEntries(runs.flatMap((run) => FILES.map((file) => [`${run}/${file}`, readFileSync(join(out, run, file))])));
    expect((await cli(['run', f, '--offline', '-q'])).code).toBe(0);
    for (const [p, bytes] of Object.entries(first)) expect(readFileSync(join(out, p)).equals(bytes), p).toBe(true);
  });
});

if (!sampleExists) console.log(`fusion-pipeline: skipping the shared-sample measurement: ${SAMPLE_DIR} is absent`);

describe.skipIf(!sampleExists)('BM25 vs GloVe vs RRF on the shared SkillRet sample', () => {
  it('measures NDCG@10 of each and fuses into a run different from both inputs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusion-sample-'));
    const f = join(dir, 'sample.yaml');
    writeFileSync(
      f,
      `name: fusion-sample
dataset: { path: ${SAMPLE_DIR}, split: test }
k: [10]
retrievers:
  - { id: bm25, type: bm25, top_k: 50 }
  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 50 }
  - { id: rrf, type: fusion, inputs: [bm25, glove], method: rrf, top_k: 20 }
output: ${join(dir, 'out')}
cache_dir: ${join(dir, 'cache')}
`,
    );
    const r = await cli(['run', f, '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const ndcg: Record<string, number> = {};
    for (const id of ['bm25', 'glove', 'rrf']) ndcg[id] = JSON.parse(readFileSync(join(dir, 'out', id, 'none/metrics.json'), 'utf8')).metrics['NDCG@10'];
    console.log(`shared sample NDCG@10 (×100): BM25 ${(ndcg.bm25! * 100).toFixed(2)}, GloVe ${(ndcg.glove! * 100).toFixed(2)}, RRF(k=60) ${(ndcg.rrf! * 100).toFixed(2)}`);
    expect(ndcg.bm25).toBeCloseTo(0.7508, 4); // the bm25s + trec_eval reference (measurements.md)
    const retrieved = (id: string) => readFileSync(join(dir, 'out', id, 'none/per-query.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).retrieved.slice(0, 20));
    const fused = JSON.stringify(retrieved('rrf'));
    expect(fused).not.toBe(JSON.stringify(retrieved('bm25')));
    expect(fused).not.toBe(JSON.stringify(retrieved('glove')));
  });
});
