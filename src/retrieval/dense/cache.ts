/**
 * Content-addressed embedding cache under `<cacheDir>/embeddings/<config key>/`.
 *
 * Config key = sha256 of (format, model file sha256, tokenizer sha256, dtype, pooling,
 * normalisation, role, prefix, effective max tokens); per-text key = sha256(config key, text).
 * So any change of model bytes, settings, prompt or text misses (docs/protocol.md §7 rule 8).
 * For a remote embedding server the model bytes are unknown: its config key covers the API,
 * the model name, the model id and revision the server reports, role, prefix and
 * normalisation instead (`remoteEmbeddingConfigKey`; not the URL, so a moved server keeps its cache).
 *
 * Vectors are written as encoding proceeds, in chunk files of up to 256 vectors, each written
 * atomically, so a killed run keeps what it finished. Chunk file (little-endian):
 *   0  "SKRETEMB" magic          8  u32 version (2)     12 u32 dim
 *   16 u32 count                 20 u32 reserved (0)
 *   24 count x { key[32], u32 truncated (1: the text had more tokens than the model kept, else 0),
 *                u32 tokens used }
 *      count x dim x f32 vectors
 *      sha256[32] of every byte before it
 * named `<first 32 hex of sha256(keys)>.bin`. On load every chunk is checked (length, magic,
 * version, dim, count, name vs keys, checksum); a bad one is reported with one log line,
 * deleted, and its texts count as misses (recomputed and rewritten).
 * With `useCache: false` nothing is read or written.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { writeFileAtomic } from '../../util/atomic.js';
import { sha256Hex, stableStringify } from '../../util/hash.js';

export const CHUNK_MAGIC = 'SKRETEMB';
/** 2: the record holds a truncated flag where version 1 held the token count before truncation. */
export const CHUNK_VERSION = 2;
const HEADER = 24;
const RECORD = 40;
const TRAILER = 32;
/** Float32Array bytes are the file's little-endian floats as they are (else written one by one). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface EmbeddingKeyParts {
  modelSha256: string;
  tokenizerSha256: string;
  dtype: string;
  pooling: string;
  normalize: boolean;
  role: 'query' | 'document';
  prefix: string;
  /** Effective token limit (after min with the model's maximum). */
  maxTokens: number;
  /**
   * The batching rule and its limits: they fix each text's tensor shape (length bucket x rows per
   * batch, see util/batch-plan.ts), hence the low bits of its vector.
   */
  batching: { scheme: 'length-buckets-v1'; batchSize: number; maxBatchTokens: number };
}

export interface CachedEmbedding {
  vector: Float32Array;
  /** Whether the text had more tokens than the model kept. */
  truncated: boolean;
  /** Tokens fed to the model. */
  usedTokens: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  corruptChunks: number;
  chunksRead: number;
  chunksWritten: number;
}

export function embeddingConfigKey(p: EmbeddingKeyParts): string {
  return sha256Hex(stableStringify({ format: `skillret-emb-v${CHUNK_VERSION}`, ...p }));
}

export interface RemoteEmbeddingKeyParts {
  api: string;
  /** The model name of the config (sent to the server as `model` where the API has one). */
  model: string;
  /** What the server reports serving (null when it does not say). */
  serverModel: string | null;
  serverRevision: string | null;
  role: 'query' | 'document';
  prefix: string;
  /** true/false: asked for (and applied client-side when true); null: the server's default. */
  normalize: boolean | null;
}

export function remoteEmbeddingConfigKey(p: RemoteEmbeddingKeyParts): string {
  return sha256Hex(stableStringify({ format: `skillret-emb-remote-v${CHUNK_VERSION}`, ...p }));
}

/** Per-text key (hex): sha256 over the config key and the raw text. */
export function textKey(configKey: string, text: string): string {
  return createHash('sha256').update(configKey).update('\u0000').update(text, 'utf8').digest('hex');
}

/** Serialises one chunk (pure; used by the cache and by tests that forge chunks). */
export function encodeChunk(keys: readonly string[], entries: readonly CachedEmbedding[]): { name: string; bytes: Buffer } {
  const count = keys.length;
  const dim = entries[0]?.vector.length ?? 0;
  const size = HEADER + count * RECORD + count * dim * 4 + TRAILER;
  const buf = Buffer.alloc(size);
  buf.write(CHUNK_MAGIC, 0, 'latin1');
  buf.writeUInt32LE(CHUNK_VERSION, 8);
  buf.writeUInt32LE(dim, 12);
  buf.writeUInt32LE(count, 16);
  buf.writeUInt32LE(0, 20);
  const nameHash = createHash('sha256');
  keys.forEach((k, i) => {
    const e = entries[i]!;
    if (e.vector.length !== dim) throw new Error(`embedding cache: vector ${i} has dimension ${e.vector.length}, chunk has ${dim}`);
    const o = HEADER + i * RECORD;
    const kb = Buffer.from(k, 'hex');
    if (kb.length !== 32) throw new Error(`embedding cache: bad key ${k}`);
    kb.copy(buf, o);
    nameHash.update(kb);
    buf.writeUInt32LE(e.truncated ? 1 : 0, o + 32);
    buf.writeUInt32LE(e.usedTokens, o + 36);
  });
  let o = HEADER + count * RECORD;
  for (const e of entries) {
    if (LITTLE_ENDIAN) {
      buf.set(new Uint8Array(e.vector.buffer, e.vector.byteOffset, dim * 4), o);
      o += dim * 4;
    } else {
      for (let j = 0; j < dim; j++, o += 4) buf.writeFloatLE(e.vector[j]!, o);
    }
  }
  createHash('sha256').update(buf.subarray(0, o)).digest().copy(buf, o);
  return { name: `${nameHash.digest('hex').slice(0, 32)}.bin`, bytes: buf };
}

