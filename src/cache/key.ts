/**
 * The one key scheme of every cache (store.ts): `cacheKey(kind, parts)` is the SHA-256 (hex) of a
 * typed description, so two descriptions that differ in any part, in a part's type or in where one
 * part ends and the next begins never share a key. Each part is written with a type tag and, where
 * its length varies, a length prefix:
 *
 *   string        `s<UTF-8 bytes>:` + the UTF-8 bytes
 *   number        `n<shortest round-trip decimal, -0 as "-0">;`
 *   boolean       `T` / `F`
 *   null          `Z`
 *   byte view     `b<type>:<byte length>:` + the bytes as they lie in memory (Uint8Array, Int32Array,
 *                 Float32Array, Float64Array, DataView, … ; a Buffer counts as a Uint8Array), so
 *                 vectors are keyed by their exact bits; the element count follows from the type
 *   string list   `L` + each string as above + `E<count>;` (`strings(iterable)`: streamed, for
 *                 every text of a corpus without joining them)
 *   JSON value    `j<UTF-8 bytes>:` + `stableStringify(value)` (util/hash.ts: sorted object keys),
 *                 for plain objects and arrays of the above scalars; byte views and string lists
 *                 are refused inside them (give them as parts of their own)
 *
 * after a preamble naming the scheme's version, the kind and the number of parts.
 */
import { createHash, type Hash } from 'node:crypto';
import { stableStringify } from '../util/hash.js';

const SCHEME = 'skillret-cache-key v1';

/** A streamed list of strings as one key part (each string length-prefixed, the count at the end). */
export class StringList {
  constructor(readonly items: Iterable<string>) {}
}

/** `items` as one key part (see the module comment). */
export const strings = (items: Iterable<string>): StringList => new StringList(items);

/**
 * One part of a key's description: a string, number, boolean, null, byte view, `strings(…)` list,
 * or a plain object or array of scalars (checked when the key is made; interfaces welcome).
 */
export type KeyPart = string | number | boolean | null | ArrayBufferView | StringList | object;

function assertJson(v: unknown, where: string): void {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`cache key: ${where} is ${v}, which JSON cannot hold (give it as a part of its own)`);
    return;
  }
  if (ArrayBuffer.isView(v) || v instanceof StringList) throw new TypeError(`cache key: ${where} is a byte view or string list inside a JSON value (give it as a part of its own)`);
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (x === undefined) throw new TypeError(`cache key: ${where}[${i}] is undefined`);
      assertJson(x, `${where}[${i}]`);
    });
    return;
  }
  if (typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) assertJson(x, `${where}.${k}`);
    return;
  }
  throw new TypeError(`cache key: ${where} is not a key part (${typeof v})`);
}

function updateString(h: Hash, s: string): void {
  h.update(`s${Buffer.byteLength(s, 'utf8')}:`);
  h.update(s, 'utf8');
}

function viewType(v: ArrayBufferView): string {
  if (Buffer.isBuffer(v)) return 'Uint8Array';
  return v.constructor.name;
}

function updatePart(h: Hash, p: KeyPart, where: string): void {
  if (typeof p === 'string') return updateString(h, p);
  if (typeof p === 'number') {
    h.update(`n${Object.is(p, -0) ? '-0' : String(p)};`);
    return;
  }
  if (typeof p === 'boolean') {
    h.update(p ? 'T' : 'F');
    return;
  }
  if (p === null) {
    h.update('Z');
    return;
  }
  if (ArrayBuffer.isView(p)) {
    h.update(`b${viewType(p)}:${p.byteLength}:`);
    h.update(new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
    return;
  }
  if (p instanceof StringList) {
    h.update('L');
    let n = 0;
    for (const s of p.items) {
      if (typeof s !== 'string') throw new TypeError(`cache key: ${where} item ${n} is not a string`);
      updateString(h, s);
      n++;
    }
    h.update(`E${n};`);
    return;
  }
  assertJson(p, where);
  const json = stableStringify(p);
  h.update(`j${Buffer.byteLength(json, 'utf8')}:`);
  h.update(json, 'utf8');
}

/** The key (64 hex) of a `kind`'s entry described by `parts` (see the module comment). */
export function cacheKey(kind: string, parts: readonly KeyPart[]): string {
  const h = createHash('sha256');
  h.update(`${SCHEME}\n`);
  updateString(h, kind);
  h.update(`#${parts.length};`);
  parts.forEach((p, i) => {
    if (p === undefined) throw new TypeError(`cache key: part ${i} of ${kind} is undefined`);
    updatePart(h, p, `part ${i} of ${kind}`);
  });
  return h.digest('hex');
}

/** Whether `s` has the shape of a key. */
export const isCacheKey = (s: string): boolean => /^[0-9a-f]{64}$/.test(s);
