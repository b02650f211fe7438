/**
 * Published paper numbers: the typed tables and lookups, the `paper` command, the pinned-release
 * match (on a stand-in release built from a temp dataset's own hashes) and the "Published results"
 * section of summary.md / `paper` block of metrics.json, matched and not matched.
 */
import { describe, expect, it, beforeAll, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../src/cli.js';
import { paperCommand } from '../src/commands/paper.js';
import type { SkillretRelease } from '../src/data/hub.js';
import { SKILLRET_RELEASES } from '../src/data/hub.js';
import { paperReport } from '../src/paper/published-vs-measured.js';
import { matchPinnedRelease } from '../src/paper/release-match.js';
import { findPaperRow, findPaperRows, paperResultsPath, parsePaperResults, publishedMetrics, paperTables } from '../src/paper/results.js';
import { parseConfig } from '../src/pipeline/config.js';
import type { ExperimentResult } from '../src/pipeline/experiment.js';
import { metricsJson, writeResults } from '../src/report/results-folder.js';
import { renderTerminalSummary } from '../src/report/systems/run-leaderboard.js';
import { analyze } from '../src/analysis/report.js';
import { renderSummary } from '../src/report/summary.js';
import { renderPaperSection } from '../src/report/published-section.js';
import { SHARED_DIR } from './helpers/shared.js';
import { runOn, writeTwoMajors } from './helpers/two-majors.js';

const root = resolve(__dirname, '..');
const sharedJson = join(SHARED_DIR, 'docs/paper-results.json');

describe('published tables (src/paper/results.ts)', () => {
  it('finds first-stage rows by paper name, hub id or review id, per split, never by substring', () => {
    const bm25 = findPaperRow('v1.1', 'BM25')!;
    expect(bm25.table.id).toBe('v1.1-embedding');
    expect(bm25.row.values['NDCG@10']).toBe(51.69);
    expect(findPaperRow('v1.0', 'bm25')!.row.values['NDCG@10']).toBe(48.86);
    expect(findPaperRow('v1.0', 'BM25')!.table.id).toBe('v1.0-embedding'); // Table 3 before the golden dict
    expect(findPaperRow('v1.1', 'BAAI/bge-small-en-v1.5')!.row.values['NDCG@10']).toBe(54.51);
    expect(findPaperRow('v1.1', 'anonymous-ed-benchmark/SKILLRET-Embedding-8B')!.row.model).toBe('SkillRet-Embedding-8B');
    expect(findPaperRow('v1.1', 'bge-small')).toBeUndefined();
    expect(findPaperRow('v1.1', 'pipizhao/SkillRouter-Embedding-0.6B')).toBeUndefined(); // not in the v1.1 table
    expect(findPaperRow('v1.0', 'pipizhao/SkillRouter-Embedding-0.6B')!.row.values['NDCG@10']).toBe(70.38);
  });

  it('finds rerank rows over the same first stage, and their values at the right depth', () => {
    const t4 = findPaperRow('v1.0', 'ThakiCloud/SKILLRET-Embedding-0.6B', 'Qwen/Qwen3-Reranker-0.6B')!;
    expect(t4.table.id).toBe('v1.0-rerank-skillret-embedding-0.6b');
    expect(publishedMetrics(t4, 20)['NDCG@10']).toBe(75.81);
    expect(publishedMetrics(t4, 10)).toEqual({}); // Table 4 is depth 20 only
    const t10 = findPaperRow('v1.0', 'Snowflake/snowflake-arctic-embed-s', 'Qwen/Qwen3-Reranker-0.6B')!;
    expect(t10.table.id).toBe('v1.0-rerank-depth');
    expect(publishedMetrics(t10, 20)).toEqual({ 'NDCG@10': 61.9 });
    expect(publishedMetrics(t10, 10)).toEqual({ 'NDCG@10': 58.5 });
    expect(publishedMetrics(t10, 30)).toEqual({});
    expect(findPaperRows('v1.1', 'Snowflake/snowflake-arctic-embed-s', 'Qwen/Qwen3-Reranker-0.6B')).toEqual([]);
    const v11 = findPaperRow('v1.1', 'SkillRet-Embedding-8B', 'ThakiCloud/SKILLRET-Reranker-0.6B')!;
    expect(publishedMetrics(v11, 20)).toEqual({ 'NDCG@5': 86.1, 'NDCG@10': 87.74, 'Recall@10': 93.57, 'Completeness@10': 88.96 });
    // A first-stage row gives only metric columns.
    expect(Object.keys(publishedMetrics(findPaperRow('v1.1', 'BM25')!))).toEqual(['NDCG@5', 'NDCG@10', 'Recall@10', 'Completeness@10']);
  });

  it('keeps every table id, split and column of the published file', () => {
    const ids = paperTables().map((t) => `${t.split} ${t.id}`);
    expect(ids).toContain('v1.1 v1.1-embedding');
    expect(ids).toContain('v1.0 v1.0-per-major-ndcg10');
    expect(paperTables('v1.1').every((t) => t.split === 'v1.1')).toBe(true);
    expect(paperTables('v1.1').map((t) => t.id)).toEqual(['v1.1-embedding', 'v1.1-rerank-skillret-embedding-8b']);
  });

  it('refuses a malformed file with the table and field named', () => {
    const good = JSON.parse(readFileSync(paperResultsPath(), 'utf8'));
    const bad = structuredClone(good);
    bad.tables[0].rows[0].values['NDCG@99'] = 1;
    expect(() => parsePaperResults(bad)).toThrow(/v1\.0-embedding, row BM25: value for NDCG@99, which is not a column/);
    const bad2 = structuredClone(good);
    bad2.tables[1].split = 'v2';
    expect(() => parsePaperResults(bad2)).toThrow(/tables\.1\.split/);
  });

  describe.skipIf(!existsSync(sharedJson))('is the shared paper-results.json byte for byte', () => {
    if (!existsSync(sharedJson)) console.log(`skipped: ${sharedJson} is absent`);
    it('same bytes', () => {
      expect(readFileSync(paperResultsPath()).equals(readFileSync(sharedJson))).toBe(true);
    });
  });
});

describe('skillret-eval paper', () => {
  it('prints the v1.1 tables with BM25 NDCG@10 51.69, and lists every table id', async () => {
    const text = await paperCommand({ split: 'v1.1' });
    const bm25 = text.split('\n').find((l) => l.startsWith('BM25 '))!;
    expect(bm25.trim().split(/\s+/)).toEqual(['BM25', '49.31', '51.69', '59.41', '44.56']);
    expect(text).toMatch(/^Model +NDCG@5 +NDCG@10 +Recall@10 +Completeness@10$/m);
    expect(text).toContain('  v1.1-rerank-skillret-embedding-8b  v1.1  ');
    expect(text).not.toContain('v1.0-embedding');
    const all = await paperCommand({});
    for (const t of paperTables()) expect(all).toContain(`  ${t.id} `);
  });

  it('keeps each column at its published decimals (49.90, Table 6 one decimal)', async () => {
    const t3 = await paperCommand({ table: 'v1.0-embedding' });
    expect(t3.split('\n').find((l) => l.startsWith('BM25 '))!.trim().split(/\s+/).slice(1, 4)).toEqual(['46.47', '48.86', '49.90']);
    const t6 = await paperCommand({ table: 'v1.0-per-major-ndcg10' });
    expect(t6).toMatch(/^Qwen3-Embedding-0\.6B +25\.1 +28\.3 +38\.1 +40\.0 +58\.3 +69\.0 +58\.3$/m);
  });

  it('json: the stored tables, percent', async () => {
    const doc = JSON.parse(await paperCommand({ table: 'v1.1-embedding', format: 'json' }));
    expect(doc.units).toBe('percent');
    expect(doc.tables).toHaveLength(1);
    expect(doc.tables[0].rows[0]).toMatchObject({ model: 'BM25', values: { 'NDCG@10': 51.69 } });
  });

  it('one-line errors: unknown table (with a suggestion), a table of the other split, a bad split', async () => {
    await expect(paperCommand({ table: 'v1.1-embeding' })).rejects.toThrow('--table: no published table "v1.1-embeding" (did you mean "v1.1-embedding"?');
    await expect(paperCommand({ table: 'v1.0-embedding', split: 'v1.1' })).rejects.toThrow('"v1.0-embedding" is a v1.0 table, not v1.1');
    await expect(paperCommand({ split: 'v2' })).rejects.toThrow('--split: expected one of v1.1, v1.0, got "v2"');
  });

  it('is wired into the CLI', async () => {
    let out = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['paper', '--split', 'v1.1', '--table', 'v1.1-embedding', '--format', 'json'], (s) => void (out += s))).toBe(0);
      expect(JSON.parse(out).tables[0].id).toBe('v1.1-embedding');
      expect(await main(['paper', '--table', 'nope'], () => {})).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('pinned-release match', () => {
  const rel = (version: string, skills: string, queries: string, qrels: string): SkillretRelease => ({
    version,
    repo: 'example/SKILLRET',
    revision: '0'.repeat(40),
    files: { test: { skills, queries, qrels } },
    bytes: { test: { skills: 1, queries: 1, qrels: 1 } },
  });
  const releases = [rel('v1.1', 'aa', 'bb', 'cc'), rel('v1.0', 'dd', 'ee', 'ff')];

  it('needs skills and queries of one release, and its qrels when a qrels file is there', () => {
    const f = (skills: string, queries: string, qrels?: string) => [
      { role: 'skills' as const, sha256: skills },
      { role: 'queries' as const, sha256: queries },
      ...(qrels ? [{ role: 'qrels' as const, sha256: qrels }] : []),
    ];
    expect(matchPinnedRelease(f('aa', 'bb', 'cc'), releases)?.release.version).toBe('v1.1');
    expect(matchPinnedRelease(f('DD', 'ee', 'ff'), releases)).toMatchObject({ split: 'test', release: { version: 'v1.0' } });
    expect(matchPinnedRelease(f('aa', 'bb'), releases)?.release.version).toBe('v1.1'); // gold from the queries
    expect(matchPinnedRelease(f('aa', 'bb', 'ff'), releases)).toBeUndefined(); // other qrels
    expect(matchPinnedRelease(f('aa', 'ee', 'cc'), releases)).toBeUndefined(); // mixed versions
    expect(matchPinnedRelease([{ role: 'qrels', sha256: 'cc' }], releases)).toBeUndefined();
    expect(matchPinnedRelease(f('aa', 'bb', 'cc'))).toBeUndefined(); // default: the real pins
  });
});

describe('summary.md and metrics.json against the paper', () => {
  let res: ExperimentResult;
  let fake11: SkillretRelease;
  let fake10: SkillretRelease;

  beforeAll(async () => {
    const dir = writeTwoMajors();
    res = await runOn(dir);
    const sha = Object.fromEntries(res.dataset.files.map((f) => [f.role, f.sha256])) as Record<'skills' | 'queries' | 'qrels', string>;
    const bytes = Object.fromEntries(res.dataset.files.map((f) => [f.role, f.bytes])) as Record<'skills' | 'queries' | 'qrels', number>;
    const base = SKILLRET_RELEASES[0]!;
    fake11 = { ...base, files: { test: sha }, bytes: { test: bytes } };
    fake10 = { ...SKILLRET_RELEASES[1]!, files: { test: sha }, bytes: { test: bytes } };
  });

  it('a pinned release: BM25 against the v1.1 row, Δ by hand', () => {
    // BM25 here: NDCG@5 = NDCG@10 = 3.6131471927654584 / 5 → 72.26; Recall@10 3.5/5 → 70.00; Completeness@10 3/5 → 60.00.
    const md = renderSummary(analyze(res, { releases: [fake11] }));
    expect(md).toContain('## Published results (paper, v1.1)');
    expect(md).toContain('ThakiCloud/SKILLRET@a050ad233a50');
    expect(md).toContain('| Run | Published row (table) |  | NDCG@5 | NDCG@10 | Recall@10 | Completeness@10 |');
    expect(md).toContain('| bm25 / none | BM25 (v1.1-embedding) | yours | 72.26 | 72.26 | 70.00 | 60.00 |');
    expect(md).toContain('|  |  | paper | 49.31 | 51.69 | 59.41 | 44.56 |');
    expect(md).toContain('|  |  | Δ | +22.95 | +20.57 | +10.59 | +15.44 |');
    expect(md).toContain('|  |  | verdict | FAIL | FAIL | FAIL | FAIL |');
    expect(md).toContain('Verdict: **FAIL** over 1 reproduced run (OK: \\|Δ\\| ≤ 0.05 points after the official rounding; close: ≤ 1; FAIL: beyond; `report.ok_within`, `report.close_within`).');
    expect(md).not.toContain('not comparable');
    expect(md).not.toContain('Setup differs');

    const m = metricsJson(analyze(res, { releases: [fake11] }), res.runs[0]!);
    expect(m.paper).toEqual({
      release: 'v1.1',
      repo: 'ThakiCloud/SKILLRET',
      revision: 'a050ad233a504a43135bafe8cdf45574052b5729',
      table: 'v1.1-embedding',
      row: 'BM25',
      units: 'percent',
      published: { 'NDCG@5': 49.31, 'NDCG@10': 51.69, 'Recall@10': 59.41, 'Completeness@10': 44.56 },
      delta: { 'NDCG@5': 22.95, 'NDCG@10': 20.57, 'Recall@10': 10.59, 'Completeness@10': 15.44 },
      verdict: { 'NDCG@5': 'FAIL', 'NDCG@10': 'FAIL', 'Recall@10': 'FAIL', 'Completeness@10': 'FAIL' },
      overall_verdict: 'FAIL',
      tolerances: { ok_within: 0.05, close_within: 1, rule: 'OK: |Δ| ≤ 0.05 points after the official rounding; close: ≤ 1; FAIL: beyond' },
      deviations: [],
    });
    // Deterministic: same object, same key order.
    expect(JSON.stringify(metricsJson(analyze(res, { releases: [fake11] }), res.runs[0]!))).toBe(JSON.stringify(m));
  });

  it('the terminal summary carries the paper verdict line on a pinned release, none otherwise', () => {
    const files = { summary: 'out/summary.md', html: 'out/report.html' };
    const t = renderTerminalSummary(analyze(res, { releases: [fake11] }), files);
    expect(t).toContain('Paper (v1.1): verdict FAIL over 1 reproduced run (OK: |Δ| ≤ 0.05 points after the official rounding; close: ≤ 1; FAIL: beyond).');
    expect(renderTerminalSummary(analyze(res), files)).not.toContain('Paper');
  });

  it('verdict tolerances come from report.ok_within / report.close_within', () => {
    // Δ NDCG@10 = +20.57, Recall@10 = +10.59: close within 21 points, OK within 21 too when ok_within is 21.
    const loose = { ...res, config: { ...res.config, report: { ...res.config.report, ok_within: 15, close_within: 21 } } };
    const m = metricsJson(analyze(loose, { releases: [fake11] }), res.runs[0]!) as { paper: { verdict: Record<string, string>; overall_verdict: string } };
    expect(m.paper.verdict).toEqual({ 'NDCG@5': 'FAIL', 'NDCG@10': 'close', 'Recall@10': 'OK', 'Completeness@10': 'close' });
    expect(m.paper.overall_verdict).toBe('FAIL');
    expect(renderSummary(analyze(loose, { releases: [fake11] }))).toContain('|  |  | verdict | FAIL | close | OK | close |');
  });

  it('a v1.0 release compares with the v1.0 table (all nine columns), never with v1.1', () => {
    const md = renderSummary(analyze(res, { releases: [fake10] }));
    expect(md).toContain('## Published results (paper, v1.0)');
    expect(md).toContain('| bm25 / none | BM25 (v1.0-embedding) | yours | 72.26 | 72.26 | 72.26 | 70.00 | 70.00 | 70.00 | 60.00 | 60.00 | 60.00 |');
    expect(md).toContain('|  |  | paper | 46.47 | 48.86 | 49.90 | 50.09 | 56.55 | 59.95 | 34.96 | 41.09 | 44.27 |');
    expect(md).toContain('|  |  | Δ | +25.79 | +23.40 | +22.36 | +19.91 | +13.45 | +10.05 | +25.04 | +18.91 | +15.73 |');
    expect(md).not.toContain('51.69');
  });

  it('not a pinned release: one line, no paper block', () => {
    const md = renderSummary(analyze(res));
    const lines = md.split('\n').filter((l) => /published|paper numbers|verdict/i.test(l));
    expect(lines).toEqual(['Published paper numbers: not comparable, the dataset files are not a pinned SkillRet release (v1.1, v1.0 test split).']);
    expect(metricsJson(analyze(res), res.runs[0]!)).not.toHaveProperty('paper');
  });

  it('data/mini through the CLI is not a release: the line in summary.md, no paper block in metrics.json', async () => {
    const out = mkdtempSync(join(tmpdir(), 'paper-mini-'));
    try {
      const mini = await runOn(join(root, 'data/mini'), { output: out });
      writeResults(analyze(mini), { startedAt: 'x', finishedAt: 'y', cacheDir: out, useCache: false, offline: true, totalSeconds: 0 });
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('Published paper numbers: not comparable');
      expect(JSON.parse(readFileSync(join(out, 'bm25/none/metrics.json'), 'utf8'))).not.toHaveProperty('paper');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('dense presets and rerankers: which runs are compared, against which row, with which deviations', () => {
    const config = parseConfig(
      `name: t
dataset: { path: /nowhere, split: test }
retrievers:
  - { id: bm25, type: bm25, k1: 1.2 }
  - { id: arctic, type: dense, model: snowflake-arctic-embed-s }
  - { id: e5, type: dense, model: intfloat/e5-small-v2, query_prefix: "", max_tokens: 256, index: { type: hnsw } }
  - { id: glove, type: dense, model: glove-6b-100d-static }
rerankers:
  - { id: none }
  - { id: q06, type: qwen3, model: Qwen/Qwen3-Reranker-0.6B }
  - { id: q06k10, type: qwen3, model: qwen3-reranker-0.6b, depth: 10, score_precision: fp32 }
  - { id: q8, type: qwen3, model: qwen3-reranker-8b, depth: [10, 20] }
  - { id: q8o, type: qwen3, model: qwen3-reranker-8b, depth: 20, oracle: true }
output: /nowhere/out
`,
      '/nowhere/exp.yaml',
    );
    const agg = { 'NDCG@5': 0.5, 'NDCG@10': 0.619, 'NDCG@15': 0.5, 'Recall@5': 0.5, 'Recall@10': 0.5, 'Recall@15': 0.5, 'Completeness@5': 0.5, 'Completeness@10': 0.5, 'Completeness@15': 0.5 };
    // No per-query values and no labelled skills: the per-category pairing (Tables 6 and 16) has nothing to cut.
    const runs = config.retrievers.flatMap((r) => config.rerankers.map((rr) => ({ retriever: r.id, reranker: rr.id, evaluation: { aggregate: agg, perQuery: new Map() } })));
    const files = [
      { role: 'skills', sha256: 'aa' },
      { role: 'queries', sha256: 'bb' },
    ];
    const fake = { ...SKILLRET_RELEASES[1]!, files: { test: { skills: 'aa', queries: 'bb', qrels: 'cc' } } };
    const r = { config, dataset: { files, stats: { droppedGoldPairs: 0 }, queries: [], qrels: new Map(), skills: [] }, runs } as unknown as ExperimentResult;
    const report = paperReport(r, [fake])!;
    const brief = report.runs.map((c) => [`${c.retriever}/${c.reranker}`, c.table, c.row, c.firstStage ?? '', c.metrics.find((m) => m.metric === 'NDCG@10')!.published, c.deviations.join('; ')]);
    expect(brief).toEqual([
      ['bm25/none', 'v1.0-embedding', 'BM25', '', 48.86, 'k1 1.2 (paper 1.5)'],
      ['arctic/none', 'v1.0-embedding', 'snowflake-arctic-embed-s', '', 52.99, ''],
      ['arctic/q06', 'v1.0-rerank-depth', 'Qwen3-Reranker-0.6B', 'snowflake-arctic-embed-s', 61.9, ''],
      ['arctic/q06k10', 'v1.0-rerank-depth', 'Qwen3-Reranker-0.6B', 'snowflake-arctic-embed-s', 58.5, 'score precision fp32 (official fp16: ties and order differ)'],
      // a depth list pairs each depth with its Table 10 column; the oracle run has no published row
      ['arctic/q8-k10', 'v1.0-rerank-depth', 'Qwen3-Reranker-8B', 'snowflake-arctic-embed-s', 58, ''],
      ['arctic/q8-k20', 'v1.0-rerank-depth', 'Qwen3-Reranker-8B', 'snowflake-arctic-embed-s', 61.3, ''],
      ['e5/none', 'v1.0-embedding', 'e5-small-v2', '', 41.82, 'query prefix differs from the protocol; max_tokens 256 (protocol 512); HNSW index (the paper searches exactly)'],
    ]);
    const q06 = report.runs[2]!;
    expect(q06.metrics).toEqual([{ metric: 'NDCG@10', yours: 0.619, published: 61.9, decimals: 2, delta: 0, verdict: 'OK' }]);
    expect(report.runs[3]!.metrics).toEqual([{ metric: 'NDCG@10', yours: 0.619, published: 58.5, decimals: 1, delta: 3.4, verdict: 'FAIL' }]);
    expect(report.runs[0]!.metrics.find((m) => m.metric === 'NDCG@10')!.delta).toBe(13.04); // 61.90 − 48.86
    const md = renderPaperSection(report, Object.keys(agg), [fake]);
    // Published values keep their column's decimals: Table 10's k=20 column has 2, its k=10 column 1.
    expect(md).toContain('| arctic / q06 | Qwen3-Reranker-0.6B over snowflake-arctic-embed-s top 20 (v1.0-rerank-depth) | yours | – | 61.90 |');
    expect(md).toContain('| arctic / q06k10 | Qwen3-Reranker-0.6B over snowflake-arctic-embed-s top 10 (v1.0-rerank-depth) | yours | – | 61.90 |');
    expect(md).toMatch(/\| arctic \/ q06k10 \|[^\n]*\n\|  \|  \| paper \| – \| 58\.5 \| – \|/);
    expect(md).toContain('Setup differs from the paper\'s: bm25 / none: k1 1.2 (paper 1.5). arctic / q06k10: score precision fp32 (official fp16: ties and order differ). e5 / none: query prefix differs');
  });
});
