/**
 * BM25's index key through the corpus-fingerprint alias (retrieval/bm25/stage.ts `indexKeyOf`,
 * data/corpus-fingerprint.ts): a warm rerun over the same skills file finds its cached hits
 * without reading a document text, a damaged alias is reported and rewritten, and a changed file
 * gets a new fingerprint (so never the old hits).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DocStore } from '../src/core/stages.js';
import { JsonlDocStore } from '../src/data/doc-store.js';
import { BM25_ALIAS_SUBFOLDER, bm25CacheKey, runBm25Stage } from '../src/retrieval/bm25/stage.js';
import { silentProgress } from '../src/util/progress.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-bm25-alias-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const docs = [
  { id: 'a', text: 'deploy a kubernetes cluster with helm charts' },
  { id: 'b', text: 'parse pdf invoices and extract tables' },
  { id: 'c', text: 'write unit tests for python packages' },
  { id: 'd', text: 'kubernetes pod logs and helm rollbacks' },
];
const queries = [
  { id: 'q1', text: 'helm chart for kubernetes' },
  { id: 'q2', text: 'extract tables from pdf' },
];

function storeFor(path: string, rows: typeof docs): JsonlDocStore {
  const lines = rows.map((d) => JSON.stringify({ id: d.id, name: d.id, skill_md: d.text }));
  writeFileSync(path, lines.join('\n') + '\n');
  const offsets: number[] = [];
  const lengths: number[] = [];
  let at = 0;
  for (const l of lines) {
    offsets.push(at);
    lengths.push(Buffer.byteLength(l));
    at += Buffer.byteLength(l) + 1;
  }
  const st = statSync(path);
  return new JsonlDocStore({ kind: 'jsonl', path, bytes: st.size, mtimeMs: st.mtimeMs, skillMdField: 'skill_md', fields: ['name', 'description', 'skill_md'], separator: ' | ', ids: rows.map((d) => d.id), offsets: Float64Array.from(offsets), lengths: Uint32Array.from(lengths) });
}

/** The same store, but reading a text fails the test. */
function noTexts(store: JsonlDocStore): DocStore {
  return {
    size: store.size,
    ids: store.ids,
    indexOf: (id) => store.indexOf(id),
    text: () => {
      throw new Error('a document text was read');
    },
    texts: () => {
      throw new Error('document texts were read');
    },
    source: store.source,
  };
}

const ctxFor = (cacheDir: string, log: (line: string) => void = () => {}) => ({ cacheDir, useCache: true, offline: true, progress: silentProgress, log });
const aliasDir = (cacheDir: string) => join(cacheDir, BM25_ALIAS_SUBFOLDER);

describe('BM25 corpus-fingerprint alias', () => {
  it('a warm rerun reads no document text and gives the same hits; the alias holds the texts key', async () => {
    const cacheDir = join(dir, 'warm');
    const store = storeFor(join(dir, 'skills-warm.jsonl'), docs);
    const cold = await runBm25Stage(ctxFor(cacheDir), { docs: store, queries, k: 3, threads: 0 });
    const aliases = readdirSync(aliasDir(cacheDir));
    expect(aliases).toHaveLength(1);
    // The entry: the store's header line, then the key of the texts.
    expect(readFileSync(join(aliasDir(cacheDir), aliases[0]!), 'utf8').split('\n')[1]).toBe(bm25CacheKey(store, { k1: 1.5, b: 0.75 }));
    const warm = await runBm25Stage(ctxFor(cacheDir), { docs: noTexts(store), queries, k: 3, threads: 0 });
    expect(warm.stats.cache).toBe('hit');
    expect(warm.stats.runCache).toBe(true);
    expect(cold.stats.runCache).toBeUndefined();
    expect([...warm.run]).toEqual([...cold.run]);
    // Without the alias the key needs the texts: the same guarded store fails.
    rmSync(aliasDir(cacheDir), { recursive: true });
    await expect(runBm25Stage(ctxFor(cacheDir), { docs: noTexts(store), queries, k: 3, threads: 0 })).rejects.toThrow(/texts were read/);
  });

  it('a damaged alias is reported once and rewritten', async () => {
    const cacheDir = join(dir, 'damaged');
    const store = storeFor(join(dir, 'skills-damaged.jsonl'), docs);
    const cold = await runBm25Stage(ctxFor(cacheDir), { docs: store, queries, k: 3, threads: 0 });
    const file = join(aliasDir(cacheDir), readdirSync(aliasDir(cacheDir))[0]!);
    const key = readFileSync(file, 'utf8');
    writeFileSync(file, 'not a key');
    const logs: string[] = [];
    const again = await runBm25Stage(ctxFor(cacheDir, (l) => logs.push(l)), { docs: store, queries, k: 3, threads: 0 });
    expect([...again.run]).toEqual([...cold.run]);
    expect(logs).toEqual([`cache: bm25-alias entry ${file} is damaged (no header line); computing it again`]);
    expect(readFileSync(file, 'utf8')).toBe(key);
  });

  it('a changed skills file is a new corpus: new hits, not the cached ones', async () => {
    const cacheDir = join(dir, 'changed');
    const path = join(dir, 'skills-changed.jsonl');
    const before = await runBm25Stage(ctxFor(cacheDir), { docs: storeFor(path, docs), queries, k: 3, threads: 0 });
    expect(before.run.get('q2')![0]!.docId).toBe('b');
    // Same length, other words: b no longer matches q2, c does.
    const swapped = docs.map((d) => (d.id === 'b' ? { ...d, text: 'write unit tests for python packages' } : d.id === 'c' ? { ...d, text: 'parse pdf invoices and extract tables' } : d));
    const store = storeFor(path, swapped);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const st = statSync(path);
    const moved = new JsonlDocStore({ ...store.source!, bytes: st.size, mtimeMs: st.mtimeMs });
    const after = await runBm25Stage(ctxFor(cacheDir), { docs: moved, queries, k: 3, threads: 0 });
    expect(after.run.get('q2')![0]!.docId).toBe('c');
    expect(readdirSync(aliasDir(cacheDir))).toHaveLength(2);
  });
});
