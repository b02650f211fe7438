/**
 * The results history and the leaderboard: `run` records every run (SQLite under the cache root),
 * `leaderboard` compares the latest of each over one dataset with the one comparison (the values
 * `compare` gives on the same folders), per-category means and the paper's rows; `--rebuild`
 * recreates the store from results folders with the same table; `history` lists and removes; bad
 * stores, ids and filters end in one line.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { historyFile } from '../src/history/store.js';

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'leaderboard-'));
const cache = join(dir, 'cache');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An experiment on data/mini: BM25 with (k1, b), optionally with the GloVe MaxSim scorer. */
function config(name: string, k1: number, rerank: boolean): string {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(
    f,
    [
      `name: ${name}`,
      `dataset: { path: ${join(root, 'data/mini')}, split: test }`,
      'retrievers:',
      `  - { id: bm25, type: bm25, top_k: 20, k1: ${k1} }`,
      ...(rerank ? ['rerankers:', '  - { id: none }', '  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 20 }'] : []),
      'stats: { seed: 3, iterations: 300 }',
      `output: ${join(dir, 'out', name)}`,
      `cache_dir: ${cache}`,
    ].join('\n') + '\n',
  );
  return f;
}

async function ok(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return r.out;
}

async function oneLine(args: string[], re: RegExp): Promise<void> {
  const r = await runCli(args);
  expect(r.code).toBe(2);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).toMatch(re);
}

const LB = ['leaderboard', '--cache-dir', cache, '--iterations', '300', '--seed', '3'];

