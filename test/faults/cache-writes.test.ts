/**
 * Class 4 of issue 28: a cache write that fails (a full disk, a read-only mount, a file where a
 * folder should be) costs one warning line naming the cache folder, once per cache root, not the
 * run: the results are written, byte-identical to a run without a cache, exit 0, the output is
 * never blamed, and nothing already in the cache changes. Faults: SKILLRET_FAULT_AT=cache-write:<CODE>
 * (src/util/fault.ts) for every write into the cache root, and a real ENOTDIR (a cache group folder
 * replaced by a file), which fails for root too.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { resultsFiles } from '../helpers/results-files.js';
import { treeHashes } from '../helpers/fault-suite.js';
import { RESULTS_FILE_NAMES } from '../../src/report/results-folder.js';

const REPO = resolve(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'fault-cache-writes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => void delete process.env.SKILLRET_FAULT_AT);

/** Results files that do not record timings or the cache's state (summary.md and manifest.json do). */
const SAME = new Set([...RESULTS_FILE_NAMES].filter((n) => n !== 'summary.md' && n !== 'manifest.json'));

/** A config writing to `out`; `models`: BM25 and GloVe dense (HNSW), each with and without the GloVe MaxSim reranker (every cache kind a run writes). */
function config(name: string, models: boolean): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'name: cache-faults',
      `dataset: { path: ${JSON.stringify(join(REPO, 'data', 'mini'))}, split: test }`,
      'retrievers:',
      '  - { id: bm25, type: bm25, top_k: 20 }',
      ...(models ? ['  - { id: glove, type: dense, model: glove-6b-100d-static, index: { type: hnsw }, top_k: 20, batch_size: 8 }'] : []),
      'rerankers:',
      '  - { id: none }',
      ...(models ? ['  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 10, batch_size: 4 }'] : []),
      'stats: { iterations: 200 }',
      `output: ${JSON.stringify(join(dir, name))}`,
      '',
    ].join('\n'),
  );
  return file;
}

/** The warning lines of a run's stderr (it prints its log lines too: no -q). */
const warnings = (err: string) => err.split('\n').filter((l) => /warning|damaged|failed/i.test(l));

const warning = (cache: string, why: string) =>
  `warning: cache: cannot write in ${cache}: ${why}; going on without caching (nothing more is written there in this run; the results are the same)`;

describe('a cache write that fails costs one warning, not the run', () => {
  const reference = new Map<string, Map<string, string>>();
  beforeAll(async () => {
    for (const models of [true, false]) {
      const name = models ? 'ref-models' : 'ref-bm25';
      const r = await runCli(['run', config(name, models), '--offline', '-q', '--no-cache']);
      expect(r.code, r.err).toBe(0);
      reference.set(name, resultsFiles(join(dir, name), SAME));
    }
  }, 120_000);

  it('a full cache disk (ENOSPC on every write): one warning naming the cache folder, results as without a cache, nothing cached', async () => {
    const cache = join(dir, 'cache-full');
    process.env.SKILLRET_FAULT_AT = 'cache-write:ENOSPC';
    const r = await runCli(['run', config('full', true), '--offline', '--cache-dir', cache]);
    expect(r.code, r.err).toBe(0);
    expect(warnings(r.err)).toEqual([warning(cache, 'no space left on the device (ENOSPC)')]);
    expect(r.err).not.toContain(join(dir, 'full'));
    expect(resultsFiles(join(dir, 'full'), SAME)).toEqual(reference.get('ref-models'));
    // Not cached: no entry, no temporary file, no history.
    expect([...treeHashes(cache).keys()]).toEqual([]);
  }, 60_000);

  it('a read-only cache (EROFS) that holds every entry already: the history is not written, one warning, the cache unchanged', async () => {
    const cache = join(dir, 'cache-ro');
    const cfg = config('ro', false);
    expect((await runCli(['run', cfg, '--offline', '-q', '--cache-dir', cache])).code).toBe(0);
    const before = treeHashes(cache);
    process.env.SKILLRET_FAULT_AT = 'cache-write:EROFS';
    const r = await runCli(['run', cfg, '--offline', '--cache-dir', cache]);
    expect(r.code, r.err).toBe(0);
    expect(warnings(r.err)).toEqual([warning(cache, 'read-only file system (EROFS)')]);
    expect(resultsFiles(join(dir, 'ro'), SAME)).toEqual(reference.get('ref-bm25'));
    expect(treeHashes(cache)).toEqual(before);
  }, 60_000);

  it('a cache group folder that is a file (a real ENOTDIR): the entry is computed, not cached, one warning; nothing in the cache changes', async () => {
    const cache = join(dir, 'cache-notdir');
    const cfg = config('notdir', false);
    expect((await runCli(['run', cfg, '--offline', '-q', '--cache-dir', cache])).code).toBe(0);
    // The BM25 run cache's group folder (<key>.runs) becomes a file: its entry can be neither read nor written.
    const runs = readdirSync(join(cache, 'bm25')).filter((e) => e.endsWith('.runs'));
    expect(runs).toHaveLength(1);
    rmSync(join(cache, 'bm25', runs[0]!), { recursive: true });
    writeFileSync(join(cache, 'bm25', runs[0]!), 'in the way\n');
    const before = treeHashes(cache);
    const r = await runCli(['run', cfg, '--offline', '--cache-dir', cache]);
    expect(r.code, r.err).toBe(0);
    const w = warnings(r.err);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(new RegExp(`^warning: cache: cannot write in ${cache.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*\\(ENOTDIR\\); going on without caching`));
    expect(resultsFiles(join(dir, 'notdir'), SAME)).toEqual(reference.get('ref-bm25'));
    expect(treeHashes(cache)).toEqual(before);
  }, 60_000);
});
