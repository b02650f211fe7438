/**
 * Ctrl-C (SIGINT) or a scheduler's SIGTERM during a run: the real CLI drops its staging folder,
 * releases the output's lock and exits 130 / 143 with one line, and the previous results stay as
 * they were. The signals are sent at deterministic points (SKILLRET_FAULT_AT=<point>:sigint|sigterm,
 * src/util/fault.ts): no timing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultsFiles } from '../helpers/results-files.js';
import { RESULTS_FILE_NAMES } from '../../src/report/results-folder.js';

const REPO = resolve(__dirname, '..', '..');
const BIN = join(REPO, 'bin', 'skillret-eval.js');
const root = mkdtempSync(join(tmpdir(), 'signals-'));
const out = join(root, 'out');
const cfg = join(root, 'exp.yaml');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(fault?: string) {
  const env = { ...process.env };
  delete env.SKILLRET_FAULT_AT;
  if (fault) env.SKILLRET_FAULT_AT = fault;
  // No cache: the stages run (worker threads, I/O), so the event loop is there to take the signal.
  return spawnSync(process.execPath, [BIN, 'run', cfg, '-q', '--no-cache'], { env, encoding: 'utf8' });
}

describe('signals during a run', () => {
  let before: Map<string, string>;
  beforeAll(() => {
    writeFileSync(
      cfg,
      [
        'name: signals',
        `dataset: { path: ${JSON.stringify(join(REPO, 'data', 'mini'))}, split: test }`,
        'retrievers:',
        '  - { id: bm25, type: bm25, top_k: 10 }',
        'stats: { iterations: 200 }',
        `output: ${JSON.stringify(out)}`,
      ].join('\n') + '\n',
    );
    const r = run();
    expect(r.status, r.stderr).toBe(0);
    before = resultsFiles(out, RESULTS_FILE_NAMES);
  }, 60_000);

  for (const [fault, code, name] of [
    ['loading:sigint', 130, 'SIGINT'],
    ['indexing:sigterm', 143, 'SIGTERM'],
  ] as const) {
    it(`${name} at ${fault.split(':')[0]}: exit ${code}, no lock or staging folder left, previous results intact`, () => {
      const r = run(fault);
      expect(r.status, r.stderr).toBe(code);
      expect(r.stderr.trim().split('\n')).toEqual([`skillret-eval: ${name}: run stopped; the results in ${out} are as before`]);
      expect(readdirSync(root).filter((e) => e.startsWith('.out.'))).toEqual([]);
      expect(resultsFiles(out, RESULTS_FILE_NAMES)).toEqual(before);
    });
  }
});
