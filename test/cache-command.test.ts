/**
 * `skillret-eval cache info` and `cache prune` on a cache populated by configs/quickstart.yaml's
 * shape over data/mini (in a temp folder, as test/quickstart.test.ts points it): info lists every
 * kind with its entries, files and bytes (every file of the cache root counted once, the total
 * their sum), prune frees exactly what it says, never touches the results history unless asked by
 * name, and a run over the pruned cache writes the same results.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pruneCacheEntries, type CacheUsage } from '../src/api/cache.js';
import { STORE_KINDS } from '../src/cache/kinds.js';
import { runCli } from './helpers/cli.js';
import { filesUnder } from './helpers/cache-damage.js';

const root = resolve(__dirname, '..');
const RESULT_FILES = ['metrics.json', 'run.trec', 'per-query.jsonl'];
const RUNS = ['bm25/none', 'bm25/glove-maxsim', 'glove/none', 'glove/glove-maxsim'];

const dir = mkdtempSync(join(tmpdir(), 'cache-command-'));
const cache = join(dir, 'cache');

function quickstartIn(out: string): string {
  const text = readFileSync(join(root, 'configs/quickstart.yaml'), 'utf8')
    .replace('path: ../data/mini', `path: ${join(root, 'data/mini')}`)
    .replace('output: ../results/quickstart', `output: ${join(dir, out)}\ncache_dir: ${cache}`);
  const f = join(dir, `${out}.yaml`);
  writeFileSync(f, text);
  return f;
}

const snapshot = (out: string) => Object.fromEntries(RUNS.flatMap((r) => RESULT_FILES.map((f) => [`${r}/${f}`, readFileSync(join(dir, out, r, f), 'utf8')])));

async function info(): Promise<CacheUsage> {
  const r = await runCli(['cache', 'info', '--cache-dir', cache, '--format', 'json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as CacheUsage;
}

const kindOf = (u: CacheUsage, name: string) => u.kinds.find((k) => k.kind === name)!;
const bytesOnDisk = () => filesUnder(cache).reduce((s, f) => s + statSync(f).size, 0);

let first: Record<string, string>;
beforeAll(async () => {
  const r = await runCli(['run', quickstartIn('out'), '--offline', '-q']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  first = snapshot('out');
}, 600_000);

describe('cache info', () => {
  it('lists every kind with entries, files and bytes; every file counted once', async () => {
    const u = await info();
    expect(u.root).toBe(cache);
    expect(u.kinds.map((k) => k.kind)).toEqual([...STORE_KINDS.map((k) => k.name), 'datasets', 'hf', 'history']);
    // What the quickstart writes (no exact dense stage, no remote server): every other kind holds entries.
    for (const k of u.kinds) {
      const expectEntries = !['dense-stage', 'remote', 'datasets', 'hf'].includes(k.kind);
      expect(k.entries > 0, k.kind).toBe(expectEntries);
      expect(k.bytes > 0, k.kind).toBe(expectEntries);
      expect(k.files).toBeGreaterThanOrEqual(k.entries);
    }
    // The HNSW graph beside its entry, the reranker group's key.json: files, not entries.
    expect(kindOf(u, 'hnsw').files).toBe(2 * kindOf(u, 'hnsw').entries);
    // Every file of the cache root belongs to one kind: the total is what is on disk.
    expect(u.total.bytes).toBe(bytesOnDisk());
    expect(u.total.files).toBe(filesUnder(cache).length);
    expect(u.total.entries).toBe(u.kinds.reduce((s, k) => s + k.entries, 0));

    const table = await runCli(['cache', 'info', '--cache-dir', cache]);
    expect(table.code).toBe(0);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toBe(`cache root: ${cache}`);
    expect(lines[1]).toMatch(/^kind\s+entries\s+files\s+bytes\s+folder\s+what$/);
    for (const k of u.kinds) expect(table.out).toMatch(new RegExp(`^${k.kind}\\s+${k.entries}\\s+${k.files}\\s+\\S+ k?M?G?B\\s+${k.folder}/`, 'm'));
    expect(lines.at(-1)).toMatch(new RegExp(`^total\\s+${u.total.entries}\\s+${u.total.files}\\s+`));
  });
});

describe('cache prune', () => {
  it('refuses to guess what to remove, and unknown kinds, in one line', async () => {
    const none = await runCli(['cache', 'prune', '--cache-dir', cache]);
    expect(none.code).toBe(2);
    expect(none.err.trim().split('\n')).toHaveLength(1);
    expect(none.err).toContain('--all');
    const bad = await runCli(['cache', 'prune', '--cache-dir', cache, '--kind', 'reranks']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('did you mean rerank?');
    const both = await runCli(['cache', 'prune', '--cache-dir', cache, '--all', '--kind', 'rerank']);
    expect(both.code).toBe(2);
  });

  it('frees what it says: a dry run removes nothing, --kind removes that kind only, --older-than only old entries', async () => {
    const before = await info();
    const rerank = kindOf(before, 'rerank');
    const dry = await runCli(['cache', 'prune', '--cache-dir', cache, '--kind', 'rerank', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`rerank: would remove ${rerank.entries} entr`);
    expect(dry.out).toContain(`would free`);
    expect(dry.out).toContain(`(${rerank.bytes} bytes) in ${rerank.files} file`);
    expect(await info()).toEqual(before);

    const gone = await runCli(['cache', 'prune', '--cache-dir', cache, '--kind', 'rerank']);
    expect(gone.code).toBe(0);
    expect(gone.out).toContain(`freed`);
    expect(gone.out).toContain(`(${rerank.bytes} bytes) in ${rerank.files} file`);
    const after = await info();
    expect(kindOf(after, 'rerank')).toMatchObject({ entries: 0, files: 0, bytes: 0 });
    for (const k of after.kinds.filter((x) => x.kind !== 'rerank')) expect(k).toEqual(kindOf(before, k.kind));
    expect(after.total.bytes).toBe(before.total.bytes - rerank.bytes);
    expect(bytesOnDisk()).toBe(after.total.bytes);

    // Nothing is older than a day.
    const fresh = await runCli(['cache', 'prune', '--cache-dir', cache, '--older-than', '1']);
    expect(fresh.out).toContain('nothing to remove');
    expect(await info()).toEqual(after);

    // Two days on, everything is older than a day: all but the results history goes.
    const history = kindOf(after, 'history');
    const later = pruneCacheEntries({ cacheDir: cache, olderThanDays: 1, now: Date.now() + 2 * 86_400_000 });
    expect(later.total.bytes).toBe(after.total.bytes - history.bytes);
    expect(later.kinds.find((k) => k.kind === 'history')).toBeUndefined();
    const pruned = await info();
    expect(pruned.total.bytes).toBe(history.bytes);
    expect(kindOf(pruned, 'history')).toEqual(history);
    expect(bytesOnDisk()).toBe(history.bytes);
  });

  it('a run over the pruned cache writes the same results; --all keeps the history, --kind history removes it', async () => {
    const r = await runCli(['run', quickstartIn('again'), '--offline', '-q']);
    expect(r.code).toBe(0);
    expect(snapshot('again')).toEqual(first);
    const before = await info();
    const all = await runCli(['cache', 'prune', '--cache-dir', cache, '--all']);
    expect(all.code).toBe(0);
    expect(all.out).not.toContain('history:');
    const after = await info();
    expect(after.total.bytes).toBe(kindOf(before, 'history').bytes);
    const history = await runCli(['cache', 'prune', '--cache-dir', cache, '--kind', 'history']);
    expect(history.out).toContain('history: removed 1 entry (1 file)');
    expect(filesUnder(cache)).toEqual([]);
  }, 600_000);
});
