/**
 * The one content-addressed cache store every cache goes through: one key scheme, one entry
 * framing checked on every read, one damage report, one write path.
 *
 * Keys. `cacheKey(kind, parts)` (key.ts): the SHA-256 of a typed description of everything the
 * entry depends on (strings, numbers, booleans, null, JSON objects, byte views, streamed string
 * lists, each tagged and length-prefixed so no two descriptions collide), the kind's name first.
 *
 * Where. `<cache root>/<kind folder>/<key>.<ext>`, or for a grouped kind
 * `<cache root>/<kind folder>/<group><suffix>/<key>.<ext>` (kinds.ts lists every kind's folder).
 *
 * Framing. Every entry file is one header line, then the body:
 *
 *   skillret-cache 1 <kind> <format> <key> <body length, 16 digits> <SHA-256 of the body | self>\n
 *
 * On every read the store checks the header (its shape, the kind, the kind's format name, that it
 * holds the key asked for, not another one), that the body has the stated length and that it hashes
 * to the stated SHA-256; then the kind's own decoder reads the body, and an error it throws counts
 * as damage too. A damaged entry (bad header, another kind, format or key, wrong length, checksum
 * mismatch, decode error, unreadable file) is reported in one line of one shape for every kind,
 *
 *   cache: <kind> entry <path> is damaged (<reason>); computing it again
 *
 * removed, and the caller computes the value again (and writes it back). Nothing in a damaged entry
 * is ever used. Writes are atomic (util/atomic.ts: a temporary sibling, fsync, rename): a reader sees
 * the old entry or the new one, never half of one. A write that fails (a full disk, a read-only
 * mount, permissions…) costs one warning per cache root and the entry is simply not cached; later
 * writes to that root are skipped for the rest of the run (write-failures.ts). With the cache off
 * (`--no-cache`) the store reads and writes nothing.
 *
 * Three kinds of entries do not fit "read the whole body, hash it, decode it", and keep the one key,
 * report and write path in these ways:
 *  - Chunked caches (embedding vectors, reranker scores) write many entries into a group folder
 *    while a run proceeds, each chunk a framed entry of its own, named by a key of its content
 *    (`readGroup` reads every chunk of a group: a damaged chunk is reported and dropped alone, and
 *    only its values are computed again). A killed run keeps every chunk it finished.
 *  - The BM25 index (retrieval/bm25/serialize.ts) can be gigabytes and its format already carries
 *    its own length and a SHA-256 trailer that its reader checks section by section as it reads.
 *    Its entry is framed like every other (`writeStreamed`: header, then the index bytes streamed
 *    from the index's own arrays), but its header says `self` instead of a SHA-256:
 *    `readSelfVerified` checks the header (kind, format, key, length) and hands the body's offset
 *    to the index reader, whose checksum error or structural error is reported as damage. The file
 *    is read once, not twice.
 *  - The HNSW graph is written and read by hnswlib-node itself (`writeIndexSync`, `readIndexSync`
 *    take a path, and the library reads the file from its first byte), so it cannot carry a header.
 *    It lives beside its entry as `<key>.<companion ext>` and the entry (`writeExternal`) holds the
 *    graph file's size and SHA-256: `readExternal` checks the entry, then the graph file against it,
 *    then the library's load; any failure reports the entry as damaged and removes both files.
 *
 * Sizes: `cache info` and `cache prune` (usage.ts) count every kind's files and bytes.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempPathFor, writeFileAtomicWith } from '../util/atomic.js';
import { makeDirs } from '../util/dirs.js';
import { cacheKey, isCacheKey, type KeyPart } from './key.js';
import type { CacheKindLayout, EntryKind } from './kinds.js';
import { cacheWrite, cacheWriteFault } from './write-failures.js';

const MAGIC = 'skillret-cache';
const FRAMING = '1';
/** A header is never longer than this (kind and format names are short). */
const MAX_HEADER = 256;
const LENGTH_DIGITS = 16;
const SELF = 'self';
const LENGTH_FIELD = new RegExp(`^\\d{${LENGTH_DIGITS}}$`);

/** Where an entry is (given to decoders). */
export interface EntryAt {
  key: string;
  path: string;
}

