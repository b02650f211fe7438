/**
 * The cache store itself (src/cache/store.ts, key.ts), the one thing every cache goes through:
 *
 * - Keys: for random descriptions (strings from a tiny alphabet so that boundaries shift, numbers
 *   with -0 and shortest-decimal neighbours, booleans, null, JSON objects, byte views of every
 *   type, views at offsets into larger buffers, streamed string lists), two descriptions share a key
 *   exactly when they are the same description (same parts, same types, same boundaries): the
 *   plain definition is a typed structural form of the parts.
 * - Entries: random bodies (empty, one byte, around the header's size, large) read back byte for
 *   byte; then random damage — truncation at every length class (empty, inside the header, at the
 *   header's end, inside the body, one byte short), one bit flipped anywhere, bytes appended, the
 *   entry of another key, another kind or another format put in its place, a body its decoder
 *   refuses — is never trusted: the cached computation runs again exactly once, gives the plain
 *   value, and the damage is reported in exactly one line of the one shape naming the kind and
 *   the file; the next read is a hit.
 * - Grouped entries (readGroup): of random groups with random chunks damaged, exactly the intact
 *   ones are read, each damaged one reported once and removed.
 * - Streamed entries: bodies written in random pieces read back whole (hashed as written) or, self
 *   verified, handed to their reader at the body's offset; header damage refused either way.
 * - External files (a file another library writes beside its entry): any damage to the file or
 *   the entry refused, reported once, both removed.
 */
import { fc, test } from '@fast-check/vitest';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheKey, strings, type KeyPart } from '../src/cache/key.js';
import { entryKind, type EntryKind } from '../src/cache/kinds.js';
import { CacheStore } from '../src/cache/store.js';
import { stableStringify } from '../src/util/hash.js';
import { filesUnder, pick, rng } from './helpers/cache-damage.js';

const root = mkdtempSync(join(tmpdir(), 'skillret-cache-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshStore = (logs: string[]) => CacheStore.of({ cacheDir: join(root, `s${dirs++}`), useCache: true, log: (l) => logs.push(l) });

const FLAT = entryKind({ name: 'flat-kind', folder: 'flat', ext: 'bin', what: 'test' }, 'flat-v1');
const OTHER_KIND = entryKind({ name: 'other-kind', folder: 'flat', ext: 'bin', what: 'test' }, 'flat-v1');
const OTHER_FORMAT = { ...FLAT, format: 'flat-v2' };
const GROUPED = entryKind({ name: 'grouped-kind', folder: 'grouped', grouped: { suffix: '.g' }, ext: 'chunk', what: 'test' }, 'grouped-v1');
const EXTERNAL = entryKind({ name: 'external-kind', folder: 'ext', ext: 'json', companion: 'bin', what: 'test' }, 'external-v1');

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The one report line of a damaged `kind` entry at `path`. */
const report = (kind: EntryKind, path: string) => new RegExp(`^cache: ${escape(kind.name)} entry ${escape(path)} is damaged \\(.+\\); computing it again$`);

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

const VIEW_TYPES = [Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array] as const;

/** A description part as data (so that fast-check can draw it), and the part it stands for. */
type PartSpec =
  | { t: 's'; v: string }
  | { t: 'n'; v: number }
  | { t: 'b'; v: boolean }
  | { t: 'z' }
  | { t: 'j'; v: unknown }
  | { t: 'view'; type: number; bytes: number[]; offset: number; dataView: boolean }
  | { t: 'list'; v: string[] };

/** Strings from a tiny alphabet that holds the key scheme's own tags and separators, so that boundaries shift. */
const tinyString = fc.string({ unit: fc.constantFrom('a', 's', 's', ':', '1', 'E', ';', 'é', '😀'), maxLength: 4 });
const partSpec: fc.Arbitrary<PartSpec> = fc.oneof(
  fc.record({ t: fc.constant('s' as const), v: tinyString }),
  fc.record({ t: fc.constant('n' as const), v: fc.oneof(fc.constantFrom(0, -0, 1, 1.5, 0.1 + 0.2, 0.3, 1e21, -1, 2 ** 53), fc.integer({ min: -3, max: 3 })) }),
  fc.record({ t: fc.constant('b' as const), v: fc.boolean() }),
  fc.record({ t: fc.constant('z' as const) }),
  fc.record({ t: fc.constant('j' as const), v: fc.oneof(fc.array(fc.oneof(tinyString, fc.integer({ min: 0, max: 2 }), fc.constant(null)), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'k'), fc.oneof(tinyString, fc.boolean()), { maxKeys: 2 })) }),
  fc.record({
    t: fc.constant('view' as const),
    type: fc.integer({ min: 0, max: VIEW_TYPES.length - 1 }),
    bytes: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 16 }),
    offset: fc.integer({ min: 0, max: 3 }),
    dataView: fc.boolean(),
  }),
  fc.record({ t: fc.constant('list' as const), v: fc.array(tinyString, { maxLength: 3 }) }),
);

