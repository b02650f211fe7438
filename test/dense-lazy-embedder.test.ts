/**
 * The lazy embedder (src/retrieval/dense/embedding/lazy-embedder.ts) and its facts cache
 * (embedder-facts.ts): a warm dense stage whose vectors are all cached gives the same run and
 * info without loading the model; a missing vector loads it once; any change of the files the
 * facts come from misses; a corrupted or partial facts file is ignored and rewritten.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';
import { denseRetrieve, type DenseSpec } from '../src/retrieval/dense/retriever.js';
import { Embedder } from '../src/retrieval/dense/embedding/embedder.js';
import { embedderFactsKey, FACTS_KIND, FACTS_SUBFOLDER, readEmbedderFacts, writeEmbedderFacts } from '../src/retrieval/dense/embedding/embedder-facts.js';
import { CacheStore } from '../src/cache/store.js';
import { modelFilePaths } from '../src/retrieval/dense/embedding/embedder.js';
import { silentProgress } from '../src/util/progress.js';
import type { StageContext } from '../src/core/context.js';

let root: string;
let enc: TinyModelInfo;

const WORDS = ['skill', 'search', 'agent', 'code', 'data', 'file', 'test', 'user', 'deploy', 'review', 'git', 'docker'];
const DOCS = Array.from({ length: 30 }, (_, i) => ({
  id: `s-${String(i).padStart(2, '0')}`,
  text: Array.from({ length: 2 + (i % 11) }, (_, j) => WORDS[(i * 5 + j * 7) % WORDS.length]).join(' '),
}));
const QUERIES = Array.from({ length: 6 }, (_, i) => ({ id: `q-${i}`, text: `${WORDS[i]} ${WORDS[(i + 3) % WORDS.length]}` }));

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-lazy-'));
  process.env.SKILLRET_MODELS_DIR = join(root, 'models');
  enc = buildTinyEncoder(join(root, 'enc'), { seed: 5 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function ctx(cacheDir: string, logs: string[], over: Partial<StageContext> = {}): StageContext {
  return { cacheDir, useCache: true, offline: true, progress: silentProgress, log: (l) => logs.push(l), ...over };
}

const spec = (model = enc.dir, over: Partial<DenseSpec> = {}): DenseSpec => ({
  id: 'tiny',
  model,
  pooling: 'mean',
  normalize: true,
  maxTokens: 6,
  batchSize: 4,
  threads: 1,
  topK: 4,
  index: { type: 'exact' },
  ...over,
});

/** The info without what differs between runs by design (timings, cache counts, throughput, search cache state). */
function stable(info: Record<string, unknown>): Record<string, unknown> {
  const { timings: _t, cache: _c, throughput: _p, index: _i, ...rest } = info;
  return rest;
}

function factsFiles(cacheDir: string): string[] {
  const d = join(cacheDir, FACTS_SUBFOLDER);
  return existsSync(d) ? readdirSync(d).map((f) => join(d, f)) : [];
}

