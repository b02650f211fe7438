import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StageContext } from '../src/core/context.js';
import { silentProgress } from '../src/util/progress.js';
import { buildBm25IndexFromTexts } from '../src/retrieval/bm25/corpus.js';
import { bm25CacheKey, bm25Stage, runBm25Stage } from '../src/retrieval/bm25/stage.js';
import { Bm25IndexFormatError, deserializeBm25Index, readBm25IndexFile, serializeBm25Index, writeBm25IndexFile } from '../src/retrieval/bm25/serialize.js';
import { searchBm25 } from '../src/retrieval/bm25/search.js';
import { expectSameIndex } from './helpers/bm25-index.js';

const TEXTS = ['cat cat dog', 'dog bird', 'the fish', '', 'ΟΔΟΣ café 数据库 𝐀𝐁 snake_case', 'dog dog dog bird cat'];
const built = () => buildBm25IndexFromTexts(TEXTS, { k1: 1.2, b: 0.7 }).index;

describe('BM25 index serialization', () => {
  it('round-trips every field and gives identical search results', () => {
    const index = built();
    const buf = serializeBm25Index(index);
    expect(buf.subarray(0, 8).toString('latin1')).toBe('SRBM25IX');
    expect(buf.length % 8).toBe(0);
    const back = deserializeBm25Index(buf);
    expectSameIndex(back, index);
    expect(searchBm25(back, ['dog', 'cat', '数据库'], 10)).toEqual(searchBm25(index, ['dog', 'cat', '数据库'], 10));
  });

  it('is deterministic (same index -> same bytes)', () => {
    expect(serializeBm25Index(built()).equals(serializeBm25Index(built()))).toBe(true);
  });

  it('reads from an unaligned view', () => {
    const buf = serializeBm25Index(built());
    const shifted = Buffer.alloc(buf.length + 3);
    buf.copy(shifted, 3);
    expectSameIndex(deserializeBm25Index(shifted.subarray(3)), built());
  });

  it('round-trips an empty index', () => {
    const empty = buildBm25IndexFromTexts([]).index;
    const back = deserializeBm25Index(serializeBm25Index(empty));
    expect(back.numDocs).toBe(0);
    expect(back.vocab.size).toBe(0);
  });

  it('detects corruption', () => {
    const good = serializeBm25Index(built());
    const flipped = Buffer.from(good);
    flipped[200] = flipped[200]! ^ 0x01; // inside the postings
    expect(() => deserializeBm25Index(flipped)).toThrow(/checksum/);
    expect(() => deserializeBm25Index(good.subarray(0, good.length - 1))).toThrow(Bm25IndexFormatError);
    expect(() => deserializeBm25Index(Buffer.concat([good, Buffer.alloc(8)]))).toThrow(/length/);
    expect(() => deserializeBm25Index(good.subarray(0, 10))).toThrow(/too short/);
    const magic = Buffer.from(good);
    magic[0] = 0x58;
    expect(() => deserializeBm25Index(magic)).toThrow(/magic/);
    const version = Buffer.from(good);
    version.writeUInt32LE(99, 8);
    expect(() => deserializeBm25Index(version)).toThrow(/version 99/);
    const counts = Buffer.from(good);
    counts.writeUInt32LE(counts.readUInt32LE(16) + 1, 16); // numDocs
    expect(() => deserializeBm25Index(counts)).toThrow(Bm25IndexFormatError);
  });
});