/** Parses and verifies one chunk; throws an Error saying what is wrong. */
export function decodeChunk(name: string, buf: Buffer): { keys: string[]; entries: CachedEmbedding[] } {
  if (buf.length < HEADER + TRAILER) throw new Error(`${buf.length} bytes, shorter than a header`);
  if (buf.toString('latin1', 0, 8) !== CHUNK_MAGIC) throw new Error('bad magic');
  const version = buf.readUInt32LE(8);
  if (version !== CHUNK_VERSION) throw new Error(`version ${version}, expected ${CHUNK_VERSION}`);
  const dim = buf.readUInt32LE(12);
  const count = buf.readUInt32LE(16);
  if (dim === 0 || count === 0) throw new Error(`dim ${dim}, count ${count}`);
  const want = HEADER + count * RECORD + count * dim * 4 + TRAILER;
  if (buf.length !== want) throw new Error(`${buf.length} bytes, expected ${want} for ${count} vectors of dimension ${dim}`);
  const body = buf.length - TRAILER;
  if (!createHash('sha256').update(buf.subarray(0, body)).digest().equals(buf.subarray(body))) throw new Error('checksum mismatch');
  const keys: string[] = [];
  const nameHash = createHash('sha256');
  const meta: { truncated: boolean; used: number }[] = [];
  for (let i = 0; i < count; i++) {
    const o = HEADER + i * RECORD;
    const kb = buf.subarray(o, o + 32);
    nameHash.update(kb);
    keys.push(kb.toString('hex'));
    const flag = buf.readUInt32LE(o + 32);
    if (flag > 1) throw new Error(`record ${i}: truncated flag ${flag}, expected 0 or 1`);
    meta.push({ truncated: flag === 1, used: buf.readUInt32LE(o + 36) });
  }
  if (`${nameHash.digest('hex').slice(0, 32)}.bin` !== name) throw new Error('keys do not match the file name');
  const entries: CachedEmbedding[] = [];
  let o = HEADER + count * RECORD;
  for (let i = 0; i < count; i++) {
    const v = new Float32Array(dim);
    if (LITTLE_ENDIAN) {
      new Uint8Array(v.buffer).set(buf.subarray(o, o + dim * 4));
      o += dim * 4;
    } else {
      for (let j = 0; j < dim; j++, o += 4) v[j] = buf.readFloatLE(o);
    }
    entries.push({ vector: v, truncated: meta[i]!.truncated, usedTokens: meta[i]!.used });
  }
  return { keys, entries };
}

export interface EmbeddingCacheOptions {
  cacheDir: string;
  useCache: boolean;
  log: (line: string) => void;
  /** Vectors per chunk file (default 256). */
  chunkSize?: number;
}

export class EmbeddingCache {
  readonly dir: string;
  readonly stats: CacheStats = { hits: 0, misses: 0, corruptChunks: 0, chunksRead: 0, chunksWritten: 0 };
  private loaded: Map<string, CachedEmbedding> | null = null;
  private pendingKeys: string[] = [];
  private pending: CachedEmbedding[] = [];
  private readonly chunkSize: number;

  constructor(
    private readonly o: EmbeddingCacheOptions,
    readonly configKey: string,
  ) {
    this.dir = join(o.cacheDir, 'embeddings', configKey);
    this.chunkSize = o.chunkSize ?? 256;
  }

  private load(): Map<string, CachedEmbedding> {
    if (this.loaded) return this.loaded;
    const map = new Map<string, CachedEmbedding>();
    this.loaded = map;
    if (!this.o.useCache || !existsSync(this.dir)) return map;
    for (const name of readdirSync(this.dir).sort()) {
      if (!name.endsWith('.bin')) continue;
      const path = join(this.dir, name);
      try {
        const { keys, entries } = decodeChunk(name, readFileSync(path));
        keys.forEach((k, i) => map.set(k, entries[i]!));
        this.stats.chunksRead++;
      } catch (e) {
        this.stats.corruptChunks++;
        this.o.log(`embedding cache: corrupt chunk ${path} (${(e as Error).message}); deleted, its texts will be re-encoded`);
        rmSync(path, { force: true });
      }
    }
    return map;
  }

  /** Looks keys up (counting hits and misses). */
  get(keys: readonly string[]): (CachedEmbedding | undefined)[] {
    const map = this.load();
    return keys.map((k) => {
      const e = map.get(k);
      if (e) this.stats.hits++;
      else this.stats.misses++;
      return e;
    });
  }

  /** Whether a key is cached (not counted as a hit or miss). */
  has(key: string): boolean {
    return this.load().has(key);
  }

  /** Adds a freshly computed embedding; a full chunk is written at once. */
  put(key: string, e: CachedEmbedding): void {
    this.load().set(key, e);
    if (!this.o.useCache) return;
    this.pendingKeys.push(key);
    this.pending.push(e);
    if (this.pending.length >= this.chunkSize) this.flush();
  }

  /** Writes buffered embeddings as one chunk (call at the end of a run and when it fails). */
  flush(): void {
    if (!this.o.useCache || this.pending.length === 0) return;
    const { name, bytes } = encodeChunk(this.pendingKeys, this.pending);
    writeFileAtomic(join(this.dir, name), bytes);
    this.stats.chunksWritten++;
    this.pendingKeys = [];
    this.pending = [];
  }
}
