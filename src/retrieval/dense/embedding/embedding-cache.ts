/**
 * Content-addressed embedding cache: store kind `embeddings` (cache/store.ts), one group folder
 * `<cacheDir>/embeddings/<config key>/` per model setting.
 *
 * Config key = the store's key over (format, model file sha256, tokenizer sha256, dtype, pooling,
 * normalisation, role, prefix, effective max tokens, batching); per-text key = the key of (config
 * key, text). So any change of model bytes, settings, prompt or text misses (docs/protocol.md §7
 * rule 8). For a remote embedding server the model bytes are unknown: its config key covers the
 * API, the model name, the model id and revision the server reports, role, prefix and
 * normalisation instead (`remoteEmbeddingConfigKey`; not the URL, so a moved server keeps its cache).
 *
 * Vectors are written as encoding proceeds, in chunks of up to 256 vectors, each one an entry of
 * the store written atomically, so a killed run keeps what it finished. A chunk's key is the key
 * of (config key, its text keys in order); its body (little-endian):
 *   0  u32 dim        4  u32 count
 *   8  count x { key[32], u32 truncated (1: the text had more tokens than the model kept, else 0),
 *                u32 tokens used }
 *      count x dim x f32 vectors
 * The store checks each chunk's framing (kind, format, key, length, SHA-256) on load; the decoder
 * checks dim, count, length, flags and that the text keys give the chunk's key. A damaged chunk is
 * reported by the store in one line and removed, and its texts count as misses (encoded again and
 * rewritten). With `useCache: false` nothing is read or written.
 */
import { CACHE_KINDS, entryKind } from '../../../cache/kinds.js';
import { cacheKey } from '../../../cache/key.js';
import { CacheStore, unframeEntry } from '../../../cache/store.js';

/** 3: chunks framed by the store (version 2 carried its own magic and SHA-256 trailer). */
export const CHUNK_VERSION = 3;
export const EMBEDDINGS_KIND = entryKind(CACHE_KINDS.embeddings, `emb-chunk-v${CHUNK_VERSION}`);
const HEADER = 8;
const RECORD = 40;
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
  return cacheKey(EMBEDDINGS_KIND.name, ['local model settings', EMBEDDINGS_KIND.format, p]);
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
  return cacheKey(EMBEDDINGS_KIND.name, ['remote model settings', EMBEDDINGS_KIND.format, p]);
}

/** Per-text key (hex): the store's key over the config key and the raw text. */
export function textKey(configKey: string, text: string): string {
  return cacheKey(EMBEDDINGS_KIND.name, ['text', configKey, text]);
}

/** The key of a chunk holding these text keys (in order) under a config key. */
export function chunkKey(configKey: string, keyBytes: Uint8Array): string {
  return cacheKey(EMBEDDINGS_KIND.name, ['chunk', configKey, keyBytes]);
}

/** Serialises one chunk's body and gives its key (pure; used by the cache and by tests that forge chunks). */
export function encodeChunk(configKey: string, keys: readonly string[], entries: readonly CachedEmbedding[]): { key: string; body: Buffer } {
  const count = keys.length;
  const dim = entries[0]?.vector.length ?? 0;
  const buf = Buffer.alloc(HEADER + count * RECORD + count * dim * 4);
  buf.writeUInt32LE(dim, 0);
  buf.writeUInt32LE(count, 4);
  const keyBytes = new Uint8Array(32 * count);
  keys.forEach((k, i) => {
    const e = entries[i]!;
    if (e.vector.length !== dim) throw new Error(`embedding cache: vector ${i} has dimension ${e.vector.length}, chunk has ${dim}`);
    const o = HEADER + i * RECORD;
    const kb = Buffer.from(k, 'hex');
    if (kb.length !== 32 || kb.toString('hex') !== k) throw new Error(`embedding cache: bad key ${k}`);
    kb.copy(buf, o);
    keyBytes.set(kb, 32 * i);
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
  return { key: chunkKey(configKey, keyBytes), body: buf };
}

/** Parses and checks one chunk's body (stored under `key` in the group of `configKey`); throws an Error saying what is wrong. */
export function decodeChunk(configKey: string, key: string, buf: Buffer): { keys: string[]; entries: CachedEmbedding[] } {
  if (buf.length < HEADER) throw new Error(`${buf.length} bytes, shorter than a chunk header`);
  const dim = buf.readUInt32LE(0);
  const count = buf.readUInt32LE(4);
  if (dim === 0 || count === 0) throw new Error(`dim ${dim}, count ${count}`);
  const want = HEADER + count * RECORD + count * dim * 4;
  if (buf.length !== want) throw new Error(`${buf.length} bytes, expected ${want} for ${count} vectors of dimension ${dim}`);
  const keys: string[] = [];
  const meta: { truncated: boolean; used: number }[] = [];
  for (let i = 0; i < count; i++) {
    const o = HEADER + i * RECORD;
    keys.push(buf.toString('hex', o, o + 32));
    const flag = buf.readUInt32LE(o + 32);
    if (flag > 1) throw new Error(`record ${i}: truncated flag ${flag}, expected 0 or 1`);
    meta.push({ truncated: flag === 1, used: buf.readUInt32LE(o + 36) });
  }
  const keyBytes = new Uint8Array(32 * count);
  for (let i = 0; i < count; i++) keyBytes.set(buf.subarray(HEADER + i * RECORD, HEADER + i * RECORD + 32), 32 * i);
  if (chunkKey(configKey, keyBytes) !== key) throw new Error('its texts are not those of its key');
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

/** A whole chunk file's bytes checked (framing and body) and decoded: what the cache reads (for tests). */
export function decodeChunkFile(configKey: string, key: string, file: Buffer): { keys: string[]; entries: CachedEmbedding[] } {
  return decodeChunk(configKey, key, unframeEntry(EMBEDDINGS_KIND, key, file));
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
  private readonly store: CacheStore;

  constructor(
    o: EmbeddingCacheOptions,
    readonly configKey: string,
  ) {
    this.store = CacheStore.of(o);
    this.dir = this.store.dir(EMBEDDINGS_KIND, configKey);
    this.chunkSize = o.chunkSize ?? 256;
  }

  private load(): Map<string, CachedEmbedding> {
    if (this.loaded) return this.loaded;
    const map = new Map<string, CachedEmbedding>();
    this.loaded = map;
    const { entries, damaged } = this.store.readGroup(EMBEDDINGS_KIND, this.configKey, (body, at) => decodeChunk(this.configKey, at.key, body));
    for (const { value } of entries) value.keys.forEach((k, i) => map.set(k, value.entries[i]!));
    this.stats.chunksRead += entries.length;
    this.stats.corruptChunks += damaged;
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
    if (!this.store.enabled) return;
    this.pendingKeys.push(key);
    this.pending.push(e);
    if (this.pending.length >= this.chunkSize) this.flush();
  }

  /** Writes buffered embeddings as one chunk (call at the end of a run and when it fails). */
  flush(): void {
    if (!this.store.enabled || this.pending.length === 0) return;
    const { key, body } = encodeChunk(this.configKey, this.pendingKeys, this.pending);
    this.store.write(EMBEDDINGS_KIND, key, body, { group: this.configKey });
    this.stats.chunksWritten++;
    this.pendingKeys = [];
    this.pending = [];
  }
}
