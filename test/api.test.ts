/**
 * The library API (src/index.ts, the package entry point): the verbs return what the CLI prints and
 * writes, and bad input throws the same one-line UserError the CLI prints (without its prefix).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compare,
  initProject,
  isUserError,
  loadConfig,
  planExperiment,
  runExperiment,
  scoreRun,
  UserError,
  type ExperimentReport,
} from '../src/index.js';
import { runCli } from './helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'skillret-api-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The CLI's stderr line for `args`, without the `skillret-eval: ` prefix (asserting exit code 2). */
async function cliError(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code).toBe(2);
  return r.err.trim().replace(/^skillret-eval: /, '');
}

/** The message of the UserError `f` throws. */
async function apiError(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    expect(isUserError(e)).toBe(true);
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('library API', () => {
  let config: string;
  let report: ExperimentReport;
  beforeAll(async () => {
    config = initProject({ dir: join(tmp, 'exp') }).config;
    report = await runExperiment(loadConfig(config));
  }, 120_000);

  it('runExperiment returns the values of the results folder it wrote', () => {
    expect(report.name).toBe('starter');
    expect(report.output).toBe(join(tmp, 'exp', 'results', 'starter'));
    expect(report.summary).toBe(readFileSync(join(report.output, 'summary.md'), 'utf8'));
    expect(report.runs.map((r) => `${r.retriever}/${r.reranker}`)).toEqual(['bm25/none', 'dense/none']);
    for (const r of report.runs) {
      expect(r.folder).toBe(join(report.output, r.retriever, r.reranker));
      const m = JSON.parse(readFileSync(join(r.folder, 'metrics.json'), 'utf8')) as { queries: number; metrics: Record<string, number> };
      expect(r.metrics).toEqual(m.metrics);
      expect(r.queries).toBe(m.queries);
      const perQuery = readFileSync(join(r.folder, 'per-query.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; metrics: Record<string, number> });
      expect(perQuery.map((q) => [q.id, q.metrics])).toEqual([...r.perQuery]);
    }
  });

  it('planExperiment is the --dry-run text', async () => {
    const cli = await runCli(['run', config, '--dry-run']);
    expect(planExperiment(config)).toBe(cli.out);
  });

  it('scoreRun scores the written run.trec to the run metrics, like `score --format json`', async () => {
    const bm25 = report.runs[0]!;
    const s = await scoreRun({ qrels: join(tmp, 'exp', 'data', 'mini'), run: join(bm25.folder, 'run.trec'), measures: ['NDCG@10', 'Recall@10'] });
    expect(s.metrics).toEqual({ 'NDCG@10': bm25.metrics['NDCG@10'], 'Recall@10': bm25.metrics['Recall@10'] });
    const cli = JSON.parse((await runCli(['score', '--qrels', join(tmp, 'exp', 'data', 'mini'), '--run', join(bm25.folder, 'run.trec'), '--format', 'json'])).out) as {
      queries: number;
      metrics: Record<string, number>;
    };
    const all = await scoreRun({ qrels: join(tmp, 'exp', 'data', 'mini'), run: join(bm25.folder, 'run.trec') });
    expect(all.metrics).toEqual(cli.metrics);
    expect(all.queries).toBe(cli.queries);
  });

  it('compare is the comparison `compare --format json` prints', async () => {
    const [a, b] = report.runs;
    const c = await compare([a!.folder, b!.folder], { seed: 3, iterations: 500 });
    expect(c.rows[0]!.file).toBe(join(a!.folder, 'per-query.jsonl'));
    const cli = JSON.parse((await runCli(['compare', a!.folder, b!.folder, '--format', 'json', '--seed', '3', '--iterations', '500'])).out) as { queries: number; settings: { mainKey: string }; runs: { vsBaseline?: Record<string, unknown>; worst?: unknown }[] };
    expect(cli.queries).toBe(c.queries);
    expect(cli.settings.mainKey).toBe('NDCG@10');
    expect(cli.runs[1]!.vsBaseline).toEqual(c.rows[1]!.vsBaseline);
    expect(cli.runs[1]!.worst).toEqual(c.rows[1]!.worst);
    expect(c.rows[1]!.vsBaseline!['NDCG@10']!.delta).toBeCloseTo(b!.metrics['NDCG@10']! - a!.metrics['NDCG@10']!, 4);
  });

  it('bad input throws the lines the CLI prints', async () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, readFileSync(config, 'utf8').replace('top_k: 20 }', 'top_kk: 20 }'));
    // Beside the misspelt key, the copy's relative dataset path names no folder: `run` lists both
    // (planExperiment and runExperiment too); loadConfig checks the config alone (its one problem).
    const lines = (await cliError(['run', bad])).split('\n').map((l) => l.replace(/^skillret-eval: /, ''));
    expect(lines).toHaveLength(2);
    expect(await apiError(() => planExperiment(bad))).toBe(lines.join('\n'));
    expect(await apiError(() => runExperiment(bad))).toBe(lines.join('\n'));
    expect(await apiError(() => loadConfig(bad))).toBe(lines.find((l) => l.includes('top_kk')));
    const [a, b] = report.runs;
    expect(await apiError(() => compare([a!.folder, b!.folder], { seed: 2 ** 53 }))).toBe(await cliError(['compare', a!.folder, b!.folder, '--seed', String(2 ** 53)]));
    expect(await apiError(() => compare([a!.folder, b!.folder], { measures: ['NDCG@99'] }))).toBe(await cliError(['compare', a!.folder, b!.folder, '--measures', 'NDCG@99']));
    const run = join(a!.folder, 'run.trec');
    expect(await apiError(() => scoreRun({ qrels: join(tmp, 'nowhere'), run }))).toBe(await cliError(['score', '--qrels', join(tmp, 'nowhere'), '--run', run]));
    expect(await apiError(() => scoreRun({ qrels: run, run, measures: ['NDCG@x'] }))).toBe(await cliError(['score', '--qrels', run, '--run', run, '--measures', 'NDCG@x']));
    expect(await apiError(() => initProject({ dir: join(tmp, 'exp') }))).toBe(await cliError(['init', join(tmp, 'exp')]));
  });
});
