/**
 * The real CLI killed with SIGKILL (as `kill -9`) at each stage of a run — loading, indexing,
 * encoding, searching, reranking, writing the results, swapping them in — and run again: every
 * resumed run ends with results files identical to an uninterrupted run, nothing is left beside
 * the output folder, and a kill while writing leaves the previous results exactly as they were.
 * The kill points are deterministic (SKILLRET_FAULT_AT, src/util/fault.ts): no timing.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultsFiles } from '../helpers/results-files.js';

const REPO = resolve(__dirname, '..', '..');
const BIN = join(REPO, 'bin', 'skillret-eval.js');
const RESULT_FILES = new Set(['metrics.json', 'run.trec', 'per-query.jsonl', 'breakdown.json', 'operating-points.json']);

let root: string;
/** Results of uninterrupted runs of each config kind. */
const reference = new Map<Kind, Map<string, string>>();

/**
 * `models`: BM25 and a GloVe dense retriever (HNSW), each with and without the GloVe MaxSim
 * reranker (the stages that load models); `bm25`: BM25 alone (cheap: the other stages).
 */
type Kind = 'models' | 'bm25';

function config(output: string, kind: Kind): string {
  const file = join(root, `${basename(output)}.yaml`);
  const models = kind === 'models';
  writeFileSync(
    file,
    [
      'name: faults',
      `dataset: { path: ${JSON.stringify(join(REPO, 'data', 'mini'))}, split: test }`,
      'retrievers:',
      '  - { id: bm25, type: bm25, top_k: 10 }',
      ...(models ? ['  - { id: glove, type: dense, model: glove-6b-100d-static, index: { type: hnsw }, top_k: 10, batch_size: 8 }'] : []),
      'rerankers:',
      '  - { id: none }',
      ...(models ? ['  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 10, batch_size: 4 }'] : []),
      `output: ${JSON.stringify(output)}`,
      '',
    ].join('\n'),
  );
  return file;
}

function cli(cfg: string, cache: string, fault?: string) {
  const env = { ...process.env };
  delete env.SKILLRET_FAULT_AT;
  if (fault) env.SKILLRET_FAULT_AT = fault;
  return spawnSync(process.execPath, [BIN, 'run', cfg, '-q', '--cache-dir', cache], { env, encoding: 'utf8' });
}

function results(dir: string): Map<string, string> {
  return resultsFiles(dir, RESULT_FILES);
}

/** What lies beside `output` with its name (lock, staging, previous folders). */
function besides(output: string): string[] {
  return readdirSync(dirname(output)).filter((e) => e.startsWith(`.${basename(output)}.`));
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-faults-'));
  for (const [kind, runs] of [
    ['models', 4],
    ['bm25', 1],
  ] as const) {
    const out = join(root, `reference-${kind}`);
    const r = cli(config(out, kind), join(root, `reference-cache-${kind}`));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    reference.set(kind, results(out));
    expect(reference.get(kind)!.size).toBe(5 * runs);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('kill -9 at each stage, then run again', () => {
  for (const [stage, kind] of [
    ['loading', 'bm25'],
    ['indexing', 'bm25'],
    ['encoding', 'models'],
    ['searching', 'models'],
    ['reranking', 'models'],
    ['writing', 'bm25'],
    ['swapping', 'bm25'],
  ] as const) {
    it(`${stage}: killed, resumed to identical results`, () => {
      const out = join(root, `out-${stage}`);
      const cache = join(root, `cache-${stage}`);
      const cfg = config(out, kind);
      const previous = stage === 'writing' || stage === 'swapping';
      if (previous) {
        // An earlier run's results, marked so that "left as they were" is visible.
        cpSync(join(root, `reference-${kind}`), out, { recursive: true });
        writeFileSync(join(out, 'manifest.json'), '{"earlier": true}\n');
      }
      const killed = cli(cfg, cache, stage);
      expect(killed.signal).toBe('SIGKILL');
      if (stage === 'swapping') {
        expect(existsSync(out)).toBe(false); // killed between the two renames
      } else if (previous) {
        expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe('{"earlier": true}\n');
      } else {
        expect(existsSync(out)).toBe(false);
      }
      const again = cli(cfg, cache);
      expect(again.status, again.stderr).toBe(0);
      expect(results(out)).toEqual(reference.get(kind));
      expect(readFileSync(join(out, 'manifest.json'), 'utf8')).not.toContain('earlier');
      expect(besides(out)).toEqual([]);
    });
  }

  it('writing:error: one line, exit 2, the previous results untouched, nothing left beside them', () => {
    const out = join(root, 'out-write-error');
    cpSync(join(root, 'reference-bm25'), out, { recursive: true });
    writeFileSync(join(out, 'manifest.json'), '{"earlier": true}\n');
    const r = cli(config(out, 'bm25'), join(root, 'reference-cache-bm25'), 'writing:error');
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/injected fault at writing|input\/output error/);
    expect(r.stderr).toContain(`the results in ${out} are as before`);
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe('{"earlier": true}\n');
    expect(results(out)).toEqual(reference.get('bm25'));
    expect(besides(out)).toEqual([]);
  });
});
