/**
 * Fusion tuning (`tune:` on a fusion retriever): the grid's order and tie rule on a planted case;
 * the config checks (tuning on the evaluated split refused unless asked by name, a grid that fits
 * the method and the inputs, the tuning split's files); on a temp copy of data/mini with a `train`
 * split of its own (ids prefixed `tr-`): tuning reads nothing of the test split (its files are
 * deleted, and every query and skill the first stages are handed is a train one), and the fused
 * test run equals, byte for byte, a plain fusion run with the chosen parameters set by hand.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Qrels, Run } from '../src/core/types.js';
import { defineFirstStage, registerRetrieverKind } from '../src/index.js';
import { fusionGridPoints, searchGrid } from '../src/fusion/tune.js';
import { fuse } from '../src/fusion/fuse.js';
import { normalizeScores } from '../src/fusion/normalize.js';
import { evaluate } from '../src/metrics/evaluate.js';
import { parseConfig } from '../src/pipeline/config.js';
import { loadSplitDataset } from '../src/pipeline/experiment.js';
import { tuneFusion } from '../src/pipeline/fusion-tuning.js';
import { configError, runCli } from './helpers/cli.js';

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'fusion-tuning-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every call of the `spy` kind: the split its queries and skills came from (by id prefix). */
const calls: { queries: string[]; docs: string[] }[] = [];
const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9]+/g) ?? []);
registerRetrieverKind(
  defineFirstStage({
    type: 'spy',
    schema: z.strictObject({ id: z.string().min(1), type: z.literal('spy'), top_k: z.number().int().positive().default(20) }),
    describe: () => 'word overlap, recording what it is handed',
    async run(_ctx, _r, { docs, queries }) {
      calls.push({ queries: queries.map((q) => q.id), docs: [...docs.ids] });
      const texts = [...docs.texts()].map(words);
      const run: Run = new Map(
        queries.map((q) => {
          const qw = words(q.text);
          return [q.id, texts.map((t, i) => ({ docId: docs.ids[i]!, score: [...t].filter((w) => qw.has(w)).length }))];
        }),
      );
      return { run, info: { type: 'spy' } };
    },
  }),
);

