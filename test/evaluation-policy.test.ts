/**
 * `evaluation: trec_eval | official` on a crafted dataset: the two policies differ exactly in the
 * gold source (qrels vs the queries' skill_ids), queries without gold (skipped vs scored 0) and gold
 * outside the corpus (refused/dropped vs kept); both score all-non-positive queries 0 like trec_eval
 * 10.0. Plus `skill_filter` (ids file or field predicate) with gold outside the subset.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTemp, makeDataset, makeTempDir } from './fixtures/data/make-dataset.js';
import { loadDataset } from '../src/data/dataset.js';
import { readSkillIdsFile } from '../src/data/skill-filter.js';
import { evaluate } from '../src/metrics/evaluate.js';
import type { Run } from '../src/core/types.js';
import { UserError } from '../src/core/errors.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runCli } from './helpers/cli.js';
import { SAMPLE_DIR, sampleExists } from './helpers/shared.js';
import { formatPercent } from '../src/metrics/official-percent.js';

afterAll(() => cleanupTemp());

const S = (id: string, major: string) => ({ id, name: `n-${id}`, description: `d-${id}`, skill_md: `md-${id}`, major });
const dir = makeDataset({
  skills: [S('s1', 'A'), S('s2', 'A'), S('s3', 'B'), S('s4', 'B')],
  queries: [
    { id: 'q1', query: 'one', skill_ids: ['s1'] },
    { id: 'q2', query: 'two' }, // no gold anywhere
    { id: 'q3', query: 'three', skill_ids: ['s2'] }, // qrels: only a grade-0 judgement
    { id: 'q4', query: 'four', skill_ids: ['s1', 'ghost'] }, // a gold id that is not in the corpus
  ],
  qrels: [
    { query_id: 'q1', skill_id: 's1', relevance: 1 },
    { query_id: 'q3', skill_id: 's3', relevance: 0 },
    { query_id: 'q4', skill_id: 's1', relevance: 1 },
  ],
});
const run: Run = new Map([
  ['q1', [{ docId: 's1', score: 1 }]],
  ['q2', [{ docId: 's2', score: 1 }]],
  ['q3', [{ docId: 's2', score: 1 }]],
  ['q4', [{ docId: 's1', score: 1 }]],
]);
const recall = async (o: Parameters<typeof loadDataset>[0]) => {
  const ds = await loadDataset(o);
  const ev = evaluate(ds.qrels, run, [{ name: 'Recall', k: 5 }]);
  return { ds, ev, perQuery: Object.fromEntries([...ev.perQuery].map(([q, v]) => [q, v['Recall@5']])) };
};

describe('evaluation policy', () => {
  it('trec_eval: qrels gold, unjudged query skipped, all-zero query scored 0', async () => {
    const { ds, ev, perQuery } = await recall({ path: dir, split: 'test' });
    expect(ds.goldSource).toBe('qrels');
    expect(perQuery).toEqual({ q1: 1, q3: 0, q4: 1 });
    expect(ev.aggregate['Recall@5']).toBe(2 / 3);
    expect(ds.stats.queriesWithoutGold).toEqual(['q2']);
    expect(ds.stats.goldDisagreement).toEqual(['q3', 'q4']); // qrels vs skill_ids
  });

  it('official: skill_ids gold, every query counted, unknown gold kept in the denominator', async () => {
    const { ds, ev, perQuery } = await recall({ path: dir, split: 'test', evaluation: 'official' });
    expect(ds.goldSource).toBe('queries');
    expect(ds.queries.map((q) => q.id)).toEqual(['q1', 'q2', 'q3', 'q4']);
    expect(perQuery).toEqual({ q1: 1, q2: 0, q3: 1, q4: 0.5 });
    expect(ev.aggregate['Recall@5']).toBe(2.5 / 4);
    expect(ds.stats.unknownGoldKept).toBe(1);
  });

  it('the policy defaults can be overridden one by one', async () => {
    // trec_eval denominators on the skill_ids gold: ghost is refused (unknown_gold error) …
    await expect(loadDataset({ path: dir, split: 'test', gold: 'skill_ids' })).rejects.toThrow(/skill_ids\[1\]: skill "ghost" \(gold for query "q4"\) is not in the skill corpus/);
    // … or dropped, and q2 (no gold) is still skipped.
    const { perQuery } = await recall({ path: dir, split: 'test', gold: 'skill_ids', unknownGold: 'drop' });
    expect(perQuery).toEqual({ q1: 1, q3: 1, q4: 1 });
    // official denominators on the qrels gold.
    const o = await recall({ path: dir, split: 'test', evaluation: 'official', gold: 'qrels' });
    expect(o.perQuery).toEqual({ q1: 1, q2: 0, q3: 0, q4: 1 });
  });
});

describe('skill_filter', () => {
  it('a field predicate restricts the corpus; gold outside it follows unknown_gold', async () => {
    const f = { kind: 'field' as const, field: 'major' as const, values: ['B'] };
    await expect(loadDataset({ path: dir, split: 'test', skillFilter: f })).rejects.toThrow(/skill "s1" \(gold for query "q1"\) is not in the skill corpus/);
    // Dropping it leaves no relevant judgement in this subset at all: refused, not a run of zeros.
    await expect(loadDataset({ path: dir, split: 'test', skillFilter: f, unknownGold: 'drop' })).rejects.toThrow(/no query has a relevant judgement/);
    const o = await loadDataset({ path: dir, split: 'test', skillFilter: f, evaluation: 'official' });
    expect(o.skills.map((s) => s.id)).toEqual(['s3', 's4']);
    expect(o.stats.skillsFilteredOut).toBe(2);
    expect(o.stats.unknownGoldKept).toBe(4); // s1 (q1), s2 (q3), s1 + ghost (q4)
    const a = await loadDataset({ path: dir, split: 'test', skillFilter: { kind: 'field', field: 'major', values: ['A', 'B'] } });
    expect(a.skills).toHaveLength(4);
  });

  it('an ids file (one per line, # comments) restricts the corpus; unknown ids and empty files are refused', async () => {
    const tmp = makeTempDir();
    const file = join(tmp, 'ids.txt');
    writeFileSync(file, '# subset\ns1\n\ns3\n');
    const d = await loadDataset({ path: dir, split: 'test', skillFilter: readSkillIdsFile(file) });
    expect(d.skills.map((s) => s.id)).toEqual(['s1', 's3']);
    writeFileSync(file, 's1\nnope\n');
    await expect(loadDataset({ path: dir, split: 'test', skillFilter: readSkillIdsFile(file) })).rejects.toThrow(/ids\.txt: 1 id not in the corpus, e\.g\. "nope"/);
    writeFileSync(file, '# nothing\n');
    expect(() => readSkillIdsFile(file)).toThrow(UserError);
  });
});

describe('evaluation policy in a run', () => {
  const run = async (dataset: string, datasetExtra: string, top: string) => {
    const tmp = makeTempDir('skr-policy-');
    const f = join(tmp, 'c.yaml');
    writeFileSync(f, `name: p\ndataset: { path: ${dataset}, split: test${datasetExtra} }\n${top}retrievers:\n  - { id: bm25, type: bm25 }\noutput: ${join(tmp, 'out')}\ncache_dir: ${join(tmp, 'cache')}\n`);
    const r = await runCli(['run', f, '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    return { metrics: JSON.parse(readFileSync(join(tmp, 'out', 'bm25', 'none', 'metrics.json'), 'utf8')), summary: readFileSync(join(tmp, 'out', 'summary.md'), 'utf8') };
  };

  it('official with the qrels gold on data/mini: the same numbers (every query has gold), the policy recorded', async () => {
    const mini = resolve(import.meta.dirname, '..', 'data', 'mini');
    const a = await run(mini, '', '');
    const b = await run(mini, ', gold: qrels', 'evaluation: official\n');
    expect(a.metrics.evaluation).toEqual({ policy: 'trec_eval', gold: 'qrels' });
    expect(b.metrics.evaluation).toEqual({ policy: 'official', gold: 'qrels' });
    expect(b.metrics.metrics).toEqual(a.metrics.metrics);
    expect(b.summary).toContain('Evaluation policy official');
  }, 60_000);

  it.skipIf(!sampleExists)('official on the shared sample (gold from skill_ids) equals trec_eval (qrels): they agree there', async () => {
    const a = await run(SAMPLE_DIR, '', '');
    const b = await run(SAMPLE_DIR, '', 'evaluation: official\n');
    expect(b.metrics.evaluation).toEqual({ policy: 'official', gold: 'query records (labels / skill_ids)' });
    expect(b.metrics.metrics).toEqual(a.metrics.metrics);
    expect(a.metrics.counts.qrels_skill_ids_disagreements).toBeUndefined();
    expect(formatPercent(a.metrics.metrics['NDCG@10'])).toBe('75.08');
  }, 60_000);
});