/** The part a spec stands for; byte views made at an offset into a larger buffer. */
function partOf(p: PartSpec): KeyPart {
  switch (p.t) {
    case 's':
    case 'n':
    case 'b':
      return p.v;
    case 'z':
      return null;
    case 'j':
      return p.v as object;
    case 'list':
      return strings(p.v);
    case 'view': {
      const T = VIEW_TYPES[p.type]!;
      const n = Math.floor(p.bytes.length / T.BYTES_PER_ELEMENT) * T.BYTES_PER_ELEMENT;
      const at = p.offset * 8; // aligned for every element size
      const buf = new ArrayBuffer(at + n + 8);
      new Uint8Array(buf, at, n).set(p.bytes.slice(0, n));
      return p.dataView ? new DataView(buf, at, n) : new T(buf, at, n / T.BYTES_PER_ELEMENT);
    }
  }
}

/** The plain definition of "the same description": a typed structural form of each part. */
function structural(kind: string, parts: readonly PartSpec[]): string {
  return JSON.stringify([
    kind,
    parts.map((p) => {
      switch (p.t) {
        case 'n':
          return ['n', Object.is(p.v, -0) ? '-0' : String(p.v)];
        case 'j':
          return ['j', stableStringify(p.v)];
        case 'view': {
          const T = VIEW_TYPES[p.type]!;
          const n = Math.floor(p.bytes.length / T.BYTES_PER_ELEMENT) * T.BYTES_PER_ELEMENT;
          return ['view', p.dataView ? 'DataView' : T.name, p.bytes.slice(0, n)];
        }
        case 'z':
          return ['z'];
        default:
          return [p.t, p.v];
      }
    }),
  ]);
}