/** data/mini with a train split of its own: every skill and query id prefixed `tr-`, the first 15 queries only. */
function datasetWithTrain(): string {
  const ds = join(dir, `data-${Math.random().toString(36).slice(2)}`);
  cpSync(join(root, 'data/mini'), ds, { recursive: true });
  const lines = (role: string) => readFileSync(join(ds, role, 'test.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const write = (role: string, rows: unknown[]) => writeFileSync(join(ds, role, 'train.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  write('skills', lines('skills').map((s) => ({ ...s, id: `tr-${String(s.id)}` })));
  const queries = lines('queries').slice(0, 15);
  const kept = new Set(queries.map((q) => q.id));
  write('queries', queries.map((q) => ({ ...q, id: `tr-${String(q.id)}`, skill_ids: (q.skill_ids as string[]).map((s) => `tr-${s}`) })));
  write('qrels', lines('qrels').filter((j) => kept.has(j.query_id)).map((j) => ({ ...j, query_id: `tr-${String(j.query_id)}`, skill_id: `tr-${String(j.skill_id)}` })));
  return ds;
}

const GRID = '{ rrf_k: [1, 60, 200], weights: [[1, 1], [1, 0.25], [0.25, 1]] }';

function configText(ds: string, out: string, fusion: string): string {
  return [
    'name: tuned',
    `dataset: { path: ${ds}, split: test }`,
    'k: [5, 10]',
    'retrievers:',
    '  - { id: bm25, type: bm25, top_k: 30 }',
    '  - { id: spy, type: spy, top_k: 30 }',
    `  - { id: fused, type: fusion, inputs: [bm25, spy], method: rrf, top_k: 20${fusion} }`,
    'stats: { iterations: 100 }',
    `output: ${out}`,
    `cache_dir: ${join(dir, 'cache')}`,
  ].join('\n') + '\n';
}

const ctx = { cacheDir: join(dir, 'cache'), useCache: true, offline: true, progress: () => ({ increment() {}, stop() {} }), log: () => {} };

describe('the grid (src/fusion/tune.ts)', () => {
  it('picks the planted best point; equal scores go to the earliest point in grid order', () => {
    // Input A ranks the gold first, input B last: the weights that trust A win.
    const A: Run = new Map([['q', [{ docId: 'g', score: 3 }, { docId: 'x', score: 2 }, { docId: 'y', score: 1 }]]]);
    const B: Run = new Map([['q', [{ docId: 'x', score: 3 }, { docId: 'y', score: 2 }, { docId: 'g', score: 1 }]]]);
    const qrels: Qrels = new Map([['q', new Map([['g', 1]])]]);
    const points = fusionGridPoints('combsum', 3, { rrfK: [], norm: ['min-max', 'rank'], weights: [[0, 1], [1, 1], [1, 0], [2, 0]] });
    expect(points.map((p) => (p.method === 'rrf' ? '' : `${p.norm} ${p.weights.join(',')}`))).toEqual([
      'min-max 0,1', 'min-max 1,1', 'min-max 1,0', 'min-max 2,0', 'rank 0,1', 'rank 1,1', 'rank 1,0', 'rank 2,0',
    ]);
    const ndcg = (spec: (typeof points)[number]) => evaluate(qrels, fuse([A, B], spec), [{ name: 'NDCG', k: 1 }]).aggregate['NDCG@1']!;
    const { scores, best } = searchGrid(points, ndcg);
    expect(scores).toEqual([0, 0, 1, 1, 0, 0, 1, 1]);
    // [1,0] and [2,0] rank alike (the same score): the earlier, min-max [1,0], is chosen.
    expect(best).toBe(2);
    expect(searchGrid([1, 2, 3], () => Number.NaN).best).toBe(-1);
    expect(searchGrid([0, 1, 2], (i) => (i === 0 ? Number.NaN : 0.5)).best).toBe(1);
  });

  it('rank normalisation: 1 − (r − 1)/n in trec order (ties by doc id descending)', () => {
    expect(normalizeScores([{ docId: 'a', score: 1 }, { docId: 'c', score: 5 }, { docId: 'b', score: 1 }, { docId: 'd', score: 0 }], 'rank')).toEqual([
      { docId: 'a', score: 1 - 2 / 4 },
      { docId: 'c', score: 1 },
      { docId: 'b', score: 1 - 1 / 4 },
      { docId: 'd', score: 1 - 3 / 4 },
    ]);
  });
});

describe('tune: config checks', () => {
  const base = (fusion: string, split = 'test') =>
    `name: t\ndataset: { path: /d, split: ${split} }\nretrievers:\n  - { id: a, type: bm25 }\n  - { id: b, type: bm25, k1: 1.2 }\n  - id: f\n    type: fusion\n    inputs: [a, b]\n    method: rrf\n${fusion}output: /o\n`;
  it('refuses tuning on the evaluated split unless allow_eval_split names it', () => {
    expect(configError(base('    tune: { split: test, metric: NDCG@10, grid: { rrf_k: [10, 60] } }\n'))).toBe(
      '/cfg/x.yaml:10: retrievers[2].tune.split: "test" is the split being evaluated (dataset.split): parameters chosen on it would be fitted to the evaluated queries; name another split (e.g. train), or set tune.allow_eval_split: true to tune on it on purpose',
    );
    const c = parseConfig(base('    tune: { split: test, metric: NDCG@10, grid: { rrf_k: [10, 60] }, allow_eval_split: true }\n'), '/cfg/x.yaml');
    expect(c.retrievers[2]).toMatchObject({ tune: { split: 'test', allow_eval_split: true } });
    expect(parseConfig(base('    tune: { split: train, metric: NDCG@10, grid: { rrf_k: [10, 60] } }\n'), '/cfg/x.yaml').retrievers[2]).toMatchObject({ tune: { split: 'train', allow_eval_split: false } });
  });
  it('names the key of a grid that does not fit', () => {
    expect(configError(base('    tune: { split: train, metric: NDCG@10, grid: { norm: [z] } }\n'))).toBe('/cfg/x.yaml:10: retrievers[2].tune.grid.norm: applies to combsum and combmnz only (rrf uses ranks, not scores)');
    expect(configError(base('    tune: { split: train, metric: NDCG@10, grid: { weights: [[1, 2, 3]] } }\n'))).toBe('/cfg/x.yaml:10: retrievers[2].tune.grid.weights[0]: expected one weight per input (2), got 3');
    expect(configError(base('    tune: { split: train, metric: NDCG@10, grid: { rrf_k: [10, 10] } }\n'))).toBe('/cfg/x.yaml:10: retrievers[2].tune.grid.rrf_k[1]: 10 is listed twice (also rrf_k[0])');
    expect(configError(base('    tune: { split: train, metric: NDCG@10, grid: {} }\n'))).toBe('/cfg/x.yaml:10: retrievers[2].tune.grid: lists no parameter to try: give rrf_k, norm or weights (each a list of values)');
    expect(configError(base('    tune: { split: train, metric: NDCG, grid: { rrf_k: [1] } }\n'))).toMatch(/^\/cfg\/x\.yaml:10: retrievers\[2\]\.tune\.metric: measure "NDCG": needs a cutoff/);
    expect(configError(base('    tune: { split: train, metric: NDCG@10, grid: { rrf_k: [1] }, alow_eval_split: true }\n'))).toMatch(/retrievers\[2\]\.tune\.alow_eval_split: unknown key \(did you mean "allow_eval_split"\?\)/);
  });
  it('run --dry-run names a tuning split the folder lacks (file:line: key path), exit 2', async () => {
    const ds = join(dir, 'only-test');
    cpSync(join(root, 'data/mini'), ds, { recursive: true });
    const f = join(dir, 'missing-split.yaml');
    writeFileSync(f, configText(ds, join(dir, 'out-missing'), ', tune: { split: train, metric: NDCG@10, grid: { rrf_k: [1, 60] } }'));
    const r = await runCli(['run', f, '--dry-run', '--offline']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${f}:7: retrievers[2].tune.split: ${join(ds, 'skills', 'train.jsonl')}: file not found`);
  });
});

describe('tuning on a train split of a data/mini copy', () => {
  it('reads nothing of the test split: its files are gone, and every query and skill handed to the stages is a train one', async () => {
    const ds = datasetWithTrain();
    for (const role of ['skills', 'queries', 'qrels']) rmSync(join(ds, role, 'test.jsonl'));
    const config = parseConfig(configText(ds, join(dir, 'out-a'), `, tune: { split: train, metric: NDCG@10, grid: ${GRID} }`), join(dir, 'a.yaml'));
    const asked: string[] = [];
    calls.length = 0;
    const fusion = config.retrievers[2]!;
    if (fusion.type !== 'fusion') throw new Error('not a fusion');
    const { entry, tuning } = await tuneFusion(ctx, config, fusion, config.retrievers.slice(0, 2), dir, (split) => {
      asked.push(split);
      return loadSplitDataset(ctx, config, split);
    });
    expect(asked).toEqual(['train']);
    expect(calls.length).toBe(1);
    expect(calls[0]!.queries.length).toBe(15);
    expect(calls[0]!.queries.every((q) => q.startsWith('tr-'))).toBe(true);
    expect(calls[0]!.docs.length).toBe(45);
    expect(calls[0]!.docs.every((d) => d.startsWith('tr-'))).toBe(true);
    expect(tuning.files.map((f) => f.path.split('/').slice(-2).join('/'))).toEqual(['skills/train.jsonl', 'queries/train.jsonl', 'qrels/train.jsonl']);
    expect(tuning.grid.length).toBe(9);
    // The chosen point is the grid's best by the stated rule, and the entry carries it.
    const top = Math.max(...tuning.grid.map((p) => p.score));
    expect(tuning.chosen).toBe(tuning.grid.findIndex((p) => p.score === top));
    expect(entry).toMatchObject({ rrf_k: tuning.grid[tuning.chosen]!.rrf_k, weights: tuning.grid[tuning.chosen]!.weights });
    // The grid does not score every point alike (the planted weights matter on this data).
    expect(new Set(tuning.grid.map((p) => p.score)).size).toBeGreaterThan(1);
  });

  it('max_queries: only the first N evaluated queries of the tuning split (file order) are run and scored', async () => {
    const ds = datasetWithTrain();
    const config = parseConfig(configText(ds, join(dir, 'out-m'), `, tune: { split: train, metric: NDCG@10, grid: ${GRID}, max_queries: 4 }`), join(dir, 'm.yaml'));
    const fusion = config.retrievers[2]!;
    if (fusion.type !== 'fusion') throw new Error('not a fusion');
    calls.length = 0;
    const { tuning } = await tuneFusion(ctx, config, fusion, config.retrievers.slice(0, 2), dir, (split) => loadSplitDataset(ctx, config, split));
    expect(tuning.queries).toBe(4);
    expect(calls.map((c) => c.queries)).toEqual([['tr-q-00001', 'tr-q-00002', 'tr-q-00003', 'tr-q-00004']]);
  });

  it('the tuned test run equals a plain fusion run with the chosen parameters set by hand, byte for byte', async () => {
    const ds = datasetWithTrain();
    const tunedCfg = join(dir, 'tuned.yaml');
    writeFileSync(tunedCfg, configText(ds, join(dir, 'out-tuned'), `, tune: { split: train, metric: NDCG@10, grid: ${GRID} }`));
    calls.length = 0;
    const r = await runCli(['run', tunedCfg, '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    // The spy ran twice: on test (its own entry, listed before the fusion), then on train (the fusion's tuning).
    expect(calls.map((c) => c.queries[0]!.slice(0, 3))).toEqual(['q-0', 'tr-']);
    const manifest = JSON.parse(readFileSync(join(dir, 'out-tuned', 'manifest.json'), 'utf8'));
    expect(manifest.tuning).toHaveLength(1);
    const t = manifest.tuning[0];
    expect(t).toMatchObject({ retriever: 'fused', method: 'rrf', split: 'train', metric: 'NDCG@10', queries: 15, skills: 45, ran: ['bm25', 'spy'] });
    const chosen = t.grid[t.chosen];
    const stage = manifest.stages.find((s: { id: string }) => s.id === 'fused');
    expect(stage.info).toMatchObject({ rrf_k: chosen.rrf_k, weights: chosen.weights });
    const summary = readFileSync(join(dir, 'out-tuned', 'summary.md'), 'utf8');
    expect(summary).toContain('## Fusion tuning');
    if (process.env.SHOW_SUMMARY) console.log(summary);
    expect(summary).toContain(`Chosen: rrf_k=${chosen.rrf_k}, weights=[${chosen.weights.join(', ')}]`);

    const plainCfg = join(dir, 'plain.yaml');
    writeFileSync(plainCfg, configText(ds, join(dir, 'out-plain'), `, rrf_k: ${chosen.rrf_k}, weights: [${chosen.weights.join(', ')}]`));
    const p = await runCli(['run', plainCfg, '--offline', '-q']);
    expect(p.code).toBe(0);
    for (const file of ['per-query.jsonl', 'run.trec', 'metrics.json', 'official.json', 'breakdown.json'])
      expect(readFileSync(join(dir, 'out-tuned', 'fused/none', file), 'utf8'), file).toBe(readFileSync(join(dir, 'out-plain', 'fused/none', file), 'utf8'));
    // Nothing of the tuning leaks into the inputs' runs either.
    for (const run of ['bm25/none', 'spy/none']) expect(readFileSync(join(dir, 'out-tuned', run, 'per-query.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'out-plain', run, 'per-query.jsonl'), 'utf8'));
  });
});
