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
 * Reading verifies magic, version, length, checksum and the structural invariants, and throws
 * `Bm25IndexFormatError` on any mismatch (the caller rebuilds).
 */
import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import type { Bm25Index } from './types.js';

export const BM25_INDEX_FORMAT_VERSION = 1;
const MAGIC = Buffer.from('SRBM25IX', 'latin1');
const HEADER_BYTES = 64;
const CHECKSUM_BYTES = 32;

/** The bytes are not a valid serialized index of this format version. */
export class Bm25IndexFormatError extends Error {
  override readonly name = 'Bm25IndexFormatError';
}

const align8 = (n: number): number => (n + 7) & ~7;

interface Layout {
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

function layout(n: number, v: number, p: number, vocabBytes: number): Layout {
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

export function serializeBm25Index(index: Bm25Index): Buffer {
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
  const out = Buffer.alloc(L.total);
  out.set(MAGIC, 0);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
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
  const put = (at: number, a: Int32Array | Uint32Array | Float32Array): void => {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
  };
  put(L.docLen, index.docLen);
  put(L.idf, index.idf);
  put(L.postingStart, index.postingStart);
  put(L.postingDoc, index.postingDoc);
  put(L.postingScore, index.postingScore);
  put(L.termEnd, termEnd);
  let at = L.blob;
  for (const t of terms) {
    out.set(t, at);
    at += t.length;
  }
  createHash('sha256').update(out.subarray(0, L.checksum)).digest().copy(out, L.checksum);
  return out;
}

export function deserializeBm25Index(buf: Uint8Array): Bm25Index {
  requireLittleEndian();
  const fail = (why: string): never => {
    throw new Bm25IndexFormatError(`invalid BM25 index file: ${why}`);
  };
  if (buf.length < HEADER_BYTES + CHECKSUM_BYTES) fail(`too short (${buf.length} bytes)`);
  if (!Buffer.from(buf.buffer, buf.byteOffset, MAGIC.length).equals(MAGIC)) fail('bad magic');
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
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
  if (declared !== BigInt(L.total) || buf.length !== L.total) {
    fail(`length ${buf.length} bytes, header declares ${declared} and counts imply ${L.total}`);
  }
  const digest = createHash('sha256').update(buf.subarray(0, L.checksum)).digest();
  if (!digest.equals(buf.subarray(L.checksum, L.total))) fail('checksum mismatch');

  const copy = <T extends Int32Array | Uint32Array | Float32Array>(make: (len: number) => T, at: number, len: number): T => {
    const a = make(len);
    new Uint8Array(a.buffer).set(buf.subarray(at, at + 4 * len));
    return a;
  };
  const docLen = copy((m) => new Int32Array(m), L.docLen, n);
  const idf = copy((m) => new Float32Array(m), L.idf, v);
  const postingStart = copy((m) => new Uint32Array(m), L.postingStart, v + 1);
  const postingDoc = copy((m) => new Int32Array(m), L.postingDoc, p);
  const postingScore = copy((m) => new Float32Array(m), L.postingScore, p);
  const termEnd = copy((m) => new Uint32Array(m), L.termEnd, v);

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
      term = decoder.decode(buf.subarray(L.blob + start, L.blob + end));
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
