/**
 * Paper Tables 6 and 16 paired with a run's per-category results, the group-size check against
 * Table 16's n_queries, Table 11's Name+Desc pairing and the stored-fraction (golden dict) pairing,
 * on datasets made here whose file hashes stand in for the pinned v1.0 release.
 *
 * The category dataset: one skill per Table 16 sub-category (labels = the published names, each
 * with a word of its own, `w00` … `w17`), and queries that BM25 either finds at rank 1 (the word of
 * their gold skill: every metric 1) or misses entirely ("zebra quokka": every metric 0):
 * - 100 two-gold queries, gold [Development, Infrastructure & DevOps] (both words: both found,
 *   NDCG 1), primary Development;
 * - single-gold queries filling every sub-category to Table 16's n_queries under each_gold (so
 *   Infrastructure & DevOps gets 934 − 100 = 834 of them, Development 1,664), 7,827 queries in all.
 *   Found: every Development, Infrastructure & DevOps, Security and Analysis & Testing query, 227 of
 *   424 Documentation, 223 of 524 Agent Development, 38 of 104 Agent Evaluation; the rest missed.
 * By hand (hits / queries, official rounding):
 * - Agent Evaluation: 38/104 = 0.365384… → 36.54; Table 16 NDCG@10 36.5 → Δ +0.04 OK; Recall@10 45.2 → −8.66 FAIL.
 * - AI Agents (Table 6): (223 + 38 + 0)/(524 + 104 + 293) = 261/921 = 0.283387… → 28.34; 28.3 → +0.04 OK.
 * - Overall: (100 + 1664 + 834 + 314 + 1063 + 227 + 223 + 38)/7827 = 4463/7827 … see the test.
 * - Information Retrieval: 0 → 0.00; 25.1 → −25.10 FAIL.
 * Group sizes: each_gold gives every n_queries (match); primary_gold puts the two-gold queries in
 * Development only: Infrastructure & DevOps 834 ≠ 934 (mismatch).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SKILLRET_RELEASES, type SkillretRelease } from '../src/data/hub.js';
import { analyze } from '../src/analysis/report.js';
import { parseConfig } from '../src/pipeline/config.js';
import type { ExperimentResult } from '../src/pipeline/experiment.js';
import { findPaperTable, findPaperRows, columnDecimals } from '../src/paper/results.js';
import { metricsJson } from '../src/report/results-folder.js';
import { renderSummary } from '../src/report/summary.js';
import { runOn, writeTwoMajors } from './helpers/two-majors.js';

const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const t16 = findPaperTable('v1.0-per-sub-category')!;
const subs = t16.sub_categories!;

/** Hits per sub-category (single-gold queries found); the rest of its single-gold queries are missed. */
const HITS: Record<string, number | 'all'> = {
  Development: 'all',
  'Infrastructure & DevOps': 'all',
  Security: 'all',
  'Analysis & Testing': 'all',
  Documentation: 227,
  'Agent Development': 223,
  'Agent Evaluation': 38,
};
const LINKED = 100;

function writeCategoryDataset(): string {
  const dir = mkdtempSync(join(tmpdir(), 'categories-'));
  for (const d of ['skills', 'queries', 'qrels']) mkdirSync(join(dir, d));
  const word = (i: number) => `w${String(i).padStart(2, '0')}`;
  const skillOf = new Map(subs.map((s, i) => [s.sub, { id: `s-${word(i)}`, word: word(i) }]));
  writeFileSync(
    join(dir, 'skills/test.jsonl'),
    jsonl(subs.map((s, i) => ({ id: `s-${word(i)}`, name: `skill ${word(i)}`, description: word(i), skill_md: word(i), major: s.major, sub: s.sub }))),
  );
  const queries: { id: string; query: string; skill_ids: string[] }[] = [];
  const id = () => `q-${String(queries.length + 1).padStart(5, '0')}`;
  const dev = skillOf.get('Development')!;
  const infra = skillOf.get('Infrastructure & DevOps')!;
  for (let i = 0; i < LINKED; i++) queries.push({ id: id(), query: `${dev.word} ${infra.word}`, skill_ids: [dev.id, infra.id] });
  for (const s of subs) {
    const k = skillOf.get(s.sub)!;
    const n = s.n_queries - (s.sub === 'Development' || s.sub === 'Infrastructure & DevOps' ? LINKED : 0);
    const h = HITS[s.sub] === 'all' ? n : ((HITS[s.sub] as number | undefined) ?? 0);
    for (let i = 0; i < n; i++) queries.push({ id: id(), query: i < h ? k.word : 'zebra quokka', skill_ids: [k.id] });
  }
  writeFileSync(join(dir, 'queries/test.jsonl'), jsonl(queries));
  writeFileSync(join(dir, 'qrels/test.jsonl'), jsonl(queries.flatMap((q) => q.skill_ids.map((s) => ({ query_id: q.id, skill_id: s, relevance: 1 })))));
  return dir;
}

