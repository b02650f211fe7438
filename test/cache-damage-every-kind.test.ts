/**
 * One damaged entry of every cache kind, one report line of one shape each: a run over data/mini
 * that writes every kind of the store (BM25 with its runs and corpus alias, a GloVe dense stage
 * with an exact index (dense stage outputs, exact search) and one with HNSW, a remote embedding
 * server on 127.0.0.1, the GloVe MaxSim reranker, token counts, report charts, the skills-file
 * index and the file hash memo), then one entry of each kind damaged (a different damage for
 * each: a bit flipped in the body or the header, cut short, bytes appended, another key's entry in
 * its place) and the run again in a fresh process's state (in two rounds: damaged embedder facts
 * would keep the dense stage entry from being read, so they get a round of their own): every kind
 * reports its entry in exactly
 * one line `cache: <kind> entry <path> is damaged (<reason>); computing it again`, nothing else is
 * reported, and the results are byte-identical to the undamaged run's.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../src/api/run.js';
import { clearFileHashMemo } from '../src/cache/file-sha256.js';
import { STORE_KINDS, type CacheKindLayout } from '../src/cache/kinds.js';
import { setBackoffForTesting } from '../src/remote/http.js';
import { filesUnder } from './helpers/cache-damage.js';
import { startFakeServer, type FakeServer } from './helpers/remote-server.js';

const REPO = resolve(__dirname, '..');
const RESULT_FILES = new Set(['metrics.json', 'run.trec', 'per-query.jsonl', 'breakdown.json', 'operating-points.json', 'official.json', 'report.html']);

let server: FakeServer;
let dir: string;
beforeAll(async () => {
  setBackoffForTesting({ baseMs: 5, maxMs: 20 });
  server = await startFakeServer();
  dir = mkdtempSync(join(tmpdir(), 'cache-every-kind-'));
});
afterAll(async () => {
  setBackoffForTesting(null);
  await server.close();
});

function config(out: string): string {
  const f = join(dir, `${out}.yaml`);
  writeFileSync(
    f,
    `name: every-kind
dataset: { path: ${join(REPO, 'data/mini')}, split: test }
k: [5, 10]
retrievers:
  - { id: bm25, type: bm25, top_k: 20 }
  - { id: glove-exact, type: dense, model: glove-6b-100d-static, index: { type: exact }, top_k: 20 }
  - { id: glove-hnsw, type: dense, model: glove-6b-100d-static, index: { type: hnsw }, top_k: 20 }
  - id: remote
    type: dense
    model: some-remote-model
    endpoint: { url: "${server.url}/v1", api: openai, batch_size: 16 }
    top_k: 20
rerankers:
  - { id: none }
  - { id: glove-maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 10 }
stats: { iterations: 200 }
output: ${join(dir, out)}
`,
  );
  return f;
}

function results(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of filesUnder(out)) {
    const name = f.slice(out.length + 1);
    if (RESULT_FILES.has(name.split('/').pop()!)) m.set(name, readFileSync(f, 'latin1'));
  }
  return m;
}

async function run(out: string, cacheDir: string): Promise<string[]> {
  const logs: string[] = [];
  clearFileHashMemo(); // each run as a fresh process: the file hash memo is read from the cache
  await runExperiment(config(out), { cacheDir, log: (l) => logs.push(l) });
  return logs;
}

/** The entry files of a kind (not its companion or note files), sorted. */
function entriesOf(cacheDir: string, kind: CacheKindLayout): string[] {
  const base = join(cacheDir, ...kind.folder.split('/'));
  const dirs = !kind.grouped
    ? [base]
    : readdirSync(base)
        .filter((d) => d.endsWith(kind.grouped!.suffix) && statSync(join(base, d)).isDirectory() && !STORE_KINDS.some((k) => k.folder === `${kind.folder}/${d}`))
        .map((d) => join(base, d));
  const re = new RegExp(`^[0-9a-f]{64}\\.${kind.ext}$`);
  return dirs.flatMap((d) => readdirSync(d).filter((f) => re.test(f) && statSync(join(d, f)).isFile()).map((f) => join(d, f))).sort();
}