describe('BM25 index files (streamed)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillret-bm25-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the bytes serializeBm25Index makes, atomically, and reads them back onto shared memory when asked', () => {
    for (const [name, index] of [['full', built()], ['empty', buildBm25IndexFromTexts([]).index]] as const) {
      const file = join(dir, 'sub', `${name}.bin`);
      writeBm25IndexFile(file, index);
      expect(readFileSync(file).equals(serializeBm25Index(index))).toBe(true);
      expect(readdirSync(join(dir, 'sub')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const plain = readBm25IndexFile(file);
      expectSameIndex(plain, index);
      expect(plain.postingDoc.buffer instanceof SharedArrayBuffer).toBe(false);
      const shared = readBm25IndexFile(file, { shared: true });
      expectSameIndex(shared, index);
      for (const a of [shared.idf, shared.postingStart, shared.postingDoc, shared.postingScore]) expect(a.buffer instanceof SharedArrayBuffer).toBe(true);
    }
  });

  it('writes an index whose arrays are on shared memory or are views at an offset', () => {
    const index = built();
    const onShared = readBm25IndexFile((() => {
      const f = join(dir, 'a.bin');
      writeBm25IndexFile(f, index);
      return f;
    })(), { shared: true });
    const f2 = join(dir, 'b.bin');
    writeBm25IndexFile(f2, onShared);
    expect(readFileSync(f2).equals(serializeBm25Index(index))).toBe(true);
    const big = new Int32Array(index.docLen.length + 5);
    big.set(index.docLen, 5);
    const f3 = join(dir, 'c.bin');
    writeBm25IndexFile(f3, { ...index, docLen: big.subarray(5) });
    expect(readFileSync(f3).equals(serializeBm25Index(index))).toBe(true);
  });

  it('detects the corruption deserializeBm25Index detects', () => {
    const good = serializeBm25Index(built());
    const check = (bytes: Buffer, why: RegExp): void => {
      const f = join(dir, 'bad.bin');
      writeFileSync(f, bytes);
      expect(() => readBm25IndexFile(f)).toThrow(Bm25IndexFormatError);
      expect(() => readBm25IndexFile(f)).toThrow(why);
    };
    const flipped = Buffer.from(good);
    flipped[200] = flipped[200]! ^ 0x01;
    check(flipped, /checksum/);
    const inPadding = Buffer.from(good);
    inPadding[good.length - 33] = 1; // the last byte before the checksum: blob padding or blob
    check(inPadding, /checksum|UTF-8|term/);
    check(good.subarray(0, good.length - 1), /length/);
    check(Buffer.concat([good, Buffer.alloc(8)]), /length/);
    check(good.subarray(0, 10), /too short/);
    const magic = Buffer.from(good);
    magic[0] = 0x58;
    check(magic, /magic/);
    const version = Buffer.from(good);
    version.writeUInt32LE(99, 8);
    check(version, /version 99/);
  });
});

