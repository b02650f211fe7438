/**
 * Results do not depend on cache state: for the example configs that run offline on the bundled
 * fixture (every example config that needs no network or ../shared), a cold run, a warm run, a `--no-cache` run, a partially cached run (half of every
 * reranker score chunk and one embedding chunk gone, the HNSW index deleted) and a run over a
 * corrupted cache entry (embedding chunks, reranker scores, exact-search results, embedder facts, dense stage outputs, the skills-file index, BM25's corpus aliases) write byte-identical metrics.json, run.trec, per-query.jsonl,
 * breakdown.json, operating-points.json and report.html (its page cache thinned out and cut short too). (Before batches were formed by length bucket, the partially cached quickstart
 * run differed in the low bits of about a quarter of its reranker scores.)
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand } from '../src/commands/run.js';
import { entryBody, filesUnder } from './helpers/cache-damage.js';
import { CacheStore } from '../src/cache/store.js';
import { RERANK_KIND, scoreChunkKey } from '../src/rerank/score-cache.js';

const REPO = resolve(__dirname, '..');
const RESULT_FILES = ['metrics.json', 'run.trec', 'per-query.jsonl', 'breakdown.json', 'operating-points.json', 'report.html'];
let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), 'skillret-cache-state-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of configs/<name>.yaml with absolute paths, writing to `output`. */
function configCopy(name: string, output: string, savedRun?: string): string {
  const c = parse(readFileSync(join(REPO, 'configs', `${name}.yaml`), 'utf8')) as Record<string, unknown> & { dataset: { path: string }; retrievers: { type: string; path?: string }[] };
  c.dataset.path = join(REPO, 'data', 'mini');
  c.output = output;
  for (const r of c.retrievers) if (r.type === 'run' && savedRun) r.path = savedRun;
  const file = join(root, `${name}-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, stringify(c));
  return file;
}

/** Every results file of an output folder, by relative path. */
function resultFiles(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p, `${rel}${e}/`);
      else if (RESULT_FILES.includes(e)) out.set(`${rel}${e}`, readFileSync(p));
    }
  };
  walk(dir, '');
  return out;
}

/** Half the cache gone: every reranker chunk replaced by one with its first half, one embedding chunk and the HNSW indexes deleted. */
function thinOut(cache: string): void {
  const store = CacheStore.of({ cacheDir: cache, useCache: true, log: () => {} });
  for (const f of filesUnder(join(cache, 'rerank'), (p) => p.endsWith('.jsonl'))) {
    const group = basename(dirname(f));
    const lines = entryBody(f).toString('utf8').split('\n').filter(Boolean);
    rmSync(f);
    const half = lines.slice(0, Math.floor(lines.length / 2));
    if (half.length === 0) continue;
    const body = half.join('\n') + '\n';
    store.write(RERANK_KIND, scoreChunkKey(group, body), body, { group });
  }
  const emb = filesUnder(join(cache, 'embeddings'), (p) => p.endsWith('.bin'));
  if (emb.length > 0) rmSync(emb[0]!);
  rmSync(join(cache, 'hnsw'), { recursive: true, force: true });
  // The exact-search results, the embedder facts and the dense stage outputs: the first of each gone.
  for (const sub of ['dense-search', 'embedder-facts', 'dense-stage', 'skills-index', join('bm25', 'by-corpus'), 'report-svg']) {
    const [first] = filesUnder(join(cache, sub), () => true);
    if (first) rmSync(first);
  }
}

/** Garbles every reranker chunk's first score line (its second line, after the store's header) and the tail of every embedding chunk. */
function corrupt(cache: string): void {
  for (const f of filesUnder(join(cache, 'rerank'), (p) => p.endsWith('.jsonl'))) {
    const lines = readFileSync(f, 'utf8').split('\n');
    if (lines.length > 1) lines[1] = '{"k": "garbled';
    writeFileSync(f, lines.join('\n'));
  }
  for (const f of filesUnder(join(cache, 'embeddings'), (p) => p.endsWith('.bin'))) {
    const b = readFileSync(f);
    writeFileSync(f, b.subarray(0, Math.max(1, b.length - 7)));
  }
  // Cached exact-search results cut short, embedder facts garbled.
  for (const f of filesUnder(join(cache, 'dense-search'), (p) => p.endsWith('.bin'))) {
    const b = readFileSync(f);
    writeFileSync(f, b.subarray(0, b.length >> 1));
  }
  for (const f of filesUnder(join(cache, 'embedder-facts'), (p) => p.endsWith('.json'))) writeFileSync(f, '{"format": "garbled');
  for (const f of filesUnder(join(cache, 'dense-stage'), (p) => p.endsWith('.json'))) {
    const t = readFileSync(f, 'utf8');
    writeFileSync(f, t.slice(0, t.length >> 1));
  }
  // The skills-file index cut short, BM25's corpus aliases garbled.
  expect(filesUnder(join(cache, 'skills-index'), (p) => p.endsWith('.json')).length).toBeGreaterThan(0);
  for (const f of filesUnder(join(cache, 'skills-index'), (p) => p.endsWith('.json'))) {
    const t = readFileSync(f, 'utf8');
    writeFileSync(f, t.slice(0, t.length >> 1));
  }
  for (const f of filesUnder(join(cache, 'bm25', 'by-corpus'), (p) => p.endsWith('.key'))) writeFileSync(f, 'garbled');
  // report.html's charts cut short.
  expect(filesUnder(join(cache, 'report-svg'), (p) => p.endsWith('.svg')).length).toBeGreaterThan(0);
  for (const f of filesUnder(join(cache, 'report-svg'), (p) => p.endsWith('.svg'))) {
    const b = readFileSync(f);
    writeFileSync(f, b.subarray(0, b.length - 100));
  }
}

async function run(config: string, o: { cacheDir?: string; cache?: boolean }): Promise<void> {
  await runCommand({ config, quiet: true, ...o });
}

describe('byte-identical results whatever the cache state', () => {
  it('quickstart: cold, warm, --no-cache, partially cached, corrupted cache', async () => {
    const cache = join(root, 'qs-cache');
    const outs = ['cold', 'warm', 'nocache', 'partial', 'corrupt'].map((s) => join(root, 'qs', s));
    await run(configCopy('quickstart', outs[0]!), { cacheDir: cache });
    await run(configCopy('quickstart', outs[1]!), { cacheDir: cache });
    await run(configCopy('quickstart', outs[2]!), { cache: false });
    thinOut(cache);
    await run(configCopy('quickstart', outs[3]!), { cacheDir: cache });
    corrupt(cache);
    await run(configCopy('quickstart', outs[4]!), { cacheDir: cache });
    const ref = resultFiles(outs[0]!);
    expect(ref.size).toBe(5 * 4 + 1);
    for (const o of outs.slice(1)) expect(resultFiles(o), o).toEqual(ref);
  });

  // Every other example config that runs offline on the bundled fixture.
  for (const name of ['bm25-only', 'rerank-saved-run', 'dense-exact-vs-hnsw', 'hybrid-rrf', 'query-strategies', 'use-lite']) {
    it(`${name}: cold, partially cached, --no-cache`, async () => {
      const cache = join(root, `${name}-cache`);
      let saved: string | undefined;
      if (name === 'rerank-saved-run') {
        const qs = join(root, 'saved-src');
        await run(configCopy('bm25-only', qs), { cache: false });
        saved = join(root, 'saved.trec');
        cpSync(join(qs, 'bm25', 'none', 'run.trec'), saved);
      }
      const outs = ['cold', 'partial', 'nocache'].map((s) => join(root, name, s));
      mkdirSync(join(root, name), { recursive: true });
      await run(configCopy(name, outs[0]!, saved), { cacheDir: cache });
      thinOut(cache);
      await run(configCopy(name, outs[1]!, saved), { cacheDir: cache });
      await run(configCopy(name, outs[2]!, saved), { cache: false });
      const ref = resultFiles(outs[0]!);
      expect(ref.size).toBeGreaterThan(0);
      for (const o of outs.slice(1)) expect(resultFiles(o), o).toEqual(ref);
    });
  }
});