describe('lazy embedder', () => {
  it('all vectors cached: same run and info, and the model is never loaded', async () => {
    const cacheDir = join(root, 'c1');
    const logs: string[] = [];
    const cold = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
    expect(factsFiles(cacheDir)).toHaveLength(1);
    const load = vi.spyOn(Embedder, 'load');
    const warm = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
    expect(load).not.toHaveBeenCalled();
    expect(warm.run).toEqual(cold.run);
    expect(stable(warm.info as unknown as Record<string, unknown>)).toEqual(stable(cold.info as unknown as Record<string, unknown>));
    expect(warm.info.cache).toMatchObject({ hits: DOCS.length + QUERIES.length, misses: 0 });
    const nocache = await denseRetrieve(ctx(join(root, 'unused'), logs, { useCache: false }), spec(), DOCS, QUERIES);
    expect(nocache.run).toEqual(cold.run);
    expect(existsSync(join(root, 'unused'))).toBe(false);
    expect(logs).toEqual([]);
  });

  it('a missing vector loads the model once; the run equals an uncached one', async () => {
    const cacheDir = join(root, 'c2');
    const logs: string[] = [];
    await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES.slice(0, 3));
    const load = vi.spyOn(Embedder, 'load');
    const more = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
    expect(load).toHaveBeenCalledTimes(1);
    expect(more.info.cache).toMatchObject({ documents: { hits: DOCS.length, misses: 0 }, queries: { hits: 3, misses: 3 } });
    const fresh = await denseRetrieve(ctx(join(root, 'c2-fresh'), logs, { useCache: false }), spec(), DOCS, QUERIES);
    expect(more.run).toEqual(fresh.run);
    expect(stable(more.info as unknown as Record<string, unknown>)).toEqual(stable(fresh.info as unknown as Record<string, unknown>));
  });

  it('the facts key covers the ONNX file, config.json and the tokenizer files, and the dtype', async () => {
    const dir = join(root, 'enc-copy');
    cpSync(enc.dir, dir, { recursive: true });
    const key = () => embedderFactsKey(dir, modelFilePaths(dir, 'fp32'), 'fp32');
    const k0 = await key();
    expect(k0).toMatch(/^[0-9a-f]{64}$/);
    expect(await embedderFactsKey(dir, modelFilePaths(dir, 'fp32'), 'fp16')).not.toBe(k0);
    const seen = new Set([k0]);
    for (const f of ['onnx/model.onnx', 'config.json', 'tokenizer.json', 'tokenizer_config.json']) {
      const p = join(dir, f);
      const before = readFileSync(p);
      writeFileSync(p, Buffer.concat([before, Buffer.from(f.endsWith('.json') ? ' ' : '\0')]));
      const k = await key();
      expect(seen.has(k!), f).toBe(false);
      seen.add(k!);
      writeFileSync(p, before);
    }
    rmSync(join(dir, 'config.json'));
    expect(await key()).toBeNull(); // a file the facts come from is missing: no key, the model is loaded
  });

  it('a corrupted or partial facts file is ignored (one log line), the model loaded, the file rewritten', async () => {
    const cacheDir = join(root, 'c3');
    const logs: string[] = [];
    const cold = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
    const [file] = factsFiles(cacheDir);
    const good = readFileSync(file!, 'utf8');
    const key = basename(file!, '.json');
    const facts = readEmbedderFacts(cacheDir, key, () => {})!;
    // Framed by the store, but not facts: the decoder refuses it.
    const malformed = () => CacheStore.of({ cacheDir, useCache: true, log: () => {} }).write(FACTS_KIND, key, JSON.stringify({ ...facts, paddingSide: 'up' }));
    for (const bad of [good.slice(0, good.length >> 1), '{"format":"skillret-embedder-facts-v1"}', good.replace('"paddingSide":"right"', '"paddingSide":"up"'), malformed]) {
      if (typeof bad === 'string') writeFileSync(file!, bad);
      else bad();
      logs.length = 0;
      const load = vi.spyOn(Embedder, 'load');
      const again = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
      expect(load).toHaveBeenCalledTimes(1);
      load.mockRestore();
      expect(again.run).toEqual(cold.run);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/^cache: embedder-facts entry .* is damaged \((no header line|checksum mismatch|body is \d+ bytes, the header says \d+|malformed facts)\); computing it again$/);
      expect(logs[0]).toContain(file!);
      expect(readFileSync(file!, 'utf8')).toBe(good);
    }
    expect(readdirSync(join(cacheDir, FACTS_SUBFOLDER)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('facts that disagree with the model (valid but wrong) are rewritten and the run stops; the next run is right', async () => {
    const cacheDir = join(root, 'c4');
    const logs: string[] = [];
    const cold = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
    const [file] = factsFiles(cacheDir);
    const good = readFileSync(file!, 'utf8');
    const key = basename(file!, '.json');
    const f = readEmbedderFacts(cacheDir, key, () => {})!;
    writeEmbedderFacts(cacheDir, key, { ...f, modelMaxLength: f.modelMaxLength + 1 }, () => {});
    // Every vector is cached under the true facts' key, so the wrong facts miss them all and the model loads.
    await expect(denseRetrieve(ctx(cacheDir, logs), spec(undefined, { maxTokens: undefined }), DOCS, QUERIES)).rejects.toThrow(/disagree with the loaded model/);
    expect(readFileSync(file!, 'utf8')).toBe(good);
    const next = await denseRetrieve(ctx(cacheDir, logs), spec(), DOCS, QUERIES);
    expect(next.run).toEqual(cold.run);
  });
});