describe('BM25 stage cache', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const makeCtx = (useCache = true): { ctx: StageContext; logs: string[] } => {
    const dir = mkdtempSync(join(tmpdir(), 'bm25-cache-'));
    dirs.push(dir);
    const logs: string[] = [];
    return { ctx: { cacheDir: dir, useCache, offline: true, progress: silentProgress, log: (l) => logs.push(l) }, logs };
  };
  const input = {
    docIds: TEXTS.map((_, i) => `s${i}`),
    docTexts: TEXTS,
    queries: [
      { id: 'q1', text: 'dog cat' },
      { id: 'q2', text: 'the' },
    ],
    k: 3,
  };

  it('builds and stores on a miss, loads on a hit, same run', async () => {
    const { ctx, logs } = makeCtx();
    const first = await runBm25Stage(ctx, input);
    expect(first.stats.cache).toBe('miss');
    const key = bm25CacheKey(TEXTS, { k1: 1.5, b: 0.75 });
    const files = readdirSync(join(ctx.cacheDir, 'bm25')).sort();
    expect(files).toEqual([`${key}.bin`, `${key}.runs`]);
    expect(readdirSync(join(ctx.cacheDir, 'bm25', `${key}.runs`))).toHaveLength(1);
    const second = await runBm25Stage(ctx, input);
    expect(second.stats.cache).toBe('hit');
    expect(second.run).toEqual(first.run);
    expect(second.stats.totalTokens).toBe(first.stats.totalTokens);
    expect(logs).toEqual([]);
    expect(first.run.get('q1')!.map((d) => d.docId)).toEqual(['s0', 's5', 's1']);
  });

  it('keys the cache on params and every text', () => {
    const base = bm25CacheKey(TEXTS, { k1: 1.5, b: 0.75 });
    expect(bm25CacheKey(TEXTS, { k1: 1.2, b: 0.75 })).not.toBe(base);
    expect(bm25CacheKey(TEXTS, { k1: 1.5, b: 0.7 })).not.toBe(base);
    expect(bm25CacheKey([...TEXTS.slice(0, -1), 'dog dog dog bird cat '], { k1: 1.5, b: 0.75 })).not.toBe(base);
    // boundaries between texts matter
    expect(bm25CacheKey(['ab', 'c'], { k1: 1.5, b: 0.75 })).not.toBe(bm25CacheKey(['a', 'bc'], { k1: 1.5, b: 0.75 }));
  });

  it('logs and rebuilds a corrupt cache file', async () => {
    const { ctx, logs } = makeCtx();
    const first = await runBm25Stage(ctx, input);
    const file = first.stats.cacheFile!;
    const bytes = readFileSync(file);
    bytes[bytes.length - 40] = bytes[bytes.length - 40]! ^ 0xff;
    writeFileSync(file, bytes);
    rmSync(file.replace(/\.bin$/, '.runs'), { recursive: true }); // else the cached run answers
    const second = await runBm25Stage(ctx, input);
    expect(second.stats.cache).toBe('miss');
    expect(second.run).toEqual(first.run);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toBe(`cache: bm25-index entry ${file} is damaged (invalid BM25 index file: checksum mismatch); computing it again`);
    expect((await runBm25Stage(ctx, input)).stats.cache).toBe('hit');
  });

  it('a warm rerun reads the cached run; new queries or k score on the cached index; a bad run file is recomputed', async () => {
    const { ctx, logs } = makeCtx();
    const first = await runBm25Stage(ctx, input);
    const runsDir = first.stats.cacheFile!.replace(/\.bin$/, '.runs');
    // the index file is not needed by a warm rerun of the same queries
    rmSync(first.stats.cacheFile!);
    const warm = await runBm25Stage(ctx, input);
    expect(warm.stats.cache).toBe('hit');
    expect([...warm.run]).toEqual([...first.run]);
    const facts = (s: typeof first.stats) => [s.numDocs, s.vocabSize, s.avgdl, s.totalTokens, s.noneQueries, s.emptyQueries, s.numQueries];
    expect(facts(warm.stats)).toEqual(facts(first.stats));
    expect(existsSync(first.stats.cacheFile!)).toBe(false);
    // other k, other queries: scored (index rebuilt here since it was removed), each its own file
    const k2 = await runBm25Stage(ctx, { ...input, k: 1 });
    expect(k2.run.get('q1')).toEqual(first.run.get('q1')!.slice(0, 1));
    const other = await runBm25Stage(ctx, { ...input, queries: [{ id: 'q9', text: 'bird' }] });
    expect(other.stats.cache).toBe('hit');
    expect(readdirSync(runsDir)).toHaveLength(3);
    // a damaged run file: one log line, recomputed, rewritten
    for (const f of readdirSync(runsDir)) writeFileSync(join(runsDir, f), '{"format":');
    const again = await runBm25Stage(ctx, input);
    expect([...again.run]).toEqual([...first.run]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^cache: bm25-run entry .*\.runs\/[0-9a-f]{64}\.json is damaged \(.+\); computing it again$/);
    expect([...(await runBm25Stage(ctx, input)).run]).toEqual([...first.run]);
    expect(logs).toHaveLength(1);
  });

  it('keeps the index format: the entry is the store header, then serializeBm25Index bytes; damage to either is reported', async () => {
    const { ctx, logs } = makeCtx();
    const first = await runBm25Stage(ctx, { ...input, threads: 0 });
    const file = first.stats.cacheFile!;
    const bytes = readFileSync(file);
    const nl = bytes.indexOf(10);
    const head = bytes.toString('latin1', 0, nl);
    expect(head).toMatch(/^skillret-cache 1 bm25-index bm25-index-v1 [0-9a-f]{64} \d{16} self$/);
    const body = bytes.subarray(nl + 1);
    expect(body.equals(serializeBm25Index(buildBm25IndexFromTexts(TEXTS, { k1: 1.5, b: 0.75 }).index))).toBe(true);
    expect(Number(head.split(' ')[5])).toBe(body.length);
    const runs = file.replace(/\.bin$/, '.runs');
    const otherKey = Buffer.from(head.replace(/ [0-9a-f]{64} /, ` ${'0'.repeat(64)} `) + '\n', 'latin1');
    const damaged: [Buffer, RegExp][] = [
      [bytes.subarray(0, bytes.length - 1), /body is \d+ bytes, the header says \d+/],
      [Buffer.concat([bytes, Buffer.from([0])]), /body is \d+ bytes, the header says \d+/],
      [Buffer.concat([otherKey, body]), /holds another key, 0{16}…/],
      [bytes.subarray(0, 20), /no header line/],
      [Buffer.concat([bytes.subarray(0, nl + 1), Buffer.from(body).fill(7, 0, 8)]), /invalid BM25 index file: bad magic/],
    ];
    for (const [bad, why] of damaged) {
      writeFileSync(file, bad);
      rmSync(runs, { recursive: true, force: true }); // else the cached run answers
      logs.length = 0;
      const again = await runBm25Stage(ctx, { ...input, threads: 0 });
      expect(again.stats.cache).toBe('miss');
      expect([...again.run]).toEqual([...first.run]);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(new RegExp(`^cache: bm25-index entry ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(${why.source}\\); computing it again$`));
      expect(readFileSync(file).equals(bytes)).toBe(true);
    }
  });

  it('neither reads nor writes with useCache false', async () => {
    const { ctx } = makeCtx(false);
    const out = await runBm25Stage(ctx, input);
    expect(out.stats.cache).toBe('off');
    expect(readdirSync(ctx.cacheDir)).toEqual([]);
  });

  it('serves the first-stage adapter', async () => {
    const { ctx } = makeCtx(false);
    const out = await bm25Stage(ctx, { topK: 2 }, TEXTS.map((text, i) => ({ id: `s${i}`, text })), input.queries);
    expect(out.run.get('q1')!.map((d) => d.docId)).toEqual(['s0', 's5']);
    expect(out.info).toMatchObject({ num_docs: 6, none_queries: 1, cache: 'off' });
  });
});