describe('cache keys', () => {
  test.prop([fc.array(fc.tuple(fc.constantFrom('k', 'kk', 'k:'), fc.array(partSpec, { maxLength: 4 })), { minLength: 2, maxLength: 40 })], { numRuns: 300 })(
    'two descriptions share a key exactly when they are the same description',
    (descriptions) => {
      const byStructure = new Map<string, string>();
      const byKey = new Map<string, string>();
      for (const [kind, specs] of descriptions) {
        const s = structural(kind, specs);
        const k = cacheKey(kind, specs.map(partOf));
        expect(k).toMatch(/^[0-9a-f]{64}$/);
        expect(cacheKey(kind, specs.map(partOf))).toBe(k); // deterministic (views made afresh)
        if (byStructure.has(s)) expect(byStructure.get(s)).toBe(k);
        if (byKey.has(k)) expect(byKey.get(k), `collision: ${s} vs ${byKey.get(k)}`).toBe(s);
        byStructure.set(s, k);
        byKey.set(k, s);
      }
    },
  );

  test.prop([fc.array(partSpec, { maxLength: 3 }), tinyString, tinyString, fc.integer({ min: 1, max: 4 }), fc.array(partSpec, { maxLength: 3 }), fc.boolean()], { numRuns: 500 })(
    'moving characters across the boundary of two strings (or two list items) changes the key',
    (before, a, b, shift, after, asList) => {
      fc.pre(shift <= b.length);
      const [a2, b2] = [a + b.slice(0, shift), b.slice(shift)];
      const mid = (x: string, y: string): KeyPart[] => (asList ? [strings([x, y])] : [x, y]);
      const key = (x: string, y: string) => cacheKey('k', [...before.map(partOf), ...mid(x, y), ...after.map(partOf)]);
      expect(key(a2, b2)).not.toBe(key(a, b));
      // And one string against the two it could be cut into.
      const joined = cacheKey('k', [...before.map(partOf), asList ? strings([a + b]) : a + b, ...after.map(partOf)]);
      expect(joined).not.toBe(key(a, b));
    },
  );

  it('boundaries, types and list framing are part of the key', () => {
    const k = (...parts: KeyPart[]) => cacheKey('k', parts);
    const distinct = [
      k('ab', 'c'),
      k('a', 'bc'),
      // Strings that would run together were a string's length not written before it.
      k('as', 'b'),
      k('a', 'sb'),
      k('s1:a'),
      k('s1:', 'a'),
      k(strings(['a', 'E1;'])),
      k(strings(['a']), 'E1;'),
      k(['s', 'b']),
      k('j9:["s","b"]'),
      k('abc'),
      k(strings(['ab', 'c'])),
      k(strings(['a', 'bc'])),
      k(strings(['ab']), 'c'),
      k(['ab', 'c']),
      k('1'),
      k(1),
      k(true),
      k('true'),
      k(null),
      k('null'),
      k(0),
      k(-0),
      k(new Uint8Array([0, 0, 0, 0])),
      k(new Int8Array([0, 0, 0, 0])),
      k(new Float32Array([0])),
      k(new Uint8Array([0, 0, 0, 0]), new Uint8Array(0)),
      k(new Uint8Array(0), new Uint8Array([0, 0, 0, 0])),
      k(),
      cacheKey('k2', []),
    ];
    expect(new Set(distinct).size).toBe(distinct.length);
    // A Buffer is a Uint8Array; a view at an offset is its bytes.
    expect(k(Buffer.from([1, 2, 3]))).toBe(k(new Uint8Array([1, 2, 3])));
    const big = new Float32Array([9, 1, 2, 9]);
    expect(k(big.subarray(1, 3))).toBe(k(new Float32Array([1, 2])));
    // JSON objects are stable (key order does not matter); what JSON cannot hold is refused.
    expect(k({ a: 1, b: 2 })).toBe(k({ b: 2, a: 1 }));
    expect(() => k({ a: NaN })).toThrow(/cache key/);
    expect(() => k({ a: new Uint8Array(1) })).toThrow(/byte view/);
    expect(() => k([undefined] as unknown as object)).toThrow(/undefined/);
  });
});

// ---------------------------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------------------------

type EntryDamage = 'truncate-empty' | 'truncate-header' | 'truncate-at-header' | 'truncate-body' | 'truncate-one' | 'flip' | 'append' | 'other-key' | 'other-kind' | 'other-format' | 'decoder';
const ENTRY_DAMAGES: readonly EntryDamage[] = ['truncate-empty', 'truncate-header', 'truncate-at-header', 'truncate-body', 'truncate-one', 'flip', 'append', 'other-key', 'other-kind', 'other-format', 'decoder'];

/** Bodies of every size class: empty, one byte, around the header's size, larger. */
const body = fc.oneof(
  fc.uint8Array({ maxLength: 2 }),
  fc.uint8Array({ minLength: 180, maxLength: 260 }),
  fc.uint8Array({ minLength: 1, maxLength: 4096 }),
  fc.string({ maxLength: 300 }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))),
);

const randomKey = (rnd: () => number) => Array.from({ length: 64 }, () => '0123456789abcdef'[pick(rnd, 16)]).join('');

/**
 * Damages the entry file `path` of `key` in `store` as `how` says; false when that damage cannot
 * apply to it (e.g. no body to cut into).
 */
