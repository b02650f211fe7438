/**
 * Hit@k, Recall@50/100, NDCG@50/100, P@50 and Judged@k of a BM25 run on the shared SkillRet sample
 * (100 deep, from test/fixtures/trec_eval/sample-bm25.yaml, which also exercises a config's
 * `measures:` in trec_eval and ir_measures spellings) against trec_eval 10.0's per-query output of
 * the same run (`success.1,5,10`, `recall.50,100`, `ndcg_cut.50,100`, `P.50`, `unj.5,10,50`; written by
 * scripts/make-trec-eval-sample.mjs with trec_eval printing %.17g, see the fixture README):
 * equal bit for bit, per query and overall. Judged@k is not in trec_eval; its `unj@k` (unjudged in the
 * top k / k) gives it back: judged count = min(k, n) − unj@k·k on the sample (no negative grade).
 * Skips without ../shared (CI fails then: test/shared-reference.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aggregate } from '../src/metrics/evaluate.js';
import { cleanupTemp, makeTempDir } from './fixtures/data/make-dataset.js';
import { runCli } from './helpers/cli.js';
import { SAMPLE_DIR, sampleExists } from './helpers/shared.js';
import { parseTrecEval } from './helpers/trec-eval-output.js';

afterAll(() => cleanupTemp());

const DIR = join(import.meta.dirname, 'fixtures', 'trec_eval');
const meta = JSON.parse(readFileSync(join(DIR, 'sample-bm25.json'), 'utf8')) as { trec_eval: string; flags: string; run_sha256: string };


const OURS: Record<string, string> = { success: 'Hit', recall: 'Recall', ndcg_cut: 'NDCG', P: 'Precision' };

describe.skipIf(!sampleExists)(`trec_eval (${meta.trec_eval}) on a BM25 run of the shared sample`, () => {
  it('Hit@k = success_k, Recall@50 = recall_50, …, and Judged@k from unj_k, per query and overall', async () => {
    const tmp = makeTempDir('skr-te-sample-');
    const config = join(tmp, 'c.yaml');
    writeFileSync(
      config,
      `${readFileSync(join(DIR, 'sample-bm25.yaml'), 'utf8')}dataset: { path: ${JSON.stringify(SAMPLE_DIR)}, split: test }\noutput: ${JSON.stringify(join(tmp, 'out'))}\ncache_dir: ${JSON.stringify(join(tmp, 'cache'))}\n`,
    );
    const r = await runCli(['run', config, '--offline', '-q', '--no-history']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const runDir = join(tmp, 'out', 'bm25', 'none');
    const runText = readFileSync(join(runDir, 'run.trec'));
    expect(createHash('sha256').update(runText).digest('hex'), 'not the run trec_eval scored: rerun scripts/make-trec-eval-sample.mjs').toBe(meta.run_sha256);
    const depth = new Map<string, number>();
    for (const line of runText.toString('utf8').split('\n')) if (line !== '') depth.set(line.split(' ')[0]!, (depth.get(line.split(' ')[0]!) ?? 0) + 1);

    const rows = readFileSync(join(runDir, 'per-query.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; metrics: Record<string, number> });
    const perQuery = new Map(rows.map((x) => [x.id, x.metrics]));
    const metricsJson = JSON.parse(readFileSync(join(runDir, 'metrics.json'), 'utf8')) as { metrics: Record<string, number> };
    const ref = parseTrecEval(readFileSync(join(DIR, 'sample-bm25.trec_eval.txt'), 'utf8'));
    expect([...perQuery.keys()].sort()).toEqual([...ref.get('success_1')!.keys()].filter((q) => q !== 'all').sort());

    let compared = 0;
    for (const [name, byQ] of ref) {
      const [, base, k] = /^(\w+?)_(\d+)$/.exec(name)!;
      if (base === 'unj') {
        const key = `Judged@${k}`;
        for (const [qid, unj] of byQ) {
          if (qid === 'all') continue;
          const n = Math.min(Number(k), depth.get(qid) ?? 0);
          const judgedCount = n - unj * Number(k);
          expect(Math.abs(perQuery.get(qid)![key]! * n - judgedCount), `${key} ${qid}`).toBeLessThan(1e-9);
          compared++;
        }
        continue;
      }
      const key = `${OURS[base!]!}@${k}`;
      const all = aggregate(perQuery, [key])[key];
      for (const [qid, want] of byQ) {
        const got = qid === 'all' ? all : perQuery.get(qid)?.[key];
        expect(got, `${key} ${qid}: ours ${got} trec_eval ${want}`).toBe(want);
        compared++;
      }
      expect(metricsJson.metrics[key]).toBeCloseTo(all!, 5);
    }
    // 30 queries × (3 success + 2 recall + 2 ndcg_cut + 1 P + 3 unj) + 8 "all" lines: nothing skipped.
    expect(compared).toBe(30 * 11 + 8);
    // The summary table keeps its columns; the extra measures are in metrics.json only.
    expect(Object.keys(metricsJson.metrics).slice(-11)).toEqual(['Hit@1', 'Hit@5', 'Hit@10', 'Recall@50', 'Recall@100', 'NDCG@50', 'NDCG@100', 'Precision@50', 'Judged@5', 'Judged@10', 'Judged@50']);
  });
});