/** What reads may be told. */
export interface ReadOptions {
  /** The group of a grouped kind. */
  group?: string;
  /** Called with the reason when the entry was damaged (after the report line). */
  onDamage?: (reason: string) => void;
}

/** Where the store is and what it may do. */
export interface CacheStoreOptions {
  /** The cache root. */
  cacheDir: string;
  /** false (`--no-cache`): nothing is read or written. */
  useCache: boolean;
  /** Where the damage report line goes. */
  log: (line: string) => void;
}

class Damage extends Error {}

function header(kind: EntryKind, key: string, length: number, sha256: string): Buffer {
  return Buffer.from(`${MAGIC} ${FRAMING} ${kind.name} ${kind.format} ${key} ${String(length).padStart(LENGTH_DIGITS, '0')} ${sha256}\n`, 'latin1');
}

interface Header {
  bytes: number;
  length: number;
  sha256: string;
}

/** Parses and checks an entry's header against what was asked; throws Damage saying what is wrong. */
function checkHeader(prefix: Uint8Array, kind: EntryKind, key: string): Header {
  const buf = Buffer.from(prefix.buffer, prefix.byteOffset, Math.min(prefix.byteLength, MAX_HEADER));
  const nl = buf.indexOf(10);
  if (nl < 0) throw new Damage(prefix.byteLength === 0 ? 'empty file' : 'no header line');
  const f = buf.toString('latin1', 0, nl).split(' ');
  if (f.length !== 7 || f[0] !== MAGIC) throw new Damage('not a cache entry');
  if (f[1] !== FRAMING) throw new Damage(`framing version ${f[1]}, expected ${FRAMING}`);
  if (f[2] !== kind.name) throw new Damage(`holds a ${f[2]} entry`);
  if (f[3] !== kind.format) throw new Damage(`format ${f[3]}, expected ${kind.format}`);
  if (f[4] !== key) throw new Damage(`holds another key, ${f[4]!.slice(0, 16)}…`);
  if (!LENGTH_FIELD.test(f[5]!)) throw new Damage('bad body length');
  if (!/^[0-9a-f]{64}$/.test(f[6]!) && f[6] !== SELF) throw new Damage('bad checksum field');
  return { bytes: nl + 1, length: Number(f[5]), sha256: f[6]! };
}

/**
 * The body of a whole entry file's bytes, checked (header, kind, format, key, length, SHA-256);
 * throws an Error saying what is wrong. What every read does before the kind's decoder.
 */
export function unframeEntry(kind: EntryKind, key: string, buf: Buffer): Buffer {
  const h = checkHeader(buf, kind, key);
  const body = buf.subarray(h.bytes);
  if (body.length !== h.length) throw new Damage(`body is ${body.length} bytes, the header says ${h.length}`);
  if (h.sha256 === SELF) throw new Damage('no checksum');
  if (createHash('sha256').update(body).digest('hex') !== h.sha256) throw new Damage('checksum mismatch');
  return body;
}

function reasonOf(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    return code && !(e instanceof Damage) ? `unreadable: ${code}` : e.message.split('\n')[0]!;
  }
  return String(e);
}

function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, position === undefined ? null : position + at);
}

/** SHA-256 and size of a file, read in pieces (for a companion file of any size). */
function fileDigest(path: string): { size: number; sha256: string } {
  const fd = openSync(path, 'r');
  try {
    const h = createHash('sha256');
    const piece = Buffer.alloc(1 << 20);
    let size = 0;
    for (let n; (n = readSync(fd, piece, 0, piece.length, null)) > 0; size += n) h.update(piece.subarray(0, n));
    return { size, sha256: h.digest('hex') };
  } finally {
    closeSync(fd);
  }
}

/** An entry that is not there: no file, or a file where one of its folders should be (ENOTDIR: nothing could be written there either). */
const isMissing = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

export class CacheStore {
  readonly root: string;
  readonly enabled: boolean;
  private readonly log: (line: string) => void;

  constructor(o: CacheStoreOptions) {
    this.root = o.cacheDir;
    this.enabled = o.useCache;
    this.log = o.log;
  }

  /** The store of a stage context (or anything with a cache root, switch and log). */
  static of(o: CacheStoreOptions): CacheStore {
    return new CacheStore(o);
  }