function damageEntry(store: CacheStore, key: string, bodyBytes: Uint8Array, how: EntryDamage, rnd: () => number): boolean {
  const path = store.path(FLAT, key);
  const file = readFileSync(path);
  const head = file.indexOf(10) + 1;
  const cut = (n: number) => writeFileSync(path, file.subarray(0, n));
  switch (how) {
    case 'truncate-empty':
      cut(0);
      return true;
    case 'truncate-header':
      cut(pick(rnd, head));
      return true;
    case 'truncate-at-header':
      if (bodyBytes.length === 0) return false;
      cut(head);
      return true;
    case 'truncate-body':
      if (bodyBytes.length < 2) return false;
      cut(head + 1 + pick(rnd, bodyBytes.length - 1));
      return true;
    case 'truncate-one':
      cut(file.length - 1);
      return true;
    case 'flip': {
      const b = Buffer.from(file);
      const at = pick(rnd, b.length);
      b[at] = b[at]! ^ (1 << pick(rnd, 8));
      writeFileSync(path, b);
      return true;
    }
    case 'append':
      writeFileSync(path, Buffer.concat([file, Buffer.from(Array.from({ length: 1 + pick(rnd, 3) }, () => pick(rnd, 256)))]));
      return true;
    case 'other-key': {
      // Another key's entry (valid in itself) moved into this key's place: the swap of two entries.
      const other = randomKey(rnd);
      store.write(FLAT, other, bodyBytes);
      copyFileSync(store.path(FLAT, other), path);
      return true;
    }
    case 'other-kind': {
      const s2 = CacheStore.of({ cacheDir: join(root, `k${dirs++}`), useCache: true, log: () => {} });
      copyFileSync(s2.write(OTHER_KIND, key, bodyBytes), path);
      return true;
    }
    case 'other-format': {
      const s2 = CacheStore.of({ cacheDir: join(root, `f${dirs++}`), useCache: true, log: () => {} });
      copyFileSync(s2.write(OTHER_FORMAT, key, bodyBytes), path);
      return true;
    }
    case 'decoder':
      // A well-framed body the kind's decoder refuses (see `decode` below).
      store.write(FLAT, key, Buffer.concat([Buffer.from('BAD'), bodyBytes]));
      return true;
  }
}

/** The kind's decoder: refuses bodies that start with "BAD". */
const decode = (b: Buffer): Buffer => {
  if (b.subarray(0, 3).toString('latin1') === 'BAD') throw new Error('the decoder refuses it');
  return Buffer.from(b);
};

describe('framed entries', () => {
  test.prop([body, fc.constantFrom(...ENTRY_DAMAGES), fc.integer()], { numRuns: 400 })(
    'random bodies read back byte for byte; any damage is never trusted, recomputed once, reported in one line',
    (bytes, how, seed) => {
      const rnd = rng(seed);
      const logs: string[] = [];
      const store = freshStore(logs);
      const key = randomKey(rnd);
      let computed = 0;
      const plain = Buffer.from(bytes);
      // A cached computation through the store, as every cache does it.
      const cached = () =>
        store.read(FLAT, key, decode) ??
        (() => {
          computed++;
          store.write(FLAT, key, plain);
          return plain;
        })();
      expect(cached().equals(plain)).toBe(true);
      expect(computed).toBe(1);
      expect(cached().equals(plain)).toBe(true);
      expect(computed).toBe(1);
      const good = readFileSync(store.path(FLAT, key));
      if (!damageEntry(store, key, bytes, how, rnd)) return;
      expect(readFileSync(store.path(FLAT, key)).equals(good)).toBe(false);
      logs.length = 0;
      expect(cached().equals(plain)).toBe(true);
      expect(computed).toBe(2);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(report(FLAT, store.path(FLAT, key)));
      // Rewritten whole: the next read is a hit, and nothing else is reported.
      expect(readFileSync(store.path(FLAT, key)).equals(good)).toBe(true);
      expect(cached().equals(plain)).toBe(true);
      expect(computed).toBe(2);
      expect(logs).toHaveLength(1);
    },
  );

  it('an absent entry is no damage; with the cache off nothing is read or written', () => {
    const logs: string[] = [];
    const store = freshStore(logs);
    expect(store.read(FLAT, 'a'.repeat(64), decode)).toBeUndefined();
    expect(logs).toEqual([]);
    const off = CacheStore.of({ cacheDir: join(root, `off${dirs++}`), useCache: false, log: (l) => logs.push(l) });
    off.write(FLAT, 'a'.repeat(64), Buffer.from('x'));
    expect(existsSync(off.root)).toBe(false);
    expect(off.read(FLAT, 'a'.repeat(64), decode)).toBeUndefined();
    expect(() => store.path(FLAT, 'not a key')).toThrow(/bad key/);
  });
});

// ---------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------

