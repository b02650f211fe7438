/**
 * The real binary (bin/skillret-eval.js, compiled dist/) spawned with each command's flags, so the
 * CLI's own parsing is exercised: cutoff lists (`--k`), list options (`--measures`, `--keys`),
 * integer options (`--seed`, `--iterations`), choices (`--format`, `--split`), switches
 * (`--dry-run`, `--no-cache`, `--offline`, `-q`, `--cache-dir`) and unknown options — each bad
 * value one line on stderr and exit code 2, each good one taking effect.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(__dirname, '..');
const BIN = join(REPO, 'bin', 'skillret-eval.js');
const MINI = join(REPO, 'data', 'mini');
let root: string;
let runDir: string;

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, SKILLRET_OFFLINE: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function bad(args: string[], message: RegExp): void {
  const r = cli(...args);
  expect(r.code, r.err).toBe(2);
  expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
  expect(r.err).toMatch(message);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-cli-flags-'));
  writeFileSync(
    join(root, 'c.yaml'),
    `name: flags\ndataset: { path: ${JSON.stringify(MINI)}, split: test }\nretrievers:\n  - { id: bm25, type: bm25, top_k: 15 }\n  - { id: bm25b, type: bm25, top_k: 15, k1: 0.9 }\nrerankers: [{ id: none }]\noutput: ${JSON.stringify(join(root, 'out'))}\n`,
  );
  const r = cli('run', join(root, 'c.yaml'), '-q', '--cache-dir', join(root, 'cache'));
  expect(r.code, r.err).toBe(0);
  expect(r.err).toBe(''); // -q: nothing on stderr
  runDir = join(root, 'out');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('run', () => {
  it('--cache-dir is used, --dry-run prints the plan and writes nothing, --no-cache touches no cache', () => {
    expect(existsSync(join(root, 'cache', 'bm25'))).toBe(true);
    const plan = cli('run', join(root, 'c.yaml'), '--dry-run', '--no-cache');
    expect(plan.code).toBe(0);
    expect(plan.out).toContain('experiment: flags');
    const nc = join(root, 'nocache-dir');
    const r = cli('run', join(root, 'c.yaml'), '-q', '--no-cache', '--cache-dir', nc, '--offline');
    expect(r.code, r.err).toBe(0);
    expect(existsSync(nc)).toBe(false);
    // Without -q, a --cache-dir that --no-cache makes moot is said.
    const said = cli('run', join(root, 'c.yaml'), '--no-cache', '--cache-dir', nc, '--offline');
    expect(said.code, said.err).toBe(0);
    expect(said.err).toContain(`note: --cache-dir ${nc} is not used: --no-cache reads and writes no cache`);
    bad(['run', join(root, 'c.yaml'), '--cache-dir', ''], /^skillret-eval: --cache-dir: empty path/);
    bad(['run', join(root, 'c.yaml'), '--no-such-flag'], /unknown option '--no-such-flag'/);
    bad(['run'], /missing required argument 'config'/);
  });
});

describe('score', () => {
  const qrels = join(MINI, 'qrels', 'test.jsonl');
  it('--k takes a sorted, de-duplicated list; --format json; --measures a list of names', () => {
    const run = join(runDir, 'bm25', 'none', 'run.trec');
    const j = cli('score', '--qrels', qrels, '--run', run, '--k', '10,3,3', '--format', 'json');
    expect(j.code, j.err).toBe(0);
    expect(Object.keys((JSON.parse(j.out) as { metrics: Record<string, number> }).metrics)).toEqual(expect.arrayContaining(['NDCG@3', 'NDCG@10']));
    expect(Object.keys((JSON.parse(j.out) as { metrics: Record<string, number> }).metrics).filter((k) => k.startsWith('NDCG@'))).toEqual(['NDCG@3', 'NDCG@10']);
    const m = cli('score', '--qrels', qrels, '--run', run, '--measures', 'NDCG@10, P_5', '--format', 'json');
    expect(m.code, m.err).toBe(0);
    expect(Object.keys((JSON.parse(m.out) as { metrics: Record<string, number> }).metrics).length).toBe(2);
    const t = cli('score', '--qrels', MINI, '--split', 'test', '--run', run);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain('NDCG@10');
  });
  it('refuses bad cutoffs, formats and missing required options in one line', () => {
    const run = join(runDir, 'bm25', 'none', 'run.trec');
    bad(['score', '--qrels', qrels, '--run', run, '--k', '5,x'], /--k: expected comma-separated positive integers like 5,10,15, got "5,x"/);
    bad(['score', '--qrels', qrels, '--run', run, '--k', '0'], /--k: expected comma-separated positive integers/);
    bad(['score', '--qrels', qrels, '--run', run, '--format', 'xml'], /argument 'xml' is invalid. Allowed choices are table, json/);
    bad(['score', '--run', run], /required option '--qrels <path>' not specified/);
  });
});

describe('compare', () => {
  it('--seed, --iterations and --keys take effect; bad integers are refused', () => {
    const a = join(runDir, 'bm25', 'none');
    const b = join(runDir, 'bm25b', 'none');
    const j = cli('compare', a, b, '--format', 'json', '--seed', '7', '--iterations', '500', '--keys', 'NDCG@10,Recall@10');
    expect(j.code, j.err).toBe(0);
    const o = JSON.parse(j.out) as { settings: Record<string, unknown> };
    expect(o.settings).toMatchObject({ seed: 7, iterations: 500, keys: ['NDCG@10', 'Recall@10'] });
    expect(JSON.stringify(o)).toContain('Recall@10');
    expect(JSON.stringify(o)).not.toContain('MAP@10');
    bad(['compare', a, b, '--iterations', 'many'], /--iterations: expected a non-negative integer, got "many"/);
    bad(['compare', a, b, '--iterations', '0'], /--iterations: expected an integer from 1 to 1000000, got 0/);
    bad(['compare', a, b, '--seed', '-1'], /--seed/);
    bad(['compare', a, b, '--keys', 'NDCG@10,NDCG@10'], /--keys: "NDCG@10" given twice/);
  });

  it('every option goes through, --keys as --measures', () => {
    const a = join(runDir, 'bm25', 'none');
    const b = join(runDir, 'bm25b', 'none');
    const keys = cli('compare', a, b, '--format', 'csv', '--keys', 'MRR@10', '--correction', 'none', '--common-queries');
    expect(keys.code, keys.err).toBe(0);
    expect(keys.out).toContain('MRR@10');
    expect(keys.out).not.toContain('NDCG@10');
    const measures = cli('compare', a, b, '--format', 'csv', '--measures', 'MRR@10', '--correction', 'none', '--common-queries');
    expect(measures.out).toBe(keys.out);
    const out = join(root, 'cmp.md');
    const written = cli('compare', a, b, '--format', 'md', '--out', out);
    expect(written.code, written.err).toBe(0);
    expect(written.out).toMatch(/^wrote .*cmp\.md \(2 runs, \d+ queries\)/);
    expect(readFileSync(out, 'utf8')).toContain('NDCG@10');
  });
});

describe('paper, models, data', () => {
  it('paper --split/--table/--format; models list --format; data fetch --offline', () => {
    const p = cli('paper', '--split', 'v1.1', '--table', 'v1.1-embedding', '--format', 'json');
    expect(p.code, p.err).toBe(0);
    expect((JSON.parse(p.out) as { tables: { id: string }[] }).tables.map((t) => t.id)).toEqual(['v1.1-embedding']);
    bad(['paper', '--split', 'v2'], /argument 'v2' is invalid/);
    const m = cli('models', 'list', '--format', 'json');
    expect(m.code, m.err).toBe(0);
    expect(JSON.parse(m.out)).toBeTypeOf('object');
    const d = cli('data', 'fetch', '--offline', '--cache-dir', join(root, 'dcache'));
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/missing and offline: fill the folder/);
    bad(['data', 'fetch', '--version', 'v9'], /argument 'v9' is invalid/);
    bad(['data', 'fetch', '--repo', 'a/b'], /--revision: missing/);
    expect(readFileSync(join(runDir, 'manifest.json'), 'utf8')).toContain('"offline"');
  });
});
