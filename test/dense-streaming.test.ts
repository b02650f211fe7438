/**
 * Skill texts are streamed from the skills file, never held for the run: the dataset keeps ids,
 * names, labels and record offsets only; the dense stage reads each document text from the
 * document store when it needs it (one pass for the cache keys, then only the misses, each
 * tokenised as soon as it is read), with the same results as texts held in memory.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';
import { cleanupTemp, makeDataset } from './fixtures/data/make-dataset.js';
import { loadDataset } from '../src/data/dataset.js';
import { JsonlDocStore, docArray, fileDocSource } from '../src/data/doc-store.js';
import type { DocSource, DocStore } from '../src/core/stages.js';
import type { StageContext } from '../src/core/context.js';
import { denseRetrieve, type DenseSpec } from '../src/retrieval/dense/retriever.js';
import { Embedder, type EmbedderOptions } from '../src/retrieval/dense/embedding/embedder.js';
import { subsetOf, textSource } from '../src/retrieval/dense/embedding/text-source.js';
import { resolveModel } from '../src/models/resolve.js';
import { silentProgress } from '../src/util/progress.js';

let root: string;
let enc: TinyModelInfo;

const WORDS = ['skill', 'search', 'agent', 'code', 'data', 'file', 'test', 'user', 'deploy', 'review', 'git', 'docker', 'python', 'api'];
const N = 40;
/** Skill records with texts no other field holds (DESC-… and BODY-… words are unknown to the tokenizer). */
const RECORDS = Array.from({ length: N }, (_, i) => ({
  id: `s${String(i).padStart(2, '0')}`,
  name: `name ${i}`,
  description: `DESC-${i} ${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}`,
  skill_md: `BODY-${i} ` + Array.from({ length: 2 + (i % 11) }, (_, j) => WORDS[(i * 3 + j * 7) % WORDS.length]).join(' '),
  ...(i % 2 === 0 ? { major: 'dev' } : {}),
}));
const QUERIES = Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, query: `${WORDS[i]} ${WORDS[(i + 3) % WORDS.length]}`, skill_ids: [RECORDS[i]!.id] }));

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-stream-'));
  process.env.SKILLRET_MODELS_DIR = join(root, 'models');
  enc = buildTinyEncoder(join(root, 'enc'), { seed: 21 });
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  cleanupTemp();
});

function ctx(cacheDir: string): StageContext {
  return { cacheDir, useCache: true, offline: true, progress: silentProgress, log: () => {} };
}

const spec: DenseSpec = { id: 'tiny', model: '', pooling: 'mean', normalize: true, batchSize: 4, threads: 1, topK: 5, index: { type: 'exact' } };

/** A document store that records every text it hands out, and how it was asked. */
class RecordingStore implements DocStore {
  readonly events: string[] = [];
  readonly ranges: [number, number][] = [];
  constructor(private readonly inner: DocStore) {}
  get size(): number {
    return this.inner.size;
  }
  get ids(): readonly string[] {
    return this.inner.ids;
  }
  get source(): DocSource | undefined {
    return this.inner.source;
  }
  indexOf(id: string): number | undefined {
    return this.inner.indexOf(id);
  }
  text(i: number): string {
    this.events.push(`text ${i}`);
    return this.inner.text(i);
  }
  *texts(from = 0, to = this.size): Iterable<string> {
    this.ranges.push([from, to]);
    let i = from;
    for (const t of this.inner.texts(from, to)) {
      this.events.push(`read ${i++}`);
      yield t;
    }
  }
}

async function dataset() {
  const dir = makeDataset({ skills: RECORDS, queries: QUERIES });
  return loadDataset({ path: dir, split: 'test', textOnDemand: true });
}

/** Every string reachable from `x` through data properties (getters are not called: they hold nothing). */
function heldStrings(x: unknown, out: string[] = [], seen = new Set<unknown>()): string[] {
  if (typeof x === 'string') {
    out.push(x);
    return out;
  }
  if (x === null || typeof x !== 'object' || seen.has(x)) return out;
  seen.add(x);
  if (x instanceof Map) for (const [k, v] of x) heldStrings([k, v], out, seen);
  else if (x instanceof Set) for (const v of x) heldStrings(v, out, seen);
  else if (ArrayBuffer.isView(x)) return out;
  else {
    for (const key of Reflect.ownKeys(x)) {
      const d = Object.getOwnPropertyDescriptor(x, key)!;
      if ('value' in d) heldStrings(d.value, out, seen);
    }
  }
  return out;
}

