/**
 * Full-size differential suite: a seeded collection at the size of the SkillRet v1.1 test split
 * (6,006 UUID-shaped skill ids, 4,392 queries with 1–3 gold, runs of depth 20 full of exact score
 * ties; test/helpers/fullsize-collection.ts) scored by every path a user has, each equal bit for
 * bit to the plain evaluator (test/helpers/plain-evaluator.ts: string splitting, Maps, trec_eval's
 * loops) over the same files:
 * - `score` on the TREC run and on the official JSON run, against the TREC qrels, the JSONL qrels
 *   and the dataset folder (every mean unrounded, every query's values, the rounded metrics);
 * - a `type: run` experiment over both runs (metrics.json, per-query.jsonl);
 * - `compare` of the two runs (the library verb and the many-run command): the means it sets
 *   side by side and their Δ.
 * Small inputs never cross the byte reader's growth points; this collection holds more than 2^12
 * distinct document ids, so it does (the interner defect that dropped ids past 1,024 made `score`
 * undercount here).
 *
 * And on the shared full-size split of real SKILL.md text (../shared/data/synth-fullsize, unpacked
 * with xz into a temporary folder; required under CI=true): a BM25 experiment's run.trec scored by
 * `score` against the split's qrels JSONL = the plain evaluator = the experiment's own
 * per-query.jsonl, every value to the bit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare } from '../src/api/compare.js';
import { roundHalfEven } from '../src/util/python-round.js';
import { runCli } from './helpers/cli.js';
import { type FullCollection, FULL_QUERIES, writeFullCollection } from './helpers/fullsize-collection.js';
import { plainEvaluate, type PlainEvaluation, type PlainQrels, plainKeys, plainReadJsonRun, plainReadTrecQrels, plainReadTrecRun } from './helpers/plain-evaluator.js';
import { FULLSIZE_DIR, fullsizeExists } from './helpers/shared.js';

const KS = [5, 10, 15];
const KEYS = plainKeys(KS);
let root: string;
let c: FullCollection;
const plain: Record<string, PlainEvaluation> = {};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-fullsize-'));
  c = writeFullCollection(join(root, 'data'), 20260512);
  const qrels = plainReadTrecQrels(c.qrelsTrec);
  for (const name of ['a', 'b']) {
    plain[name] = plainEvaluate(qrels, plainReadTrecRun(c.runs[name]!.trec), KS);
    // The two spellings of each run are the same run.
    expect(plainEvaluate(qrels, plainReadJsonRun(c.runs[name]!.json), KS)).toEqual(plain[name]);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface ScoreJson {
  queries: number;
  metrics: Record<string, number>;
  means: Record<string, number>;
  per_query: Record<string, Record<string, number>>;
}

async function score(qrels: string, run: string): Promise<ScoreJson> {
  const r = await runCli(['score', '--qrels', qrels, '--run', run, '--format', 'json', '--per-query']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as ScoreJson;
}

function perQueryFile(path: string): Map<string, Record<string, number>> {
  return new Map(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const rec = JSON.parse(l) as { id: string; metrics: Record<string, number> };
        return [rec.id, rec.metrics] as const;
      }),
  );
}

/** Same queries in the same order, every value the same double; means too. */
function expectSame(perQuery: Record<string, Record<string, number>> | Map<string, Record<string, number>>, means: Record<string, number>, p: PlainEvaluation): void {
  const got = perQuery instanceof Map ? perQuery : new Map(Object.entries(perQuery));
  expect([...got.keys()]).toEqual([...p.perQuery.keys()]);
  const diffs: string[] = [];
  for (const [qid, want] of p.perQuery) {
    const rec = got.get(qid)!;
    for (const k of KEYS) if (!Object.is(rec[k], want[k])) diffs.push(`${qid} ${k}: ${rec[k]} vs plain ${want[k]}`);
  }
  expect(diffs.slice(0, 10)).toEqual([]);
  for (const k of KEYS) expect([k, means[k]]).toEqual([k, p.means[k]]);
}

