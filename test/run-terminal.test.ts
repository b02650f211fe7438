/**
 * What `run` prints: by default the leaderboard of the report value (one row per run, the main
 * metrics with their marks, Δ and W/T/L against the baseline, the on/off Δ of reranked runs) and the
 * paths of summary.md and report.html; with -v every section of the summary, for the terminal. Never
 * Markdown markup or HTML entities, and untrusted text escaped (data/mini has `Data & ML`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'run-terminal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** BM25 with and without the GloVe MaxSim scorer on data/mini, output and cache in the temp folder. */
function config(): string {
  const f = join(dir, 'exp.yaml');
  writeFileSync(
    f,
    [
      'name: terminal',
      `dataset: { path: ${join(root, 'data/mini')}, split: test }`,
      'retrievers:',
      '  - { id: bm25, type: bm25, top_k: 20 }',
      'rerankers:',
      '  - { id: none }',
      '  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 20 }',
      'stats: { seed: 7, iterations: 500 }',
      `output: ${join(dir, 'out')}`,
      `cache_dir: ${join(dir, 'cache')}`,
    ].join('\n') + '\n',
  );
  return f;
}

const MARKUP = [/\*\*/, /&amp;|&lt;|&gt;/, /^\|/m, /^#+ /m, /`/];

describe('run on the terminal', () => {
  let plain: string;
  let verbose: string;
  beforeAll(async () => {
    const f = config();
    const r = await runCli(['run', f, '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    plain = r.out;
    const v = await runCli(['run', f, '--offline', '-q', '-v']);
    expect(v.code).toBe(0);
    verbose = v.out;
  }, 180_000);

  it('prints the leaderboard: one row per run with its on/off Δ, then where the files are', () => {
    const lines = plain.split('\n');
    expect(lines[0]).toBe('terminal: 2 runs, 21 queries, 45 skills (split test); ×100, 2 decimals');
    expect(lines[2]).toMatch(/^Run\s+NDCG@10\s+Recall@10\s+Completeness@10\s+Δ NDCG@10\s+W\/T\/L\s+on\/off Δ NDCG@10$/);
    expect(lines[3]).toMatch(/^bm25\/none \(baseline\)\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\d\d\s+–\s+–\s+–$/);
    expect(lines[4]).toMatch(/^bm25\/maxsim\s+\d+\.\d\d\*?\s+\d+\.\d\d\*?\s+\d+\.\d\d\*?\s+[+-]\d+\.\d\d\*?\s+\d+\/\d+\/\d+\s+[+-]\d+\.\d\d\*?$/);
    // The on/off Δ of the reranked run is its Δ against bm25/none here (the same first stage).
    const cols = lines[4]!.trim().split(/\s+/);
    expect(cols.at(-1)!.replace('*', '')).toBe(cols.at(-3)!.replace('*', ''));
    expect(plain).toContain('*: differs from bm25/none at α = 0.05 (paired randomisation test, 500 iterations, seed 7; Holm over 1 run).');
    expect(plain).toContain(`Summary: ${join(dir, 'out', 'summary.md')}`);
    expect(plain).toContain(`Report:  ${join(dir, 'out', 'report.html')}`);
    expect(lines.length).toBeLessThan(16);
    for (const re of MARKUP) expect(plain).not.toMatch(re);
  });

  it('-v prints every section of summary.md for the terminal: no Markdown markup, no HTML entities', () => {
    const md = readFileSync(join(dir, 'out', 'summary.md'), 'utf8');
    expect(md).toContain('Data &amp; ML');
    expect(md).toContain('## Reranker on/off');
    for (const title of ['Results', 'Reranker on/off', 'Operating points for skill injection', 'Cost']) {
      expect(md).toContain(`## ${title}`);
      expect(verbose).toContain(`${title}\n${'-'.repeat([...title].length)}`);
    }
    expect(verbose).toContain('Data & ML (2)');
    expect(verbose).toMatch(/^bm25\s+maxsim\s+NDCG@10\s+\d+\.\d\d\s+\d+\.\d\d/m);
    for (const re of MARKUP) expect(verbose).not.toMatch(re);
    // And it ends with the leaderboard.
    expect(verbose.endsWith(plain)).toBe(true);
  });
});