describe('grouped entries', () => {
  test.prop([fc.array(body, { minLength: 1, maxLength: 8 }), fc.array(fc.constantFrom<EntryDamage | 'none'>('none', 'none', 'flip', 'truncate-one', 'append', 'truncate-empty', 'other-key'), { minLength: 8, maxLength: 8 }), fc.integer()], { numRuns: 100 })(
    'exactly the intact chunks are read; each damaged one reported once and removed',
    (bodies, damages, seed) => {
      const rnd = rng(seed);
      const logs: string[] = [];
      const store = freshStore(logs);
      const group = randomKey(rnd);
      const keys = bodies.map((b, i) => cacheKey('chunk', [group, i, b]));
      bodies.forEach((b, i) => store.write(GROUPED, keys[i]!, b, { group }));
      const damaged = new Set<number>();
      bodies.forEach((b, i) => {
        const how = damages[i]!;
        if (how === 'none') return;
        const path = store.path(GROUPED, keys[i]!, group);
        const file = readFileSync(path);
        if (how === 'other-key' && keys.length === 1) return;
        if (how === 'other-key') copyFileSync(store.path(GROUPED, keys[(i + 1) % keys.length]!, group), path);
        else if (how === 'truncate-empty') writeFileSync(path, Buffer.alloc(0));
        else if (how === 'truncate-one') writeFileSync(path, file.subarray(0, file.length - 1));
        else if (how === 'append') writeFileSync(path, Buffer.concat([file, Buffer.from([7])]));
        else {
          const c = Buffer.from(file);
          const at = pick(rnd, c.length);
          c[at] = c[at]! ^ (1 << pick(rnd, 8));
          writeFileSync(path, c);
        }
        if (!readFileSync(path).equals(file)) damaged.add(i);
      });
      // A stray file that is not named like an entry is not read.
      writeFileSync(join(store.dir(GROUPED, group), 'notes.txt'), 'hello');
      const got = store.readGroup(GROUPED, group, (b) => Buffer.from(b));
      const intact = keys.map((k, i) => [k, i] as const).filter(([, i]) => !damaged.has(i));
      expect(got.damaged).toBe(damaged.size);
      expect(new Map(got.entries.map((e) => [e.key, e.value.toString('hex')]))).toEqual(new Map(intact.map(([k, i]) => [k, Buffer.from(bodies[i]!).toString('hex')])));
      expect(logs).toHaveLength(damaged.size);
      for (const i of damaged) {
        expect(logs.some((l) => report(GROUPED, store.path(GROUPED, keys[i]!, group)).test(l))).toBe(true);
        expect(existsSync(store.path(GROUPED, keys[i]!, group))).toBe(false);
      }
      expect(filesUnder(store.dir(GROUPED, group), (p) => p.endsWith('.chunk'))).toHaveLength(intact.length);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Streamed and self-verified entries
// ---------------------------------------------------------------------------------------------

/** Splits `bytes` into random pieces (empty ones among them). */
function pieces(bytes: Uint8Array, rnd: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = pick(rnd, Math.min(64, bytes.length - at) + 1);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  out.push(new Uint8Array(0));
  return out;
}

/** A body that carries its own SHA-256 at its end (as the BM25 index file does). */
const selfChecked = (b: Uint8Array) => Buffer.concat([b, createHash('sha256').update(b).digest()]);

function readSelf(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, offset);
    const data = b.subarray(0, length - 32);
    if (length < 32 || !createHash('sha256').update(data).digest().equals(b.subarray(length - 32))) throw new Error('its own checksum fails');
    return Buffer.from(data);
  } finally {
    closeSync(fd);
  }
}

describe('streamed entries', () => {
  test.prop([body, fc.boolean(), fc.constantFrom<EntryDamage | 'none'>('none', 'flip', 'truncate-one', 'append', 'truncate-header', 'other-key'), fc.integer()], { numRuns: 200 })(
    'written in random pieces, read back whole (hashed) or by their own reader (self-verified); damage refused and reported',
    (bytes, self, how, seed) => {
      const rnd = rng(seed);
      const logs: string[] = [];
      const store = freshStore(logs);
      const key = randomKey(rnd);
      const content = self ? selfChecked(bytes) : Buffer.from(bytes);
      const path = store.writeStreamed(FLAT, key, (put) => pieces(content, rnd).forEach(put), { selfVerified: self });
      const read = () => (self ? store.readSelfVerified(FLAT, key, readSelf) : store.read(FLAT, key, (b) => Buffer.from(b)));
      expect(read()?.equals(self ? Buffer.from(bytes) : content)).toBe(true);
      // The same entry as a plain write makes (when not self-verified).
      if (!self) expect(readFileSync(path).equals(readFileSync(store.write(FLAT, key, content)))).toBe(true);
      // A self-verified entry is not read as a hashed one, nor the other way round.
      expect(self ? store.read(FLAT, key, (b) => b) : store.readSelfVerified(FLAT, key, readSelf)).toBeUndefined();
      expect(logs).toHaveLength(1);
      logs.length = 0;
      if (how === 'none') return;
      store.writeStreamed(FLAT, key, (put) => put(content), { selfVerified: self });
      const good = readFileSync(path);
      if (how === 'other-key') {
        const other = randomKey(rnd);
        copyFileSync(store.writeStreamed(FLAT, other, (put) => put(content), { selfVerified: self }), path);
      } else if (how === 'truncate-header') writeFileSync(path, good.subarray(0, pick(rnd, good.indexOf(10) + 1)));
      else if (how === 'truncate-one') writeFileSync(path, good.subarray(0, good.length - 1));
      else if (how === 'append') writeFileSync(path, Buffer.concat([good, Buffer.from([0])]));
      else {
        const c = Buffer.from(good);
        const at = pick(rnd, c.length);
        c[at] = c[at]! ^ (1 << pick(rnd, 8));
        writeFileSync(path, c);
      }
      expect(read()).toBeUndefined();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(report(FLAT, path));
      expect(existsSync(path)).toBe(false);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// External files
// ---------------------------------------------------------------------------------------------

describe('external files', () => {
  test.prop([fc.uint8Array({ maxLength: 3000 }), fc.constantFrom('none', 'flip-file', 'cut-file', 'append-file', 'delete-file', 'flip-entry', 'delete-entry', 'loader'), fc.integer()], { numRuns: 150 })(
    'a file another library writes is trusted only as its entry describes it; damage reported once, both removed',
    (bytes, how, seed) => {
      const rnd = rng(seed);
      const logs: string[] = [];
      const store = freshStore(logs);
      const key = randomKey(rnd);
      const file = store.writeExternal(EXTERNAL, key, (tmp) => writeFileSync(tmp, bytes), { note: 'x' })!;
      const entry = store.path(EXTERNAL, key);
      expect(file).toBe(store.companionPath(EXTERNAL, key));
      const load = (p: string) => {
        const b = readFileSync(p);
        if (how === 'loader') throw new Error('the library cannot read it');
        return b;
      };
      if (how === 'flip-file' && bytes.length === 0) return;
      if (how === 'cut-file' && bytes.length === 0) return;
      const c = readFileSync(file);
      if (how === 'flip-file') (c[pick(rnd, c.length)]! ^= 1 << pick(rnd, 8)), writeFileSync(file, c);
      if (how === 'cut-file') writeFileSync(file, c.subarray(0, pick(rnd, c.length)));
      if (how === 'append-file') writeFileSync(file, Buffer.concat([c, Buffer.from([1])]));
      if (how === 'delete-file') rmSync(file);
      if (how === 'flip-entry') {
        const e = readFileSync(entry);
        e[pick(rnd, e.length)]! ^= 1 << pick(rnd, 8);
        writeFileSync(entry, e);
      }
      if (how === 'delete-entry') rmSync(entry);
      const got = store.readExternal(EXTERNAL, key, load);
      if (how === 'none') {
        expect(Buffer.from(got!).equals(Buffer.from(bytes))).toBe(true);
        expect(logs).toEqual([]);
        return;
      }
      expect(got).toBeUndefined();
      // No entry: nothing vouches for the file (removed, not reported); any other damage: one line.
      if (how === 'delete-entry') expect(logs).toEqual([]);
      else expect(logs).toEqual([expect.stringMatching(report(EXTERNAL, entry))]);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(entry)).toBe(false);
    },
  );
});
