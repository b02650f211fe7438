/**
 * A hand-made results folder whose runs are hard to lay out: four runs whose labels share a long
 * common prefix and differ only near their end, 21 compared metrics (a wide comparison table), a
 * `sub` slice of 40 groups with long names (a wide grouped-bar chart) among them one group of a single
 * query that every run scores 0 on, and operating-points.json curves (three more charts with a legend
 * per run). No retrieval runs: the files are written directly, in the shapes `run` writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from './mulberry32.js';

/** What every run label starts with (52 characters). */
export const SHARED_PREFIX = 'sample-embedders-sentence-transformers-multilingual';
/** retriever/reranker of each run, in folder order; the labels are `<retriever>/<reranker>`. */
export const LONG_RUNS = [
  [`${SHARED_PREFIX}-mpnet-base-v2-exact`, 'none'],
  [`${SHARED_PREFIX}-mpnet-base-v2-hnsw`, 'none'],
  [`${SHARED_PREFIX}-mpnet-base-v2-exact`, 'cross-encoder-ms-marco-MiniLM-L-12-v2'],
  [`${SHARED_PREFIX}-mpnet-base-v2-hnsw`, 'cross-encoder-ms-marco-MiniLM-L-12-v2'],
] as const;
export const LONG_LABELS = LONG_RUNS.map(([ret, rr]) => `${ret}/${rr}`);
/** The slice group of one query that every run scores 0 on. */
export const ZERO_GROUP = 'Rare sub-category with a single query';
export const SUB_GROUPS = 40;

const KS = [1, 3, 5, 10, 20, 50, 100];
const QUERIES = 30;

/** Writes the folder at `dir` (created), with the runs `runs` (retriever, reranker; default LONG_RUNS). */
export function writeLongLabelResults(dir: string, runs: readonly (readonly [string, string])[] = LONG_RUNS): void {
  const rand = mulberry32(26);
  const groupNames = [...Array.from({ length: SUB_GROUPS - 1 }, (_, i) => `Sub-category ${String(i + 1).padStart(2, '0')}: data pipelines & orchestration`), ZERO_GROUP];
  runs.forEach(([ret, rr], r) => {
    const run = join(dir, ret, rr);
    mkdirSync(run, { recursive: true });
    const lines: string[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const metrics: Record<string, number> = {};
      for (const name of ['NDCG', 'Recall', 'Completeness']) for (const k of KS) metrics[`${name}@${k}`] = Math.min(1, Math.round((rand() * 0.8 + 0.05 * r) * 1e4) / 1e4);
      lines.push(JSON.stringify({ id: `q${q}`, metrics, gold: ['s1'], retrieved: ['s1', 's2'] }));
    }
    writeFileSync(join(run, 'per-query.jsonl'), lines.join('\n') + '\n');
    writeFileSync(join(run, 'metrics.json'), JSON.stringify({ experiment: 'long-labels', retriever: ret, reranker: rr }));
    const groups = Object.fromEntries(
      groupNames.map((g, i) => [g, { queries: g === ZERO_GROUP ? 1 : 1 + (i % 7), metrics: { 'NDCG@10': g === ZERO_GROUP ? 0 : Math.round((0.2 + 0.7 * rand()) * 1e4) / 1e4 } }]),
    );
    const major = { Development: { queries: 20, metrics: { 'NDCG@10': 0.5 + 0.1 * r } }, Operations: { queries: 10, metrics: { 'NDCG@10': 0.4 } } };
    writeFileSync(join(run, 'breakdown.json'), JSON.stringify({ category_rule: 'each_gold', slices: { major: { note: '', groups: major }, sub: { note: '', groups } } }));
    const point = (x: number) => ({ recall: x, completeness: x, no_gold: 1 - x, injected: 1, tokens: 100 });
    writeFileSync(
      join(run, 'operating-points.json'),
      JSON.stringify({
        target_completeness: 0.9,
        min_k: 5 + r,
        min_budget: 1000 * (r + 1),
        top_k: [1, 2, 5, 10, 20].map((k) => ({ k, ...point(Math.min(1, k / (20 + r))) })),
        budget: [100, 1000, 10000].map((budget, i) => ({ budget, ...point((i + 1) / (3 + r)) })),
        threshold: [0.1, 0.5, 0.9].map((quantile) => ({ quantile, threshold: quantile, ...point(1 - quantile) })),
      }),
    );
  });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ config: { resolved: { name: 'long-labels' } }, runs: runs.map(([ret, rr]) => ({ dir: `${ret}/${rr}` })) }));
  writeFileSync(join(dir, 'queries.jsonl'), Array.from({ length: QUERIES }, (_, q) => JSON.stringify({ id: `q${q}`, query: `query ${q}`, gold: ['s1'] })).join('\n') + '\n');
  writeFileSync(join(dir, 'skills.jsonl'), [JSON.stringify({ id: 's1', name: 'one' }), JSON.stringify({ id: 's2', name: 'two' })].join('\n') + '\n');
}
