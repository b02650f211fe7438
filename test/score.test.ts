/** `score` command: qrels from TREC / JSONL / dataset folder, TREC or JSON runs, JSON and table output. */
import { SAMPLE_DIR } from './helpers/shared.js';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { scoreCommand } from '../src/commands/score.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-metrics-score-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, content: string): string {
  const p = join(dir, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
  return p;
}

// q1: a=2, b=1; q2: c=1; q3: only grade 0 and q4: both missing from the run (skipped).
const judgements: Array<[string, string, number]> = [
  ['q1', 'a', 2],
  ['q1', 'b', 1],
  ['q2', 'c', 1],
  ['q3', 'd', 0],
  ['q4', 'e', 1],
];
const qrelsTrec = file('qrels.trec', judgements.map(([q, d, r]) => `${q} 0 ${d} ${r}\n`).join(''));
const qrelsJsonl = file(
  'qrels.jsonl',
  judgements.map(([q, d, r]) => JSON.stringify({ query_id: q, skill_id: d, relevance: r }) + '\n').join(''),
);
const datasetDir = join(dir, 'dataset');
file('dataset/qrels/test.jsonl', readFileSync(qrelsJsonl, 'utf8'));
// q1 ranked x (0.9), then the 0.5 tie b > a: x, b, a. q2: only a non-relevant doc. qX: not in qrels.
const runTrec = file('run.trec', 'q1 Q0 a 1 0.5 t\nq1 Q0 x 2 0.9 t\nq1 Q0 b 3 0.5 t\nq2 Q0 z 1 1 t\nqX Q0 a 1 1 t\n');
const runJson = file(
  'result.json',
  JSON.stringify({ metrics: {}, retrieval: { test: { q1: { a: 0.5, x: 0.9, b: 0.5 }, q2: { z: 1 }, qX: { a: 1 } } } }),
);

// Hand computation at k = 2 (means over the 2 evaluated queries q1, q2; q2 scores 0 everywhere):
// NDCG@2  q1: DCG = 1/log2(3) = 0.63093 (b at rank 2); IDCG = 2 + 1/log2(3) = 2.63093 -> 0.239812
//         mean 0.119906 -> 0.11991, x100 = 11.99
// MAP@2   q1: (1/2) / R=2 = 0.25 -> mean 0.125 -> 12.50
// Recall@2 q1: 1/2 -> 0.25;  Precision@2 q1: 1/2 -> 0.25;  Completeness@2: 0;  MRR@2 q1: 1/2 -> 0.25
const expectedJson = `{
  "queries": 2,
  "metrics": {
    "NDCG@2": 0.11991,
    "MAP@2": 0.125,
    "Recall@2": 0.25,
    "Precision@2": 0.25,
    "Completeness@2": 0,
    "MRR@2": 0.25
  },
  "means": {
    "NDCG@2": 0.11990623328406573,
    "MAP@2": 0.125,
    "Recall@2": 0.25,
    "Precision@2": 0.25,
    "Completeness@2": 0,
    "MRR@2": 0.25
  },
  "counts": {
    "evaluated": 2,
    "qrels_queries": 4,
    "missing_from_run": 2,
    "not_in_qrels": 1,
    "empty_rankings": 0,
    "no_relevant": 0,
    "more_gold_than_k": {
      "2": 0
    },
    "query_id_as_doc": 0
  },
  "ids": {
    "missing_from_run": [
      "q3",
      "q4"
    ],
    "not_in_qrels": [
      "qX"
    ],
    "no_relevant": [],
    "query_id_as_doc": []
  }
}
`;

const base: { k: number[]; split: string } = { k: [2], split: 'test' };