describe('full-size collection (6,006 skills, 4,392 queries, depth 20, ties)', () => {
  it('has more distinct document ids than any small fixture (crosses 2^12)', () => {
    const ids = new Set(readFileSync(c.runs['a']!.trec, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')[2]));
    expect(ids.size).toBeGreaterThan(4096);
    expect(plain['a']!.perQuery.size).toBe(FULL_QUERIES);
  });

  it('score: TREC run and official JSON run against TREC qrels, JSONL qrels and the dataset folder = plain evaluator, bit for bit', async () => {
    for (const name of ['a', 'b']) {
      const p = plain[name]!;
      for (const qrels of [c.qrelsTrec, join(c.dir, 'qrels', 'test.jsonl'), c.dir]) {
        for (const run of [c.runs[name]!.trec, c.runs[name]!.json]) {
          const s = await score(qrels, run);
          expect(s.queries).toBe(FULL_QUERIES);
          expectSame(s.per_query, s.means, p);
          for (const k of KEYS) expect(s.metrics[k]).toBe(roundHalfEven(p.means[k]!, 5));
        }
      }
    }
  });

  describe('experiment over the saved runs, and compare', () => {
    let out: string;
    beforeAll(async () => {
      out = join(root, 'results');
      const config = join(root, 'fullsize.yaml');
      writeFileSync(
        config,
        [
          'name: fullsize',
          `dataset: { path: ${JSON.stringify(c.dir)}, split: test }`,
          'k: [5, 10, 15]',
          'retrievers:',
          `  - { id: a, type: run, path: ${JSON.stringify(c.runs['a']!.trec)}, top_k: 20 }`,
          `  - { id: b, type: run, path: ${JSON.stringify(c.runs['b']!.json)}, top_k: 20 }`,
          'rerankers:',
          '  - { id: none }',
          'stats: { seed: 7, iterations: 200 }',
          `output: ${JSON.stringify(out)}`,
        ].join('\n') + '\n',
      );
      const r = await runCli(['run', config, '--no-cache', '--quiet']);
      expect(r.code, r.err).toBe(0);
    });

    it('type: run: per-query.jsonl and metrics.json = plain evaluator', () => {
      for (const name of ['a', 'b']) {
        const folder = join(out, name, 'none');
        const perQuery = perQueryFile(join(folder, 'per-query.jsonl'));
        const metrics = (JSON.parse(readFileSync(join(folder, 'metrics.json'), 'utf8')) as { metrics: Record<string, number> }).metrics;
        // metrics.json holds the rounded means; the unrounded ones are checked through per-query.jsonl.
        expectSame(perQuery, plain[name]!.means, plain[name]!);
        for (const k of KEYS) expect([k, metrics[k]]).toEqual([k, roundHalfEven(plain[name]!.means[k]!, 5)]);
      }
    });

    it('compare (library verb): the means of both runs and their Δ = plain evaluator', async () => {
      const cmp = await compare([join(out, 'a', 'none'), join(out, 'b', 'none')], { measures: KEYS, iterations: 50 });
      for (const k of KEYS) {
        expect([k, cmp.rows[0]!.means[k], cmp.rows[1]!.means[k]]).toEqual([k, plain['a']!.means[k], plain['b']!.means[k]]);
        expect(cmp.rows[1]!.vsBaseline![k]!.delta).toBe(plain['b']!.means[k]! - plain['a']!.means[k]!);
      }
    });

    it('compare (command, JSON): every row mean = plain evaluator', async () => {
      const r = await runCli(['compare', join(out, 'a', 'none'), join(out, 'b', 'none'), '--format', 'json', '--measures', KEYS.join(','), '--iterations', '50']);
      expect(r.code, r.err).toBe(0);
      const doc = JSON.parse(r.out) as { runs: { label: string; means: Record<string, number>; vsBaseline?: Record<string, { delta: number }> }[] };
      expect(doc.runs.map((row) => row.label)).toEqual(['a/none', 'b/none']);
      for (const [i, name] of ['a', 'b'].entries()) {
        for (const k of KEYS) expect([name, k, doc.runs[i]!.means[k]]).toEqual([name, k, plain[name]!.means[k]]);
      }
      for (const k of KEYS) expect([k, doc.runs[1]!.vsBaseline![k]!.delta]).toEqual([k, plain['b']!.means[k]! - plain['a']!.means[k]!]);
    });
  });
});

if (!fullsizeExists) console.log(`fullsize-differential: ${FULLSIZE_DIR} absent; the real-text full-size check skips (CI=true fails in shared-reference.test.ts)`);

describe.runIf(fullsizeExists)('the shared full-size split (6,006 real SKILL.md texts, 4,392 queries): BM25 run scored three ways', () => {
  let data: string;
  let out: string;
  beforeAll(async () => {
    data = join(root, 'synth-fullsize');
    for (const f of ['skills', 'queries', 'qrels']) {
      mkdirSync(join(data, f), { recursive: true });
      writeFileSync(join(data, f, 'test.jsonl'), execFileSync('xz', ['-dc', join(FULLSIZE_DIR, `${f}.test.jsonl.xz`)], { maxBuffer: 1 << 30 }));
    }
    out = join(root, 'synth-results');
    const config = join(root, 'synth.yaml');
    writeFileSync(
      config,
      ['name: synth-bm25', `dataset: { path: ${JSON.stringify(data)}, split: test }`, 'k: [5, 10, 15]', 'retrievers:', '  - { id: bm25, type: bm25, top_k: 20 }', 'rerankers:', '  - { id: none }', `output: ${JSON.stringify(out)}`].join('\n') + '\n',
    );
    const r = await runCli(['run', config, '--no-cache', '--quiet']);
    expect(r.code, r.err).toBe(0);
  });

  it('score (run.trec vs the qrels JSONL) = plain evaluator = the experiment per-query.jsonl, bit for bit', async () => {
    const qrels: PlainQrels = new Map();
    for (const l of readFileSync(join(data, 'qrels', 'test.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(l) as { query_id: string; skill_id: string; relevance: number };
      if (!qrels.has(r.query_id)) qrels.set(r.query_id, new Map());
      qrels.get(r.query_id)!.set(r.skill_id, r.relevance);
    }
    const runTrec = join(out, 'bm25', 'none', 'run.trec');
    const p = plainEvaluate(qrels, plainReadTrecRun(runTrec), KS);
    expect(p.perQuery.size).toBe(FULL_QUERIES);
    for (const q of [join(data, 'qrels', 'test.jsonl'), data]) {
      const s = await score(q, runTrec);
      expectSame(s.per_query, s.means, p);
    }
    expectSame(perQueryFile(join(out, 'bm25', 'none', 'per-query.jsonl')), p.means, p);
  });
});