/** A release whose pinned hashes are the dataset's own (version v1.0). */
function fakeV10(res: ExperimentResult): SkillretRelease {
  const sha = Object.fromEntries(res.dataset.files.map((f) => [f.role, f.sha256])) as Record<'skills' | 'queries' | 'qrels', string>;
  const bytes = Object.fromEntries(res.dataset.files.map((f) => [f.role, f.bytes])) as Record<'skills' | 'queries' | 'qrels', number>;
  return { ...SKILLRET_RELEASES[1]!, files: { test: sha }, bytes: { test: bytes } };
}

/** The same run presented as a run of a paper embedder (its per-query values are BM25's, worked out above). */
function asModel(res: ExperimentResult, model: string, rule?: 'each_gold' | 'primary_gold'): ExperimentResult {
  const c = parseConfig(
    `name: t
dataset: { path: /nowhere, split: test }
retrievers:
  - { id: bm25, type: dense, model: ${model} }
rerankers:
  - { id: none }
output: /nowhere/out
`,
    '/nowhere/exp.yaml',
  );
  return { ...res, config: { ...res.config, retrievers: c.retrievers, report: { ...res.config.report, ...(rule ? { category_rule: rule } : {}) } } };
}

describe('Tables 6 and 16 paired with the per-category results (stand-in v1.0 release)', () => {
  let res: ExperimentResult;
  let fake: SkillretRelease;
  beforeAll(async () => {
    res = await runOn(writeCategoryDataset());
    fake = fakeV10(res);
  });

  it('the published per-category cells have one decimal', () => {
    for (const id of ['v1.0-per-major-ndcg10', 'v1.0-per-sub-category']) {
      const t = findPaperTable(id)!;
      for (const col of t.columns) expect(columnDecimals(t, col), `${id} ${col}`).toBe(1);
    }
    expect(subs.reduce((a, s) => a + s.n_queries, 0)).toBe(7927);
  });

  it('each cell: yours, published (1 decimal), Δ by hand and the verdict, in summary.md and metrics.json', () => {
    const report = analyze(asModel(res, 'Qwen3-Embedding-0.6B'), { releases: [fake] });
    const cats = report.paper!.categories!;
    expect(cats.rule).toBe('each_gold');
    expect(cats.runs.map((r) => [r.retriever, r.table, r.row, r.slice])).toEqual([
      ['bm25', 'v1.0-per-major-ndcg10', 'Qwen3-Embedding-0.6B', 'major'],
      ['bm25', 'v1.0-per-sub-category', 'Qwen3-Embedding-0.6B', 'sub'],
    ]);
    const [t6, t16run] = cats.runs as [typeof cats.runs[0], typeof cats.runs[0]];
    const cell = (r: typeof t6, col: string) => r.cells.find((c) => c.column === col)!;
    expect(cell(t16run, 'NDCG@10 Agent Evaluation')).toMatchObject({ queries: 104, published: 36.5, decimals: 1, delta: 0.04, verdict: 'OK' });
    expect(cell(t16run, 'NDCG@10 Agent Evaluation').yours).toBeCloseTo(38 / 104, 12);
    expect(cell(t16run, 'Recall@10 Agent Evaluation')).toMatchObject({ queries: 104, published: 45.2, delta: -8.66, verdict: 'FAIL' });
    expect(cell(t16run, 'NDCG@10 Infrastructure & DevOps')).toMatchObject({ queries: 934, published: 58.8, delta: 41.2, verdict: 'FAIL' });
    expect(cell(t6, 'AI Agents')).toMatchObject({ queries: 921, published: 28.3, delta: 0.04, verdict: 'OK' });
    expect(cell(t6, 'Information Retrieval')).toMatchObject({ queries: 267, yours: 0, published: 25.1, delta: -25.1, verdict: 'FAIL' });
    // Overall = the run's mean over every query: 4,463 found of 7,827.
    const found = LINKED + 1664 + 834 + 314 + 1063 + 227 + 223 + 38;
    expect(cell(t6, 'Overall').queries).toBe(7827);
    expect(cell(t6, 'Overall').yours).toBeCloseTo(found / 7827, 12);
    expect(t6.cells.map((c) => c.column)).toEqual(findPaperTable('v1.0-per-major-ndcg10')!.columns);
    expect(t16run.cells).toHaveLength(36);

    const md = renderSummary(report);
    expect(md).toContain('### Per category (paper Tables 6 and 16)');
    expect(md).toContain("Group sizes against v1.0-per-sub-category's n_queries (18 sub-categories, 7,927 memberships): **match** under `each_gold`: every sub-category has its published n_queries (7,927 memberships over 7,827 evaluated queries). Under `primary_gold`: mismatch (7,827).");
    expect(md).toContain('bm25 / none: Qwen3-Embedding-0.6B (v1.0-per-sub-category, by sub), verdict **FAIL**.');
    expect(md).toContain('| NDCG@10 Agent Evaluation | 104 | 36.54 | 36.5 | +0.04 | OK |');
    expect(md).toContain('| Recall@10 Agent Evaluation | 104 | 36.54 | 45.2 | -8.66 | FAIL |');
    expect(md).toContain('| AI Agents | 921 | 28.34 | 28.3 | +0.04 | OK |');
    expect(md).toContain('| Content Creation | 575 | 0.00 | 40.0 | -40.00 | FAIL |');

    const m = metricsJson(report, res.runs[0]!) as { paper: { categories: { rule: string; group_sizes: unknown[]; tables: { table: string; published: Record<string, number>; delta: Record<string, number>; verdict: Record<string, string>; queries: Record<string, number> }[] } } };
    expect(m.paper.categories.rule).toBe('each_gold');
    expect(m.paper.categories.group_sizes).toEqual([{ table: 'v1.0-per-sub-category', rule: 'each_gold', match: true, published_total: 7927, total: 7927 }]);
    const j16 = m.paper.categories.tables.find((t) => t.table === 'v1.0-per-sub-category')!;
    expect([j16.published['NDCG@10 Agent Evaluation'], j16.delta['NDCG@10 Agent Evaluation'], j16.verdict['NDCG@10 Agent Evaluation'], j16.queries['NDCG@10 Agent Evaluation']]).toEqual([36.5, 0.04, 'OK', 104]);
  });

  it('primary_gold: the group sizes do not match Table 16 and the summary says which differ', () => {
    const report = analyze(asModel(res, 'SkillRet-Embedding-8B', 'primary_gold'), { releases: [fake] });
    const s = report.paper!.categories!.sizes[0]!;
    expect(s.match).toEqual({ each_gold: true, primary_gold: false });
    expect(s.rows.filter((r) => r.yours.primary_gold !== r.published).map((r) => [r.sub, r.published, r.yours.primary_gold])).toEqual([['Infrastructure & DevOps', 934, 834]]);
    const md = renderSummary(report);
    expect(md).toContain('**mismatch** under `primary_gold`: 7,827 memberships over 7,827 evaluated queries. Under `each_gold`: match.');
    expect(md).toContain('| Software Engineering | Infrastructure &amp; DevOps | 934 | 834 | 934 |');
    // The cells follow the report's rule: Infrastructure & DevOps now has its 834 single-gold queries only.
    expect(report.paper!.categories!.runs[1]!.cells.find((c) => c.column === 'NDCG@10 Infrastructure & DevOps')!.queries).toBe(834);
  });

  it('a model without a Table 6/16 row gets no cells but the group-size check; not a pinned release: nothing', () => {
    const report = analyze(res, { releases: [fake] }); // BM25
    expect(report.paper!.categories!.runs).toEqual([]);
    expect(renderSummary(report)).toContain('No run here is a model of Tables 6 and 16');
    expect(metricsJson(report, res.runs[0]!)).not.toHaveProperty('paper.categories');
    const plain = analyze(asModel(res, 'Qwen3-Embedding-0.6B'));
    expect(plain.paper).toBeUndefined();
    expect(renderSummary(plain)).not.toContain('Per category (paper');
  });
});