describe('scoreCommand', () => {
  it('scores a TREC run against TREC qrels as JSON', async () => {
    expect(await scoreCommand({ ...base, qrels: qrelsTrec, run: runTrec, format: 'json' })).toBe(expectedJson);
  });

  it('--per-query: the unrounded values of every evaluated query, whose means are the means', async () => {
    const j = JSON.parse(await scoreCommand({ ...base, qrels: qrelsTrec, run: runTrec, format: 'json', perQuery: true })) as { means: Record<string, number>; per_query: Record<string, Record<string, number>> };
    expect(Object.keys(j.per_query)).toEqual(['q1', 'q2']);
    expect(j.per_query['q2']!['NDCG@2']).toBe(0);
    expect(j.per_query['q1']!['NDCG@2']! / 2).toBe(j.means['NDCG@2']);
    expect(j.per_query['q1']!['MAP@2']).toBe(0.25);
  });

  it('gives the same result for JSONL qrels, a dataset folder and an official result file', async () => {
    expect(await scoreCommand({ ...base, qrels: qrelsJsonl, run: runTrec, format: 'json' })).toBe(expectedJson);
    expect(await scoreCommand({ ...base, qrels: qrelsTrec, run: runJson, format: 'json' })).toBe(expectedJson);
    const viaDir = JSON.parse(await scoreCommand({ ...base, qrels: datasetDir, run: runTrec, format: 'json' })) as Record<string, unknown>;
    const want = JSON.parse(expectedJson) as Record<string, unknown>;
    expect(viaDir['metrics']).toEqual(want['metrics']);
    expect(viaDir['counts']).toEqual(want['counts']);
  });

  it('prints a table of percentages with a counts line', async () => {
    expect(await scoreCommand({ ...base, qrels: qrelsTrec, run: runTrec, format: 'table' })).toBe(
      'measure           x100\n' +
        'NDCG@2           11.99\n' +
        'MAP@2            12.50\n' +
        'Recall@2         25.00\n' +
        'Precision@2      25.00\n' +
        'Completeness@2    0.00\n' +
        'MRR@2            25.00\n' +
        'queries: 2 evaluated (of 4 in qrels); missing from run 2; not in qrels 1; empty rankings 0; ' +
        'no relevant judgement 0; more gold than k: @2 0\n' +
        'note: queries missing from the run are skipped, not scored 0: q3, q4\n',
    );
  });

  it('computes only the requested measures, in the given order', async () => {
    const out = JSON.parse(await scoreCommand({ ...base, qrels: qrelsTrec, run: runTrec, format: 'json', measures: ['P@1', 'ndcg_cut_2'] })) as {
      metrics: Record<string, number>;
    };
    // P@1: q1 has x (non-relevant) first -> 0; q2 0 -> 0
    expect(out.metrics).toEqual({ 'Precision@1': 0, 'NDCG@2': 0.11991 });
  });

  it('rejects bad options and inputs with UserErrors', async () => {
    await expect(scoreCommand({ ...base, qrels: qrelsTrec, run: runTrec, format: 'xml' as 'json' })).rejects.toThrow(UserError);
    await expect(scoreCommand({ ...base, k: [0], qrels: qrelsTrec, run: runTrec, format: 'json' })).rejects.toThrow(UserError);
    await expect(scoreCommand({ ...base, qrels: qrelsTrec, run: runTrec, format: 'table', perQuery: true })).rejects.toThrow(/^--per-query: needs --format json$/);
    await expect(scoreCommand({ ...base, qrels: join(dir, 'nope'), run: runTrec, format: 'json' })).rejects.toThrow(/nope: qrels not found/);
    await expect(scoreCommand({ ...base, qrels: qrelsTrec, run: join(dir, 'nope.run'), format: 'json' })).rejects.toThrow(/nope\.run: file not found/);
    const dup = file('dup.trec', 'q1 Q0 a 1 1 t\nq1 Q0 a 2 0.5 t\n');
    await expect(scoreCommand({ ...base, qrels: qrelsTrec, run: dup, format: 'json' })).rejects.toThrow(/dup\.trec:2: docid: "a" appears twice/);
  });
});

const SAMPLE = SAMPLE_DIR;
const hasSample = existsSync(join(SAMPLE, 'qrels', 'test.jsonl'));
if (!hasSample) console.log(`score.test.ts: skipping the sample check, ${SAMPLE} is absent`);

describe.skipIf(!hasSample)('scoreCommand on the shared SkillRet sample', () => {
  it('scores a perfect run: 1 everywhere except P@5 = mean(R)/5', async () => {
    // A run that ranks every gold skill first (scores 3, 2, 1).
    const gold = new Map<string, string[]>();
    for (const line of readFileSync(join(SAMPLE, 'qrels', 'test.jsonl'), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const r = JSON.parse(line) as { query_id: string; skill_id: string };
      gold.set(r.query_id, [...(gold.get(r.query_id) ?? []), r.skill_id]);
    }
    const run = file('perfect.trec', [...gold].flatMap(([q, ds]) => ds.map((d, i) => `${q} Q0 ${d} ${i + 1} ${3 - i} p\n`)).join(''));
    const out = JSON.parse(await scoreCommand({ qrels: SAMPLE, run, k: [5], split: 'test', format: 'json' })) as {
      queries: number;
      metrics: Record<string, number>;
    };
    // 30 queries: 19 with 1 gold, 10 with 2, 1 with 3 -> 42 gold; P@5 = (42 / 5) / 30 = 0.28
    expect(out.queries).toBe(30);
    expect(out.metrics).toEqual({ 'NDCG@5': 1, 'MAP@5': 1, 'Recall@5': 1, 'Precision@5': 0.28, 'Completeness@5': 1, 'MRR@5': 1 });
  });
});