type Damage = (file: string) => void;
const flipBody: Damage = (f) => {
  const b = readFileSync(f);
  const at = b.indexOf(10) + 1 + ((b.length - b.indexOf(10) - 1) >> 1);
  b[at] = b[at]! ^ 0x20;
  writeFileSync(f, b);
};
const flipHeader: Damage = (f) => {
  const b = readFileSync(f);
  b[20] = b[20]! ^ 0x01; // inside the kind or format name
  writeFileSync(f, b);
};
const cut: Damage = (f) => {
  const b = readFileSync(f);
  writeFileSync(f, b.subarray(0, b.length - 3));
};
const append: Damage = (f) => writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.from('!')]));
const garbage: Damage = (f) => writeFileSync(f, 'garbage');
const DAMAGES = [flipBody, cut, append, flipHeader, garbage];

describe('one damaged entry of every cache kind', () => {
  it('is reported in one line of the same shape for each kind, recomputed, and the results do not move', async () => {
    const cacheDir = join(dir, 'cache');
    const coldLogs = await run('cold', cacheDir);
    expect(coldLogs.filter((l) => l.startsWith('cache:'))).toEqual([]);
    const cold = results(join(dir, 'cold'));
    expect(cold.size).toBeGreaterThan(8 * 4);

    // One entry of every kind, each damaged its own way (the first of each kind in file order), in
    // two rounds: damaged embedder facts leave the dense stage without a key, so its entry would not
    // be read (it is rewritten after the stage runs): they go in a round of their own.
    const rounds = [STORE_KINDS.filter((k) => k.name !== 'embedder-facts'), STORE_KINDS.filter((k) => k.name === 'embedder-facts')];
    let i = 0;
    for (const [r, kinds] of rounds.entries()) {
      const damaged = new Map<string, string>();
      for (const kind of kinds) {
        const [file] = entriesOf(cacheDir, kind);
        expect(file, `no ${kind.name} entry was written`).toBeDefined();
        damaged.set(kind.name, file!);
        DAMAGES[i++ % DAMAGES.length]!(file!);
      }
      const logs = await run(`damaged-${r}`, cacheDir);
      const reports = logs.filter((l) => l.startsWith('cache:'));
      for (const [kind, file] of damaged) {
        const mine = reports.filter((l) => l.startsWith(`cache: ${kind} entry `));
        expect(mine, kind).toHaveLength(1);
        const m = /^cache: (\S+) entry (.+) is damaged \((.+)\); computing it again$/.exec(mine[0]!);
        expect(m, mine[0]).not.toBeNull();
        expect(m![1]).toBe(kind);
        expect(m![2]).toBe(file);
      }
      expect(reports).toHaveLength(damaged.size);
      expect(results(join(dir, `damaged-${r}`))).toEqual(cold);
    }
    expect(i).toBe(STORE_KINDS.length);

    // Every damaged entry was written again: a third run reports nothing.
    expect((await run('again', cacheDir)).filter((l) => l.startsWith('cache:'))).toEqual([]);
    expect(results(join(dir, 'again'))).toEqual(cold);

    // An entry swapped for another key's (each valid in itself): reported as holding another key.
    const [a, b] = entriesOf(cacheDir, STORE_KINDS.find((k) => k.name === 'report-svg')!);
    copyFileSync(a!, b!);
    const swapped = (await run('swapped', cacheDir)).filter((l) => l.startsWith('cache:'));
    expect(swapped).toHaveLength(1);
    expect(swapped[0]).toMatch(new RegExp(`^cache: report-svg entry ${b!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(holds another key, [0-9a-f]{16}…\\); computing it again$`));
    expect(results(join(dir, 'swapped'))).toEqual(cold);
  }, 600_000);
});
