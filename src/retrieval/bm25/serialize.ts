/**
 * Binary (de)serialization of a `Bm25Index` for the on-disk cache.
 *
 * Layout (little-endian; every section starts at a multiple of 8):
 *   header (64 bytes): magic "SRBM25IX", u32 version, u32 reserved(0), u32 numDocs N,
 *     u32 vocabSize V, u32 numPostings P, u32 vocabBytes, f64 k1, f64 b, f64 avgdl,
 *     u64 total file length
 *   Int32 docLen[N] | Float32 idf[V] | Uint32 postingStart[V+1] | Int32 postingDoc[P] |
 *   Float32 postingScore[P] | Uint32 termEnd[V] (end offsets in the UTF-8 term blob) |
 *   term blob (vocabBytes) | zero padding | SHA-256 of everything before it (32 bytes)
 * `writeBm25Index` / `readBm25IndexFile` stream those bytes to and from a file section by
 * section, so the index is never held twice. Reading verifies magic, version, length, checksum and
 * the structural invariants, and throws `Bm25IndexFormatError` on any mismatch (the caller
 * rebuilds). The BM25 stage keeps these bytes as the body of a cache store entry after the store's
 * header line (`readBm25IndexFile`'s `offset`): the store checks the header, this reader the body,
 * in one read (cache/store.ts `readSelfVerified`).
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { writeFileAtomicWith } from '../../util/atomic.js';
import type { Bm25Index } from './types.js';

export const BM25_INDEX_FORMAT_VERSION = 1;
const MAGIC = Buffer.from('SRBM25IX', 'latin1');
const HEADER_BYTES = 64;
const CHECKSUM_BYTES = 32;

/** The bytes are not a valid serialized index of this format version. */
export class Bm25IndexFormatError extends Error {
  override readonly name = 'Bm25IndexFormatError';
}

/** n rounded up to a multiple of 8, in float64 arithmetic: files pass 2 GiB (a 32-bit `(n + 7) & ~7` turns negative there). */
const align8 = (n: number): number => Math.ceil(n / 8) * 8;

export interface Layout {
  docLen: number;
  idf: number;
  postingStart: number;
  postingDoc: number;
  postingScore: number;
  termEnd: number;
  blob: number;
  checksum: number;
  total: number;
}

/** Byte offsets of the sections for N documents, V terms, P postings and a term blob of `vocabBytes` (exported for tests). */
export function layout(n: number, v: number, p: number, vocabBytes: number): Layout {
  let at = HEADER_BYTES;
  const docLen = at;
  at = align8(at + 4 * n);
  const idf = at;
  at = align8(at + 4 * v);
  const postingStart = at;
  at = align8(at + 4 * (v + 1));
  const postingDoc = at;
  at = align8(at + 4 * p);
  const postingScore = at;
  at = align8(at + 4 * p);
  const termEnd = at;
  at = align8(at + 4 * v);
  const blob = at;
  at = align8(at + vocabBytes);
  return { docLen, idf, postingStart, postingDoc, postingScore, termEnd, blob, checksum: at, total: at + CHECKSUM_BYTES };
}

function requireLittleEndian(): void {
  if (endianness() !== 'LE') throw new Bm25IndexFormatError('BM25 index files are only supported on little-endian machines');
}