  /** The key of a `kind` entry described by `parts` (key.ts). */
  key(kind: CacheKindLayout, parts: readonly KeyPart[]): string {
    return cacheKey(kind.name, parts);
  }

  /** The folder of a kind's entries (of one group, for a grouped kind). */
  dir(kind: CacheKindLayout, group?: string): string {
    const base = join(this.root, ...kind.folder.split('/'));
    if (!kind.grouped) return base;
    if (group === undefined || !isCacheKey(group)) throw new Error(`cache ${kind.name}: a group key is needed, got ${String(group)}`);
    return join(base, `${group}${kind.grouped.suffix}`);
  }

  /** The file of an entry. */
  path(kind: CacheKindLayout, key: string, group?: string): string {
    if (!isCacheKey(key)) throw new Error(`cache ${kind.name}: bad key ${key}`);
    return join(this.dir(kind, group), `${key}.${kind.ext}`);
  }

  /** The file another library writes beside an entry (`kind.companion`). */
  companionPath(kind: CacheKindLayout, key: string, group?: string): string {
    if (!kind.companion) throw new Error(`cache ${kind.name}: no companion file`);
    return join(this.dir(kind, group), `${key}.${kind.companion}`);
  }

  /**
   * The one damage report: one line naming the kind, the file and the reason; the entry (and its
   * companion file) removed so that it is computed again and rewritten.
   */
  reportDamage(kind: CacheKindLayout, path: string, reason: string): void {
    this.log(`cache: ${kind.name} entry ${path} is damaged (${reason}); computing it again`);
    rmSync(path, { force: true });
    if (kind.companion && path.endsWith(`.${kind.ext}`)) rmSync(`${path.slice(0, -kind.ext.length)}${kind.companion}`, { force: true });
  }

