/**
 * BM25 on worker threads (parallel.ts) equals the single-thread path: the same index, byte for byte
 * once serialized (vocabulary order included), and the same hits (ids, order and float32 scores),
 * for any number of threads and chunk size. Corpus: the bm25s reference fixture with Unicode edge
 * cases, duplicates and a 25-way tie (test/fixtures/bm25s/synthetic.json).
 * The workers run the compiled code in dist/ (npm test builds it first).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBm25IndexFromTexts } from '../src/retrieval/bm25/corpus.js';
import { Bm25Pool, buildBm25IndexParallel, queryBm25IndexParallel } from '../src/retrieval/bm25/parallel.js';
import { queryBm25Index } from '../src/retrieval/bm25/query.js';
import { runBm25Stage } from '../src/retrieval/bm25/stage.js';
import { serializeBm25Index } from '../src/retrieval/bm25/serialize.js';
import { silentProgress } from '../src/util/progress.js';
import { writeFileSync, statSync } from 'node:fs';
import { JsonlDocStore, MemoryDocStore } from '../src/data/doc-store.js';

interface Fixture {
  docs: Array<{ id: string; text: string }>;
  queries: Array<{ id: string; text: string }>;
}
const fx = JSON.parse(readFileSync(new URL('./fixtures/bm25s/synthetic.json', import.meta.url), 'utf8')) as Fixture;
// Repeat the corpus with new ids so there are many chunks and ties across chunks.
const docs = [0, 1, 2].flatMap((r) => fx.docs.map((d) => ({ id: `${d.id}-${r}`, text: r === 2 ? d.text.toUpperCase() : d.text })));
const texts = docs.map((d) => d.text);
const ids = docs.map((d) => d.id);
const queries = [...fx.queries, { id: 'stop-only', text: 'the and of' }, { id: 'empty', text: '' }];

const dir = mkdtempSync(join(tmpdir(), 'skillret-bm25-parallel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('BM25 worker threads', () => {
  const single = buildBm25IndexFromTexts(texts);
  const { run: singleRun, stats: singleStats } = queryBm25Index(single.index, ids, queries, 20);

  it.each([
    [1, 1],
    [2, 500],
    [3, 5000],
  ])('threads %i, chunks of %i characters: same index bytes and same run', async (threads, chunkChars) => {
    const pool = new Bm25Pool(threads);
    try {
      const built = await buildBm25IndexParallel(pool, texts, {}, undefined, chunkChars);
      expect([...built.index.vocab]).toEqual([...single.index.vocab]);
      expect(built.totalTokens).toBe(single.totalTokens);
      expect(Buffer.compare(serializeBm25Index(built.index), serializeBm25Index(single.index))).toBe(0);
      const { run, stats } = await queryBm25IndexParallel(pool, built.index, ids, queries, 20, undefined, 7);
      expect([...run.keys()]).toEqual([...singleRun.keys()]);
      for (const [q, hits] of singleRun) expect(run.get(q), q).toEqual(hits);
      expect([stats.noneQueries, stats.emptyQueries]).toEqual([singleStats.noneQueries, singleStats.emptyQueries]);
      expect(stats.noneQueries).toBeGreaterThanOrEqual(2);
      // searching the index built in process (not on shared memory) gives the same run too
      const again = await queryBm25IndexParallel(pool, single.index, ids, queries, 20);
      for (const [q, hits] of singleRun) expect(again.run.get(q), q).toEqual(hits);
    } finally {
      await pool.close();
    }
  });

  it('the stage writes the same cache file and run with and without threads', async () => {
    const ctxFor = (sub: string) => ({ cacheDir: join(dir, sub), useCache: true, offline: true, progress: silentProgress, log: () => {} });
    const input = { docIds: ids, docTexts: texts, queries, k: 20 };
    const a = await runBm25Stage(ctxFor('a'), { ...input, threads: 0 });
    const b = await runBm25Stage(ctxFor('b'), { ...input, threads: 2 });
    expect([...b.run]).toEqual([...a.run]);
    const file = (sub: string) => readFileSync(join(dir, sub, 'bm25', readdirSync(join(dir, sub, 'bm25'))[0]!));
    expect(Buffer.compare(file('a'), file('b'))).toBe(0);
    const hit = await runBm25Stage(ctxFor('b'), { ...input, threads: 2 });
    expect(hit.stats.cache).toBe('hit');
    expect([...hit.run]).toEqual([...a.run]);
  });

  it('workers reading a file-backed store by offset give the same index and run as texts in memory', async () => {
    // The corpus as a skills file (CRLF line ends, the text as skill_md): the stage's texts are
    // "id |  | text" trimmed, on both sides.
    const path = join(dir, 'skills.jsonl');
    writeFileSync(path, docs.map((d) => JSON.stringify({ id: d.id, name: d.id, skill_md: d.text })).join('\r\n') + '\r\n');
    const bytes = readFileSync(path);
    const offsets: number[] = [];
    const lengths: number[] = [];
    let at = 0;
    for (;;) {
      const end = bytes.indexOf('\r\n', at);
      if (end < 0) break;
      offsets.push(at);
      lengths.push(end - at);
      at = end + 2;
    }
    const st = statSync(path);
    const store = new JsonlDocStore({ kind: 'jsonl', path, bytes: st.size, mtimeMs: st.mtimeMs, skillMdField: 'skill_md', fields: ['name', 'description', 'skill_md'], separator: ' | ', ids, offsets: Float64Array.from(offsets), lengths: Uint32Array.from(lengths) });
    const inMemory = new MemoryDocStore(docs.map((d) => ({ id: d.id, text: [...store.texts()][ids.indexOf(d.id)]! })));
    const memTexts = [...inMemory.texts()];
    expect(memTexts[0]).toBe(`${ids[0]} |  | ${docs[0]!.text.trim()}`.trim());
    const ctx = { cacheDir: join(dir, 'file'), useCache: false, offline: true, progress: silentProgress, log: () => {} };
    const fromFile = await runBm25Stage(ctx, { docs: store, queries, k: 20, threads: 2 });
    const fromMemory = await runBm25Stage(ctx, { docIds: ids, docTexts: memTexts, queries, k: 20, threads: 0 });
    expect([...fromFile.run]).toEqual([...fromMemory.run]);
    expect(fromFile.stats.totalTokens).toBe(fromMemory.stats.totalTokens);
    const pool = new Bm25Pool(2);
    try {
      const a = await buildBm25IndexParallel(pool, store, {}, undefined, 700);
      const b = buildBm25IndexFromTexts(memTexts);
      expect(Buffer.compare(serializeBm25Index(a.index), serializeBm25Index(b.index))).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