/** The file's bytes in order, in pieces (typed arrays' bytes are not copied), without the checksum. */
function* encodePieces(index: Bm25Index): Generator<Uint8Array> {
  requireLittleEndian();
  const terms: Buffer[] = [];
  let expected = 0;
  for (const [term, id] of index.vocab) {
    if (id !== expected++) throw new RangeError('vocab ids must be dense and in insertion order');
    terms.push(Buffer.from(term, 'utf8'));
  }
  const n = index.numDocs;
  const v = index.vocab.size;
  const p = index.postingDoc.length;
  const termEnd = new Uint32Array(v);
  let vocabBytes = 0;
  terms.forEach((t, i) => {
    vocabBytes += t.length;
    termEnd[i] = vocabBytes;
  });
  const L = layout(n, v, p, vocabBytes);
  const header = Buffer.alloc(HEADER_BYTES);
  header.set(MAGIC, 0);
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  view.setUint32(8, BM25_INDEX_FORMAT_VERSION, true);
  view.setUint32(12, 0, true);
  view.setUint32(16, n, true);
  view.setUint32(20, v, true);
  view.setUint32(24, p, true);
  view.setUint32(28, vocabBytes, true);
  view.setFloat64(32, index.params.k1, true);
  view.setFloat64(40, index.params.b, true);
  view.setFloat64(48, index.avgdl, true);
  view.setBigUint64(56, BigInt(L.total), true);
  yield header;
  let at = HEADER_BYTES;
  const pad = (to: number): Uint8Array => {
    const zeros = new Uint8Array(to - at);
    at = to;
    return zeros;
  };
  const sections: [number, Int32Array | Uint32Array | Float32Array][] = [
    [L.docLen, index.docLen],
    [L.idf, index.idf],
    [L.postingStart, index.postingStart],
    [L.postingDoc, index.postingDoc],
    [L.postingScore, index.postingScore],
    [L.termEnd, termEnd],
  ];
  for (const [offset, a] of sections) {
    if (offset > at) yield pad(offset);
    yield new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    at += a.byteLength;
  }
  if (L.blob > at) yield pad(L.blob);
  for (const t of terms) {
    yield t;
    at += t.length;
  }
  if (L.checksum > at) yield pad(L.checksum);
}

export function serializeBm25Index(index: Bm25Index): Buffer {
  const pieces = [...encodePieces(index)];
  const hash = createHash('sha256');
  for (const piece of pieces) hash.update(piece);
  return Buffer.concat([...pieces, hash.digest()]);
}

/**
 * Writes `index` to `path` atomically, in the bytes of `serializeBm25Index`, from the index's own
 * arrays: no second copy of the index in memory.
 */
export function writeBm25IndexFile(path: string, index: Bm25Index): void {
  writeFileAtomicWith(path, (fd) => writeBm25Index((bytes) => writeAll(fd, bytes), index));
}