describe('results history and leaderboard', () => {
  beforeAll(async () => {
    await ok(['run', config('alpha', 1.5, true), '--offline', '-q', '--tag', 'nightly']);
    await ok(['run', config('beta', 0.9, false), '--offline', '-q']);
    await ok(['run', config('gamma', 2.0, false), '--offline', '-q', '--tag', 'nightly']);
  }, 300_000);

  it('run records every run; history lists them with their tags', async () => {
    const out = await ok(['history', '--cache-dir', cache]);
    expect(out.split('\n')[0]).toBe(`4 runs in ${historyFile(cache)}:`);
    for (const l of ['alpha: bm25/none', 'alpha: bm25/maxsim', 'beta: bm25/none', 'gamma: bm25/none']) expect(out).toContain(l);
    expect(out).toMatch(/#1 .* alpha: bm25\/none\s+NDCG@10 \d+\.\d\d\s+nightly/);
    expect(out.split('\n')[1]).toMatch(/Run\s+Main metric\s+Tags/);
    const tagged = await ok(['history', '--cache-dir', cache, '--tag', 'nightly']);
    expect(tagged.split('\n')[0]).toMatch(/^3 runs in /);
    expect(await ok(['history', '--cache-dir', cache, '--experiment', 'beta', '--format', 'json'])).toContain('"experiment": "beta"');
  });

  it('the leaderboard is the one comparison of the runs: the values compare gives on the same folders', async () => {
    const lb = JSON.parse(await ok([...LB, '--format', 'json', '--baseline', 'beta: bm25/none']));
    const labels = lb.runs.map((r: { label: string }) => r.label);
    expect([...labels].sort()).toEqual(['alpha: bm25/maxsim', 'alpha: bm25/none', 'beta: bm25/none', 'gamma: bm25/none']);
    // Best first by NDCG@10.
    const ndcg = lb.runs.map((r: { means: Record<string, number> }) => r.means['NDCG@10']);
    expect(ndcg).toEqual([...ndcg].sort((a: number, b: number) => b - a));
    expect(lb.baseline).toBe('beta: bm25/none');
    const folders = labels.map((l: string) => {
      const [exp, run] = l.split(': ');
      return join(dir, 'out', exp!, run!);
    });
    const base = folders[labels.indexOf('beta: bm25/none')];
    const cmp = JSON.parse(await ok(['compare', base, ...folders.filter((f: string) => f !== base), '--format', 'json', '--iterations', '300', '--seed', '3']));
    for (const row of lb.runs as { label: string; means: Record<string, number>; vsBaseline?: Record<string, unknown> }[]) {
      const [exp, run] = row.label.split(': ');
      const twin = (cmp.runs as { label: string; means: Record<string, number>; vsBaseline?: Record<string, unknown> }[]).find((r) => r.label === `${exp}: ${run}` || r.label === run);
      expect(twin, row.label).toBeDefined();
      expect(row.means).toEqual(twin!.means);
      expect(row.vsBaseline).toEqual(twin!.vsBaseline);
    }
    expect(lb.entries.map((e: { categories: Record<string, number> }) => Object.keys(e.categories).length)).toEqual([6, 6, 6, 6]);
  });

  it('terminal, Markdown and HTML renderings; labels escaped; per-category columns', async () => {
    const text = await ok(LB);
    expect(text).toMatch(/^Leaderboard: 4 runs over dataset [0-9a-f]{12} /);
    expect(text).toContain('NDCG@10 by major category:');
    expect(text).toContain('Data & ML');
    expect(text).not.toContain('**');
    const md = join(dir, 'lb.md');
    expect(await ok([...LB, '--out', md])).toBe(`wrote ${md} (4 runs, 21 queries)\n`);
    expect(readFileSync(md, 'utf8')).toContain('Data &amp; ML');
    const html = join(dir, 'lb.html');
    await ok([...LB, '--out', html]);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain("Content-Security-Policy\" content=\"default-src 'none'");
    expect(page).toContain('Data &amp; ML');
    expect(page).not.toContain('<script');
  });

  it('a rerun is a new entry: the leaderboard takes the latest, --all shows both', async () => {
    await ok(['run', config('beta', 0.9, false), '--offline', '-q']);
    const latest = JSON.parse(await ok([...LB, '--format', 'json']));
    expect(latest.entries).toHaveLength(4);
    expect(latest.entries.find((e: { experiment: string }) => e.experiment === 'beta').id).toBe(5);
    const all = JSON.parse(await ok([...LB, '--format', 'json', '--all']));
    expect(all.entries).toHaveLength(5);
    expect(all.runs.map((r: { label: string }) => r.label)).toContain('beta: bm25/none #3');
    expect(await ok(['history', '--cache-dir', cache, '--remove', '#3'])).toBe('removed 1 entry: #3\n');
    await oneLine(['history', '--cache-dir', cache, '--remove', '99'], /history remove: no entry 99 in /);
    await oneLine(['history', '--cache-dir', cache, '--remove', 'x'], /--remove: expected entry ids/);
  });

  it('--rebuild recreates the store from results folders: the same table', async () => {
    const before = JSON.parse(await ok([...LB, '--format', 'json']));
    const rebuilt = JSON.parse(await ok([...LB, '--format', 'json', '--rebuild', ...['alpha', 'beta', 'gamma'].map((e) => join(dir, 'out', e))]).then((t) => t.slice(t.indexOf('{'))));
    // The same table from the folders (tags come back from the manifests); only the entry ids differ.
    const strip = (v: { runs: { file: string }[]; entries: { id: number }[] }) => ({ runs: v.runs.map(({ file: _f, ...r }) => r), entries: v.entries.map(({ id: _id, ...e }) => e) });
    expect(strip(rebuilt)).toEqual(strip(before));
  });

  it('the published rows of the paper beside runs that reproduce one', async () => {
    // A results folder whose run names a published row (as a pinned-release run's metrics.json does).
    const src = join(dir, 'out', 'gamma');
    const pinned = join(dir, 'pinned');
    cpSync(src, pinned, { recursive: true });
    const mj = join(pinned, 'bm25', 'none', 'metrics.json');
    const m = JSON.parse(readFileSync(mj, 'utf8'));
    m.paper = { release: 'v1.1', table: 'v1.1-embedding', row: 'BM25', units: 'percent' };
    writeFileSync(mj, JSON.stringify(m));
    const c2 = join(dir, 'cache2');
    const text = await ok(['leaderboard', '--cache-dir', c2, '--rebuild', pinned, '--iterations', '100']);
    expect(text).toContain('Published results (paper):');
    expect(text).toMatch(/BM25 ◀/);
    expect(text).toContain('v1.1-embedding');
  });

  it('run --no-history and --no-cache record nothing; bad stores and filters end in one line', async () => {
    const c3 = join(dir, 'cache3');
    const f = config('delta', 1.2, false).replace(/$/, '');
    writeFileSync(f, readFileSync(f, 'utf8').replace(`cache_dir: ${cache}`, `cache_dir: ${c3}`));
    await ok(['run', f, '--offline', '-q', '--no-history']);
    await ok(['run', f, '--offline', '-q', '--no-cache']);
    expect(await ok(['history', '--cache-dir', c3])).toBe(`no runs in ${historyFile(c3)} match\n`);
    await oneLine(['leaderboard', '--cache-dir', c3], /^skillret-eval: leaderboard: no run in .* matches/);
    await oneLine([...LB, '--since', 'yesterday'], /--since: expected a date/);
    await oneLine([...LB, '--baseline', 'nope'], /--baseline: no run on the leaderboard is "nope"/);
    // Two datasets: the leaderboard asks which.
    const other = join(dir, 'other-data');
    cpSync(join(root, 'data/mini'), other, { recursive: true });
    writeFileSync(join(other, 'queries', 'test.jsonl'), readFileSync(join(other, 'queries', 'test.jsonl'), 'utf8') + '\n');
    const g = join(dir, 'other.yaml');
    writeFileSync(g, readFileSync(config('epsilon', 1.5, false), 'utf8').replace(join(root, 'data/mini'), other));
    await ok(['run', g, '--offline', '-q']);
    await oneLine(LB, /--dataset: the matching runs are over 2 different datasets, choose one: /);
    // A damaged store, and one of another schema version.
    const bad = join(dir, 'cache4');
    mkdirSync(join(bad, 'history'), { recursive: true });
    writeFileSync(historyFile(bad), 'not sqlite');
    await oneLine(['leaderboard', '--cache-dir', bad], /results\.sqlite: not a results history/);
  });
});