  private readAt<T>(kind: EntryKind, key: string, path: string, decode: (body: Buffer, at: EntryAt) => T, onDamage?: (reason: string) => void): T | undefined {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      if (isMissing(e)) return undefined;
      return this.damaged(kind, path, reasonOf(e), onDamage);
    }
    try {
      return decode(unframeEntry(kind, key, buf), { key, path });
    } catch (e) {
      return this.damaged(kind, path, reasonOf(e), onDamage);
    }
  }

  private damaged(kind: CacheKindLayout, path: string, reason: string, onDamage?: (reason: string) => void): undefined {
    try {
      this.reportDamage(kind, path, reason);
    } catch {
      /* a read-only cache: the entry stays, and is reported again next time */
    }
    onDamage?.(reason);
    return undefined;
  }

  /**
   * The value of an entry: undefined when absent, when the cache is off, or when damaged (then
   * reported and removed). `decode` reads the verified body; whatever it throws counts as damage.
   */
  read<T>(kind: EntryKind, key: string, decode: (body: Buffer, at: EntryAt) => T, o: ReadOptions = {}): T | undefined {
    if (!this.enabled) return undefined;
    return this.readAt(kind, key, this.path(kind, key, o.group), decode, o.onDamage);
  }

  /** `read` of a UTF-8 body (invalid UTF-8 is damage). */
  readText<T>(kind: EntryKind, key: string, decode: (text: string, at: EntryAt) => T, o: ReadOptions = {}): T | undefined {
    return this.read(kind, key, (body, at) => decode(new TextDecoder('utf-8', { fatal: true }).decode(body), at), o);
  }

  /** `read` of a JSON body. */
  readJson<T>(kind: EntryKind, key: string, decode: (value: unknown, at: EntryAt) => T, o: ReadOptions = {}): T | undefined {
    return this.readText(kind, key, (text, at) => decode(JSON.parse(text) as unknown, at), o);
  }

  /**
   * Every entry of a group, in file-name order: damaged ones reported, removed and left out
   * (`damaged` counts them). Files that are not named like entries are not read.
   */
  readGroup<T>(kind: EntryKind, group: string, decode: (body: Buffer, at: EntryAt) => T): { entries: { key: string; value: T }[]; damaged: number } {
    const entries: { key: string; value: T }[] = [];
    let damaged = 0;
    if (!this.enabled) return { entries, damaged };
    const dir = this.dir(kind, group);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return { entries, damaged };
    }
    const suffix = `.${kind.ext}`;
    for (const name of names.sort()) {
      if (!name.endsWith(suffix) || !isCacheKey(name.slice(0, -suffix.length))) continue;
      const key = name.slice(0, -suffix.length);
      const value = this.readAt(kind, key, join(dir, name), decode, () => damaged++);
      if (value !== undefined) entries.push({ key, value });
    }
    return { entries, damaged };
  }

  /**
   * Runs a write into the cache: a filesystem error costs one warning per cache root and gives
   * false (the entry is not cached), and once a root has failed its writes are skipped.
   */
  private attempt(write: () => void): boolean {
    return cacheWrite(this.root, this.log, write);
  }

  /** Writes an entry atomically (nothing with the cache off, or when the write fails: one warning); its path. */
  write(kind: EntryKind, key: string, body: string | Uint8Array | readonly Uint8Array[], o: { group?: string } = {}): string {
    const path = this.path(kind, key, o.group);
    if (!this.enabled) return path;
    const pieces = typeof body === 'string' ? [Buffer.from(body, 'utf8')] : body instanceof Uint8Array ? [body] : body;
    const h = createHash('sha256');
    let length = 0;
    for (const p of pieces) (h.update(p), (length += p.byteLength));
    const head = header(kind, key, length, h.digest('hex'));
    this.attempt(() =>
      writeFileAtomicWith(path, (fd) => {
        writeAll(fd, head);
        cacheWriteFault();
        for (const p of pieces) writeAll(fd, p);
      }),
    );
    return path;
  }

  /**
   * Writes an entry whose body `produce` streams (`put` called with each piece in order), hashed
   * as it goes, or marked `self` when the body verifies itself (`selfVerified`: read it back with
   * `readSelfVerified`). The header is written last, at the file's start. Its path.
   */
  writeStreamed(kind: EntryKind, key: string, produce: (put: (bytes: Uint8Array) => void) => void, o: { group?: string; selfVerified?: boolean } = {}): string {
    const path = this.path(kind, key, o.group);
    if (!this.enabled) return path;
    this.attempt(() =>
      writeFileAtomicWith(path, (fd) => {
        const placeholder = header(kind, key, 0, o.selfVerified ? SELF : '0'.repeat(64));
        writeAll(fd, placeholder);
        cacheWriteFault();
        const h = o.selfVerified ? null : createHash('sha256');
        let length = 0;
        produce((bytes) => {
          writeAll(fd, bytes);
          h?.update(bytes);
          length += bytes.byteLength;
        });
        writeAll(fd, header(kind, key, length, h ? h.digest('hex') : SELF), 0);
      }),
    );
    return path;
  }

  /**
   * Reads an entry written by `writeStreamed(…, {selfVerified: true})`: the store checks the header
   * (kind, format, key, the body's length against the file's) and `read` gets the body's place in
   * the file, checks the body itself (its own checksum) and decodes it; what it throws is damage.
   */
  readSelfVerified<T>(kind: EntryKind, key: string, read: (path: string, offset: number, length: number) => T, o: ReadOptions = {}): T | undefined {
    if (!this.enabled) return undefined;
    const path = this.path(kind, key, o.group);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      if (isMissing(e)) return undefined;
      return this.damaged(kind, path, reasonOf(e), o.onDamage);
    }
    let h: Header;
    let size: number;
    try {
      size = fstatSync(fd).size;
      const prefix = Buffer.alloc(Math.min(MAX_HEADER, size));
      readSync(fd, prefix, 0, prefix.length, 0);
      h = checkHeader(prefix, kind, key);
      if (h.sha256 !== SELF) throw new Damage('not a self-verified entry');
      if (size - h.bytes !== h.length) throw new Damage(`body is ${size - h.bytes} bytes, the header says ${h.length}`);
    } catch (e) {
      closeSync(fd);
      return this.damaged(kind, path, reasonOf(e), o.onDamage);
    }
    closeSync(fd);
    try {
      return read(path, h.bytes, h.length);
    } catch (e) {
      return this.damaged(kind, path, reasonOf(e), o.onDamage);
    }
  }

  /**
   * Writes a file another library makes (`produce` writes it at the path given, a temporary
   * sibling), moves it beside the entry as `<key>.<companion>`, then writes the entry: the file's
   * size and SHA-256 and `describe`. Its path (the companion file's); null when nothing was written
   * (the cache is off, or the write failed: one warning, and no file is left behind).
   */
  writeExternal(kind: EntryKind, key: string, produce: (tmpPath: string) => void, describe: Record<string, unknown> = {}): string | null {
    const file = this.companionPath(kind, key);
    if (!this.enabled) return null;
    const tmp = tempPathFor(file);
    let moved = false;
    const written = this.attempt(() => {
      try {
        makeDirs(this.dir(kind));
        produce(tmp);
        cacheWriteFault();
        const { size, sha256 } = fileDigest(tmp);
        renameSync(tmp, file);
        moved = true;
        const meta = JSON.stringify({ ...describe, file: basename(file), size, sha256 }) + '\n';
        writeFileAtomicWith(this.path(kind, key), (fd) => {
          cacheWriteFault();
          writeAll(fd, header(kind, key, Buffer.byteLength(meta), createHash('sha256').update(meta).digest('hex')));
          writeAll(fd, Buffer.from(meta, 'utf8'));
        });
      } finally {
        rmSync(tmp, { force: true });
      }
    });
    if (!written && moved) this.attempt(() => rmSync(file, { force: true })); // no entry vouches for it
    return written ? file : null;
  }

  /**
   * Loads a file written by `writeExternal`: the entry checked as any entry, then the file's size
   * and SHA-256 against it, then `load` (the library's reader; what it throws is damage). Undefined
   * when absent or damaged (reported; the entry and the file removed).
   */
  readExternal<T>(kind: EntryKind, key: string, load: (path: string) => T, o: ReadOptions = {}): T | undefined {
    if (!this.enabled) return undefined;
    const file = this.companionPath(kind, key);
    const meta = this.readJson(
      kind,
      key,
      (v) => {
        const m = v as { file?: unknown; size?: unknown; sha256?: unknown };
        if (m.file !== basename(file) || !Number.isSafeInteger(m.size) || typeof m.sha256 !== 'string') throw new Damage('not a description of its file');
        return { size: m.size as number, sha256: m.sha256 };
      },
      o,
    );
    if (meta === undefined) {
      try {
        rmSync(file, { force: true }); // no entry vouches for it
      } catch {
        /* a read-only cache: it stays unused */
      }
      return undefined;
    }
    const path = this.path(kind, key);
    try {
      let st;
      try {
        st = statSync(file);
      } catch (e) {
        throw new Damage(isMissing(e) ? `its ${kind.companion} file is missing` : reasonOf(e));
      }
      if (st.size !== meta.size) throw new Damage(`its ${kind.companion} file is ${st.size} bytes, expected ${meta.size}`);
      if (fileDigest(file).sha256 !== meta.sha256) throw new Damage(`its ${kind.companion} file fails its SHA-256 check`);
      return load(file);
    } catch (e) {
      return this.damaged(kind, path, reasonOf(e), o.onDamage);
    }
  }

  /** Removes an entry (and its companion file). */
  remove(kind: CacheKindLayout, key: string, group?: string): void {
    if (!this.enabled) return;
    this.attempt(() => {
      rmSync(this.path(kind, key, group), { force: true });
      if (kind.companion) rmSync(this.companionPath(kind, key, group), { force: true });
    });
  }

  /**
   * A note for people beside a group's entries (`<group folder>/<name>`, plain text, written once,
   * atomically; never read back), e.g. what a reranker score group's key stands for.
   */
  writeNote(kind: CacheKindLayout, group: string, name: string, text: string): void {
    if (!this.enabled) return;
    const file = join(this.dir(kind, group), name);
    if (!existsSync(file))
      this.attempt(() =>
        writeFileAtomicWith(file, (fd) => {
          cacheWriteFault();
          writeAll(fd, Buffer.from(text, 'utf8'));
        }),
      );
  }
}

/** The header line of an entry (for tests and for forging entries of a kind). */
export function entryHeader(kind: EntryKind, key: string, body: Uint8Array): Buffer {
  return header(kind, key, body.byteLength, createHash('sha256').update(body).digest('hex'));
}