/** The bytes of `serializeBm25Index`, handed to `put` piece by piece in order (from the index's own arrays). */
export function writeBm25Index(put: (bytes: Uint8Array) => void, index: Bm25Index): void {
  const hash = createHash('sha256');
  for (const piece of encodePieces(index)) {
    hash.update(piece);
    put(piece);
  }
  put(hash.digest());
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** Where `decodeIndex` reads: `length` bytes, read in order. */
interface ByteSource {
  readonly length: number;
  /** Fills `into` with the bytes at `position`. */
  read(position: number, into: Uint8Array): void;
}

export function deserializeBm25Index(buf: Uint8Array): Bm25Index {
  return decodeIndex({ length: buf.length, read: (at, into) => into.set(buf.subarray(at, at + into.length)) }, false);
}

/**
 * Reads an index file written by `writeBm25IndexFile` (or `serializeBm25Index`), each section
 * straight into its array (checked as `deserializeBm25Index` checks): no buffer of the whole
 * file. `shared`: the search arrays on SharedArrayBuffers (for worker threads). `offset`: where
 * the index's bytes begin in the file (they run to its end).
 */
export function readBm25IndexFile(path: string, opts: { shared?: boolean; offset?: number } = {}): Bm25Index {
  const fd = openSync(path, 'r');
  const base = opts.offset ?? 0;
  try {
    const length = fstatSync(fd).size - base;
    return decodeIndex(
      {
        length,
        read: (position, into) => {
          for (let at = 0; at < into.length; ) {
            const n = readSync(fd, into, at, into.length - at, base + position + at);
            if (n === 0) throw new Bm25IndexFormatError(`invalid BM25 index file: ended at byte ${position + at} of ${length}`);
            at += n;
          }
        },
      },
      opts.shared === true,
    );
  } finally {
    closeSync(fd);
  }
}

function decodeIndex(src: ByteSource, shared: boolean): Bm25Index {
  requireLittleEndian();
  const fail = (why: string): never => {
    throw new Bm25IndexFormatError(`invalid BM25 index file: ${why}`);
  };
  if (src.length < HEADER_BYTES + CHECKSUM_BYTES) fail(`too short (${src.length} bytes)`);
  const header = Buffer.alloc(HEADER_BYTES);
  src.read(0, header);
  if (!header.subarray(0, MAGIC.length).equals(MAGIC)) fail('bad magic');
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const version = view.getUint32(8, true);
  if (version !== BM25_INDEX_FORMAT_VERSION) fail(`format version ${version}, expected ${BM25_INDEX_FORMAT_VERSION}`);
  const n = view.getUint32(16, true);
  const v = view.getUint32(20, true);
  const p = view.getUint32(24, true);
  const vocabBytes = view.getUint32(28, true);
  const k1 = view.getFloat64(32, true);
  const b = view.getFloat64(40, true);
  const avgdl = view.getFloat64(48, true);
  const declared = view.getBigUint64(56, true);
  const L = layout(n, v, p, vocabBytes);
  if (declared !== BigInt(L.total) || src.length !== L.total) {
    fail(`length ${src.length} bytes, header declares ${declared} and counts imply ${L.total}`);
  }
  // Sections in file order, each hashed as it is read (the padding between them too).
  const hash = createHash('sha256').update(header);
  let at = HEADER_BYTES;
  const next = (offset: number, into: Uint8Array): void => {
    if (offset > at) {
      const gap = Buffer.alloc(offset - at);
      src.read(at, gap);
      hash.update(gap);
    }
    src.read(offset, into);
    hash.update(into);
    at = offset + into.length;
  };
  const section = <T extends Int32Array | Uint32Array | Float32Array>(make: (b: ArrayBuffer | SharedArrayBuffer) => T, offset: number, len: number, onShared: boolean): T => {
    const a = make(onShared ? new SharedArrayBuffer(4 * len) : new ArrayBuffer(4 * len));
    next(offset, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    return a;
  };
  const docLen = section((m) => new Int32Array(m), L.docLen, n, false);
  const idf = section((m) => new Float32Array(m), L.idf, v, shared);
  const postingStart = section((m) => new Uint32Array(m), L.postingStart, v + 1, shared);
  const postingDoc = section((m) => new Int32Array(m), L.postingDoc, p, shared);
  const postingScore = section((m) => new Float32Array(m), L.postingScore, p, shared);
  const termEnd = section((m) => new Uint32Array(m), L.termEnd, v, false);
  const blob = Buffer.alloc(vocabBytes);
  next(L.blob, blob);
  next(L.checksum, Buffer.alloc(0));
  const stored = Buffer.alloc(CHECKSUM_BYTES);
  src.read(L.checksum, stored);
  if (!hash.digest().equals(stored)) fail('checksum mismatch');

  if (postingStart[0] !== 0 || postingStart[v] !== p) fail('posting offsets do not span the postings');
  for (let t = 0; t < v; t++) if ((postingStart[t + 1] as number) < (postingStart[t] as number)) fail(`posting offsets decrease at term ${t}`);
  for (let j = 0; j < p; j++) {
    const d = postingDoc[j] as number;
    if (d < 0 || d >= n) fail(`posting ${j} names document ${d} of ${n}`);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const vocab = new Map<string, number>();
  let start = 0;
  for (let t = 0; t < v; t++) {
    const end = termEnd[t] as number;
    if (end < start || end > vocabBytes) fail(`term ${t} has bad offsets`);
    let term = '';
    try {
      term = decoder.decode(blob.subarray(start, end));
    } catch {
      fail(`term ${t} is not valid UTF-8`);
    }
    if (vocab.has(term)) fail(`term ${JSON.stringify(term)} appears twice`);
    vocab.set(term, t);
    start = end;
  }
  if (start !== vocabBytes) fail('term blob length mismatch');
  return { params: Object.freeze({ k1, b }), numDocs: n, avgdl, vocab, idf, docLen, postingStart, postingDoc, postingScore };
}
