import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';
import { Embedder, type EmbedderOptions } from '../src/retrieval/dense/embedder.js';
import { resolveModel } from '../src/models/resolve.js';
import { encodeWithCache, type EncodeOptions } from '../src/retrieval/dense/encode-cached.js';
import { decodeChunk, embeddingConfigKey, encodeChunk, textKey, type EmbeddingKeyParts } from '../src/retrieval/dense/cache.js';
import { clearFileHashMemo, fileSha256 } from '../src/util/file-sha256.js';
import { sha256File } from '../src/util/hash.js';

let root: string;
let enc: TinyModelInfo;
let embedder: Embedder;

const WORDS = ['skill', 'search', 'agent', 'code', 'data', 'file', 'test', 'user', 'query', 'deploy', 'review', 'git'];
/** 40 distinct texts of varied length (so batches differ). */
const TEXTS = Array.from({ length: 40 }, (_, i) =>
  Array.from({ length: 1 + ((i * 7) % 13) }, (_, j) => WORDS[(i + j * 5) % WORDS.length]).join(' ') + ` ${WORDS[i % 12]}`,
);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skr-cache-'));
  enc = buildTinyEncoder(join(root, 'enc'), { seed: 9 });
  const loc = { offline: true, cacheDir: join(root, 'ignored'), modelsDir: join(root, 'models') };
  const opts: EmbedderOptions = { queryPrefix: 'query ', docPrefix: '', pooling: 'mean', normalize: true, maxTokens: 32, dtype: 'fp32', batchSize: 4, threads: 1 };
  embedder = await Embedder.load(resolveModel(enc.dir, loc), opts, loc);
});
afterAll(async () => {
  await embedder.dispose();
  rmSync(root, { recursive: true, force: true });
});

function options(cacheDir: string, logs: string[], extra: Partial<EncodeOptions> = {}, useCache = true): EncodeOptions {
  return {
    cache: { cacheDir, useCache, log: (l) => logs.push(l), chunkSize: 8 },
    modelSha256: 'm'.repeat(64),
    tokenizerSha256: 't'.repeat(64),
    ...extra,
  };
}

function chunkFiles(cacheDir: string): string[] {
  const base = join(cacheDir, 'embeddings');
  if (!existsSync(base)) return [];
  return readdirSync(base).flatMap((k) => readdirSync(join(base, k)).map((f) => join(base, k, f)));
}

describe('embedding cache', () => {
  it('second run: all hits, zero texts encoded, same vectors; duplicates are encoded once', async () => {
    const cacheDir = join(root, 'c1');
    const logs: string[] = [];
    const texts = [...TEXTS, TEXTS[0]!, TEXTS[1]!];
    const a = await encodeWithCache(embedder, texts, 'document', options(cacheDir, logs));
    expect(a.stats).toMatchObject({ hits: 0, misses: 42, encoded: 40, corruptChunks: 0, chunksWritten: 5 });
    let batches = 0;
    const b = await encodeWithCache(embedder, texts, 'document', options(cacheDir, logs, { onBatch: () => void batches++ }));
    expect(b.stats).toMatchObject({ hits: 42, misses: 0, encoded: 0, run: null, chunksWritten: 0 });
    expect(batches).toBe(0);
    expect(b.vectors).toEqual(a.vectors);
    expect(a.vectors[40]).toEqual(a.vectors[0]);
    expect(logs).toEqual([]);
  });

  it('keys cover role/prefix, model and text: a different role or model hash misses', async () => {
    const cacheDir = join(root, 'c2');
    const logs: string[] = [];
    await encodeWithCache(embedder, TEXTS.slice(0, 5), 'document', options(cacheDir, logs));
    const q = await encodeWithCache(embedder, TEXTS.slice(0, 5), 'query', options(cacheDir, logs));
    expect(q.stats.hits).toBe(0);
    const m = await encodeWithCache(embedder, TEXTS.slice(0, 5), 'document', options(cacheDir, logs, { modelSha256: 'x'.repeat(64) }));
    expect(m.stats.hits).toBe(0);
    const parts: EmbeddingKeyParts = { modelSha256: 'a', tokenizerSha256: 'b', dtype: 'fp32', pooling: 'cls', normalize: true, role: 'query', prefix: 'p', maxTokens: 512, batching: { scheme: 'length-buckets-v1', batchSize: 32, maxBatchTokens: 16384 } };
    const k = embeddingConfigKey(parts);
    for (const change of [{ dtype: 'q8' }, { pooling: 'mean' }, { normalize: false }, { role: 'document' as const }, { prefix: 'p ' }, { maxTokens: 511 }, { tokenizerSha256: 'c' }, { batching: { scheme: 'length-buckets-v1' as const, batchSize: 16, maxBatchTokens: 16384 } }]) {
      expect(embeddingConfigKey({ ...parts, ...change })).not.toBe(k);
    }
    expect(textKey(k, 'a')).not.toBe(textKey(k, 'a '));
  });

  it('a corrupt or truncated chunk is reported once, deleted, and its texts re-encoded', async () => {
    const cacheDir = join(root, 'c3');
    const logs: string[] = [];
    const a = await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs));
    const files = chunkFiles(cacheDir).sort();
    expect(files).toHaveLength(5);
    const flipped = readFileSync(files[0]!);
    flipped[100] = flipped[100]! ^ 0xff;
    writeFileSync(files[0]!, flipped);
    const cut = readFileSync(files[1]!);
    writeFileSync(files[1]!, cut.subarray(0, cut.length - 7));

    const b = await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs));
    expect(b.stats.corruptChunks).toBe(2);
    expect(b.stats.encoded).toBe(16);
    expect(b.stats.misses).toBe(16);
    expect(logs).toHaveLength(2);
    expect(logs[0]).toContain(files[0]!);
    expect(logs[0]).toContain('checksum mismatch');
    expect(logs[1]).toMatch(/bytes, expected/);
    b.vectors.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(a.vectors[i]!)));
    // Third run: whole again.
    const c = await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs));
    expect(c.stats).toMatchObject({ hits: 40, encoded: 0, corruptChunks: 0 });
    expect(logs).toHaveLength(2);
  });

  it('resumes a run killed mid-way: only the missing texts are encoded, vectors unchanged', async () => {
    const cacheDir = join(root, 'c4');
    const logs: string[] = [];
    let n = 0;
    const seenFirst = new Set<number>();
    await expect(
      encodeWithCache(
        embedder,
        TEXTS,
        'document',
        options(cacheDir, logs, {
          onBatch: (b) => {
            b.indices.forEach((i) => seenFirst.add(i));
            if (++n === 3) throw new Error('killed');
          },
        }),
      ),
    ).rejects.toThrow('killed');
    expect(seenFirst.size).toBe(12); // 3 batches of 4
    const encodedSecond: string[] = [];
    const b = await encodeWithCache(
      embedder,
      TEXTS,
      'document',
      options(cacheDir, logs, { onBatch: (x) => void x.indices.forEach((i) => encodedSecond.push(String(i))) }),
    );
    expect(b.stats).toMatchObject({ hits: 12, misses: 28, encoded: 28 });
    expect(encodedSecond).toHaveLength(28);
    const fresh = await encodeWithCache(embedder, TEXTS, 'document', options(join(root, 'c4-fresh'), logs));
    b.vectors.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(fresh.vectors[i]!)));
  });

  it('useCache false: nothing read or written', async () => {
    const cacheDir = join(root, 'c5');
    const logs: string[] = [];
    await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs, {}, false));
    expect(chunkFiles(cacheDir)).toEqual([]);
    await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs)); // fill
    const again = await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs, {}, false));
    expect(again.stats).toMatchObject({ hits: 0, encoded: 40 });
  });

  it('counts truncation for cached texts too (a truncated flag is stored with each vector)', async () => {
    const cacheDir = join(root, 'c6');
    const logs: string[] = [];
    const long = Array.from({ length: 50 }, (_, i) => WORDS[i % WORDS.length]).join(' '); // 52 tokens > 32
    const a = await encodeWithCache(embedder, [long, 'skill'], 'document', options(cacheDir, logs));
    const b = await encodeWithCache(embedder, [long, 'skill'], 'document', options(cacheDir, logs));
    for (const s of [a.stats, b.stats]) expect(s).toMatchObject({ truncatedTexts: 1 });
    expect(b.stats.encoded).toBe(0);
  });
});

