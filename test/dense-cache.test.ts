import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';
import { Embedder, type EmbedderOptions } from '../src/retrieval/dense/embedding/embedder.js';
import { resolveModel } from '../src/models/resolve.js';
import { encodeWithCache, type EncodeOptions } from '../src/retrieval/dense/embedding/encode-cached.js';
import { decodeChunk, decodeChunkFile, embeddingConfigKey, EMBEDDINGS_KIND, encodeChunk, textKey, type EmbeddingKeyParts } from '../src/retrieval/dense/embedding/embedding-cache.js';
import { clearFileHashMemo, fileSha256 } from '../src/cache/file-sha256.js';
import { CacheStore, entryHeader } from '../src/cache/store.js';
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
    flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 0xff; // a vector byte
    writeFileSync(files[0]!, flipped);
    const cut = readFileSync(files[1]!);
    writeFileSync(files[1]!, cut.subarray(0, cut.length - 7));

    const b = await encodeWithCache(embedder, TEXTS, 'document', options(cacheDir, logs));
    expect(b.stats.corruptChunks).toBe(2);
    expect(b.stats.encoded).toBe(16);
    expect(b.stats.misses).toBe(16);
    expect(logs).toHaveLength(2);
    expect(logs[0]).toBe(`cache: embeddings entry ${files[0]!} is damaged (checksum mismatch); computing it again`);
    expect(logs[1]).toMatch(/^cache: embeddings entry .* is damaged \(body is \d+ bytes, the header says \d+\); computing it again$/);
    expect(logs[1]).toContain(files[1]!);
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
  it('round-trips, and checks the keys against the chunk key and the group', () => {
    const group = 'c'.repeat(64);
    const keys = [textKey(group, 'a'), textKey(group, 'b')];
    const entries = [
      { vector: Float32Array.from([1, -2.5, 3e-8]), truncated: true, usedTokens: 8 },
      { vector: Float32Array.from([0, 0.1, Math.PI]), truncated: false, usedTokens: 3 },
    ];
    const { key, body } = encodeChunk(group, keys, entries);
    expect(body.length).toBe(8 + 2 * 40 + 2 * 3 * 4);
    const back = decodeChunk(group, key, body);
    expect(back.keys).toEqual(keys);
    expect(back.entries).toEqual(entries);
    // Under another key or another group: not this chunk.
    expect(() => decodeChunk(group, '0'.repeat(64), body)).toThrow('its texts are not those of its key');
    expect(() => decodeChunk('d'.repeat(64), key, body)).toThrow('its texts are not those of its key');
    // The truncated flag is 0 or 1.
    expect(body.readUInt32LE(8 + 32)).toBe(1);
    expect(body.readUInt32LE(8 + 40 + 32)).toBe(0);
    const badFlag = Buffer.from(body);
    badFlag.writeUInt32LE(10, 8 + 32);
    expect(() => decodeChunk(group, key, badFlag)).toThrow('record 0: truncated flag 10, expected 0 or 1');
    // A whole file: the store's header (kind, format, key, length, SHA-256), then the body.
    const file = Buffer.concat([entryHeader(EMBEDDINGS_KIND, key, body), body]);
    expect(file.toString('latin1', 0, file.indexOf(10))).toBe(`skillret-cache 1 embeddings emb-chunk-v3 ${key} ${String(body.length).padStart(16, '0')} ${createHash('sha256').update(body).digest('hex')}`);
    expect(decodeChunkFile(group, key, file).entries).toEqual(entries);
    // A chunk of version 2 (its own magic and trailer, no store header) is not read.
    expect(() => decodeChunkFile(group, key, Buffer.concat([Buffer.from('SKRETEMB'), body]))).toThrow('no header line');
  });
});

describe('model file hash memo', () => {
  it('hashes once per (path, size, mtime) and persists the result; a damaged memo entry is reported and hashed again', async () => {
    const f = join(root, 'model.bin');
    writeFileSync(f, 'abc');
    const logs: string[] = [];
    const dir = CacheStore.of({ cacheDir: join(root, 'hashes'), useCache: true, log: (l) => logs.push(l) });
    const h = await fileSha256(f, dir);
    expect(h).toBe(await sha256File(f));
    const memoDir = join(dir.root, 'file-sha256');
    const [name] = readdirSync(memoDir);
    const entry = join(memoDir, name!);
    const text = readFileSync(entry, 'utf8');
    expect(text.split('\n')[1]).toBe(h);
    // A stored value is trusted for the same file version (proves it is read, not recomputed).
    const key = name!.replace(/\.txt$/, '');
    const forged = Buffer.from(`${'f'.repeat(64)}\n`);
    writeFileSync(entry, Buffer.concat([entryHeader({ ...EMBEDDINGS_KIND, name: 'file-sha256', format: 'file-sha256-v1', ext: 'txt' }, key, forged), forged]));
    clearFileHashMemo();
    expect(await fileSha256(f, dir)).toBe('f'.repeat(64));
    // A damaged entry: reported in one line, hashed again, rewritten.
    writeFileSync(entry, text.replace(h, 'e'.repeat(64)));
    clearFileHashMemo();
    expect(await fileSha256(f, dir)).toBe(h);
    expect(logs).toEqual([`cache: file-sha256 entry ${entry} is damaged (checksum mismatch); computing it again`]);
    expect(readFileSync(entry, 'utf8')).toBe(text);
    // Changing the file changes its version: hashed again.
    writeFileSync(f, 'abcd');
    clearFileHashMemo();
    expect(await fileSha256(f, dir)).toBe(await sha256File(f));
  });
});