describe('skill texts are streamed, not held', () => {
  it('the loaded dataset holds no description or SKILL.md text, and gives each back on demand', async () => {
    const ds = await dataset();
    const held = heldStrings(ds);
    expect(held.filter((s) => s.includes('DESC-') || s.includes('BODY-'))).toEqual([]);
    expect(held).toContain('name 3'); // names and labels stay
    expect(ds.skills[3]!.skillMd).toBe(RECORDS[3]!.skill_md);
    expect(ds.skills[4]!.description).toBe(RECORDS[4]!.description);
    expect(Object.keys(ds.skills[4]!)).toEqual(['id', 'name', 'description', 'skillMd', 'major']);
    expect({ ...ds.skills[4]! }).toEqual({ id: 's04', name: 'name 4', description: RECORDS[4]!.description, skillMd: RECORDS[4]!.skill_md, major: 'dev' });
  });

  it('the dense stage reads each document from the store as it goes (keys, then only the misses, each tokenised as read), with the in-memory results', async () => {
    const ds = await dataset();
    const files = new JsonlDocStore(fileDocSource(ds.skillRecords));
    const queries = ds.queries.map((q) => ({ id: q.id, text: q.text }));
    const s = { ...spec, model: enc.dir };
    const inMemory = await denseRetrieve(ctx(join(root, 'c-mem')), s, docArray(files), queries);

    const store = new RecordingStore(files);
    // Every tokenised text is logged between the store's reads.
    const calls: string[] = store.events;
    const realTokenize = Embedder.prototype.tokenizeText;
    const spy = vi.spyOn(Embedder.prototype, 'tokenizeText').mockImplementation(function (this: Embedder, text, role, check) {
      calls.push('tokenize');
      return realTokenize.call(this, text, role, check);
    });
    try {
      const cold = await denseRetrieve(ctx(join(root, 'c-store')), s, store, queries);
      expect(cold.run).toEqual(inMemory.run);
      expect(cold.info.cache.documents).toEqual({ hits: 0, misses: N });
      // Never one text at a time by position, never the corpus as an array: two streamed ranges.
      expect(store.events.some((e) => e.startsWith('text'))).toBe(false);
      expect(store.ranges).toEqual([
        [0, N],
        [0, N],
      ]);
      const docEvents = store.events.slice(0, store.events.lastIndexOf(`read ${N - 1}`) + 2);
      // First pass: every text read for its key, none tokenised.
      expect(docEvents.slice(0, N)).toEqual(Array.from({ length: N }, (_, i) => `read ${i}`));
      // Second pass: each text is tokenised right after it was read, before the next one is read.
      expect(docEvents.slice(N)).toEqual(Array.from({ length: N }, (_, i) => [`read ${i}`, 'tokenize']).flat());

      // Warm: one pass for the keys, nothing tokenised.
      store.events.length = 0;
      store.ranges.length = 0;
      const warm = await denseRetrieve(ctx(join(root, 'c-store')), s, store, queries);
      expect(warm.run).toEqual(inMemory.run);
      expect(store.ranges).toEqual([[0, N]]);
      expect(store.events.filter((e) => e === 'tokenize')).toEqual([]);

      // Partly cached (the first 25 documents): only the rest is read again and tokenised.
      const partCache = join(root, 'c-part');
      await denseRetrieve(ctx(partCache), s, docArray(files).slice(0, 25), queries);
      store.events.length = 0;
      store.ranges.length = 0;
      const part = await denseRetrieve(ctx(partCache), s, store, queries);
      expect(part.run).toEqual(inMemory.run);
      expect(part.info.cache.documents).toEqual({ hits: 25, misses: N - 25 });
      expect(store.ranges).toEqual([
        [0, N],
        [25, N],
      ]);
      expect(store.events.slice(N, N + 2 * (N - 25))).toEqual(Array.from({ length: N - 25 }, (_, i) => [`read ${25 + i}`, 'tokenize']).flat());
    } finally {
      spy.mockRestore();
    }
  });

  it('the embedder gives the same vectors from a source, a subset of one, and with its ids spilled to a file', async () => {
    const ds = await dataset();
    const files = new JsonlDocStore(fileDocSource(ds.skillRecords));
    const texts = docArray(files).map((d) => d.text);
    const loc = { offline: true, cacheDir: join(root, 'cache'), modelsDir: join(root, 'models') };
    const opts: EmbedderOptions = { queryPrefix: '', docPrefix: '', pooling: 'mean', normalize: false, maxTokens: null, dtype: 'fp32', batchSize: 4, threads: 1 };
    const plain = await Embedder.load(resolveModel(enc.dir, loc), opts, loc);
    const spilling = await Embedder.load(resolveModel(enc.dir, loc), { ...opts, tokenBlockInts: 8 }, loc);
    try {
      const want = await plain.embed(texts, 'document');
      expect(await plain.embed(files, 'document')).toEqual(want);
      expect(await spilling.embed(files, 'document')).toEqual(want);
      const picked = [1, 2, 3, 7, 20, 21, 39];
      expect(await spilling.embed(subsetOf(textSource(texts), picked), 'document')).toEqual(picked.map((i) => want[i]));
      expect(await plain.embed(subsetOf(files, picked), 'document')).toEqual(picked.map((i) => want[i]));
    } finally {
      await plain.dispose();
      await spilling.dispose();
    }
  });
});