describe('Table 11 (name | description) and the stored-fraction rows (stand-in v1.0 release)', () => {
  let res: ExperimentResult;
  let fake: SkillretRelease;
  beforeAll(async () => {
    res = await runOn(writeTwoMajors());
    fake = fakeV10(res);
  });

  it('a name + description run of a Table 11 model pairs with its Name+Desc column, not Table 3', () => {
    expect(findPaperRows('v1.0', 'snowflake-arctic-embed-s', undefined, { fields: ['name', 'description'], separator: ' | ' })[0]).toMatchObject({ table: { id: 'v1.0-document-fields' }, column: 'Name+Desc' });
    expect(findPaperRows('v1.0', 'snowflake-arctic-embed-s', undefined, { fields: ['name', 'description'], separator: ' - ' })[0]!.table.id).toBe('v1.0-embedding');
    expect(findPaperRows('v1.0', 'snowflake-arctic-embed-s', undefined, { fields: ['name', 'description', 'skill_md'], separator: ' | ' })[0]!.table.id).toBe('v1.0-embedding');
    const arctic = asModel(res, 'snowflake-arctic-embed-s');
    const nd = { ...arctic, config: { ...arctic.config, dataset: { ...arctic.config.dataset, text: { fields: ['name', 'description'] as ('name' | 'description')[], separator: ' | ' } } } };
    const report = analyze(nd, { releases: [fake] });
    // BM25's NDCG@10 on two-majors: 3.6131471927654584 / 5 → 72.26; Table 11 Name+Desc 51.5 → Δ +20.76.
    expect(report.paper!.runs.map((c) => [c.table, c.row, c.column, c.metrics.map((m) => [m.metric, m.published, m.decimals, m.delta, m.verdict])])).toEqual([
      ['v1.0-document-fields', 'snowflake-arctic-embed-s', 'Name+Desc', [['NDCG@10', 51.5, 1, 20.76, 'FAIL']]],
    ]);
    expect(report.paper!.categories!.runs).toEqual([]); // a Table 11 run is not a Table 6/16 run
    const md = renderSummary(report);
    expect(md).toContain('| bm25 / none | snowflake-arctic-embed-s, Name+Desc (v1.0-document-fields) | yours | 72.26 |');
    expect(md).toMatch(/\|  \|  \| paper \| 51\.5 \|/);
    const m = metricsJson(report, res.runs[0]!) as { paper: Record<string, unknown> };
    expect(m.paper).toMatchObject({ table: 'v1.0-document-fields', row: 'snowflake-arctic-embed-s', column: 'Name+Desc', published: { 'NDCG@10': 51.5 } });
  });

  it('BM25 on v1.0 is also paired with the golden dict at its stored 5-decimal fractions', () => {
    const report = analyze(res, { releases: [fake] });
    const g = report.paper!.golden!;
    expect(g.map((x) => [x.table, x.row, x.cells.length, x.exact])).toEqual([['v1.0-bm25-full-metric-dict', 'BM25', 15, 0]]);
    // NDCG@5 = 3.6131471927654584 / 5 = 0.722629… → 0.72263; published 0.46474 → Δ (72263 − 46474) / 1000 = 25.789 points.
    expect(g[0]!.cells[0]).toMatchObject({ metric: 'NDCG@5', yours: 0.72263, published: 0.46474, delta: 25.789, exact: false, verdict: 'FAIL' });
    // Precision@10 = 4 relevant in the five top 10s / 50 = 0.08; published 0.08639 → −0.639 points: close.
    expect(g[0]!.cells.find((c) => c.metric === 'Precision@10')).toMatchObject({ yours: 0.08, delta: -0.639, verdict: 'close' });
    const md = renderSummary(report);
    expect(md).toContain('### Stored fractions (v1.0-bm25-full-metric-dict)');
    expect(md).toContain('|  | paper | 46.474 | 48.864 | 49.897 | 40.687 | 41.815 | 42.169 | 50.087 | 56.551 | 59.946 | 15.129 | 8.639 | 6.142 | 34.961 | 41.085 | 44.267 |');
    expect(md).toContain('BM25: 0 of 15 stored fractions equal to the published ones; verdict **FAIL**');
    const m = metricsJson(report, res.runs[0]!) as { paper: { table: string; stored_fractions: { table: string; exact: string; delta: Record<string, number> }[] } };
    expect(m.paper.table).toBe('v1.0-embedding'); // the per-run pairing stays Table 3
    expect(m.paper.stored_fractions.map((x) => [x.table, x.exact, x.delta['NDCG@5']])).toEqual([['v1.0-bm25-full-metric-dict', '0/15', 25.789]]);
    // v1.1 has no stored-fraction row and no per-category table: nothing added.
    const v11 = analyze(res, { releases: [{ ...fake, version: 'v1.1' }] });
    expect(v11.paper!.golden).toBeUndefined();
    expect(v11.paper!.categories).toBeUndefined();
  });
});