describe('chunk format', () => {
  it('round-trips and checks the name against the keys', () => {
    const keys = [textKey('k', 'a'), textKey('k', 'b')];
    const entries = [
      { vector: Float32Array.from([1, -2.5, 3e-8]), truncated: true, usedTokens: 8 },
      { vector: Float32Array.from([0, 0.1, Math.PI]), truncated: false, usedTokens: 3 },
    ];
    const { name, bytes } = encodeChunk(keys, entries);
    expect(bytes.length).toBe(24 + 2 * 40 + 2 * 3 * 4 + 32);
    expect(bytes.toString('latin1', 0, 8)).toBe('SKRETEMB');
    const back = decodeChunk(name, bytes);
    expect(back.keys).toEqual(keys);
    expect(back.entries).toEqual(entries);
    expect(() => decodeChunk('0'.repeat(32) + '.bin', bytes)).toThrow('keys do not match the file name');
    // Version 2 holds a truncated flag where version 1 held a token count: neither is read as the other.
    expect(bytes.readUInt32LE(8)).toBe(2);
    expect(bytes.readUInt32LE(24 + 32)).toBe(1);
    expect(bytes.readUInt32LE(24 + 40 + 32)).toBe(0);
    const v1 = Buffer.from(bytes);
    v1.writeUInt32LE(1, 8);
    expect(() => decodeChunk(name, v1)).toThrow('version 1, expected 2');
    const badFlag = Buffer.from(bytes);
    badFlag.writeUInt32LE(10, 24 + 32);
    const body = badFlag.length - 32;
    createHash('sha256').update(badFlag.subarray(0, body)).digest().copy(badFlag, body);
    expect(() => decodeChunk(name, badFlag)).toThrow('record 0: truncated flag 10, expected 0 or 1');
  });
});

describe('model file hash memo', () => {
  it('hashes once per (path, size, mtime) and persists the result', async () => {
    const f = join(root, 'model.bin');
    writeFileSync(f, 'abc');
    const dir = join(root, 'hashes');
    const h = await fileSha256(f, dir);
    expect(h).toBe(await sha256File(f));
    const store = JSON.parse(readFileSync(join(dir, 'file-sha256.json'), 'utf8')) as Record<string, string>;
    expect(Object.values(store)).toEqual([h]);
    // A stored value is trusted for the same fingerprint (proves it is read, not recomputed).
    const key = Object.keys(store)[0]!;
    writeFileSync(join(dir, 'file-sha256.json'), JSON.stringify({ [key]: 'f'.repeat(64) }));
    clearFileHashMemo();
    expect(await fileSha256(f, dir)).toBe('f'.repeat(64));
    // Changing the file changes the fingerprint: hashed again.
    writeFileSync(f, 'abcd');
    clearFileHashMemo();
    expect(await fileSha256(f, dir)).toBe(await sha256File(f));
  });
});
