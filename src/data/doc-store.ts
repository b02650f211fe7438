/**
 * Document stores (the `DocStore` of core/stages.ts): the corpus as ids plus texts read on demand.
 *
 * - `JsonlDocStore`: ids and the byte offset and length of each skill's record in the skills JSONL
 *   file; a text is re-read from the file (one `readSync` of the record), parsed with the loader's
 *   rules (`skillFromRecord`: fallbacks, validation) and built with `buildDocumentText`, so it is
 *   exactly the text the in-memory path gives. `texts()` reads consecutive records in blocks. Each
 *   record read is checked against the id loaded for it, and the file against the size and mtime
 *   seen at load: a file changed since loading is an error, never a silent mix.
 * - `MemoryDocStore`: texts held in memory (the library API and tests, given `Doc[]`).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Doc, DocSource, DocStore } from '../core/stages.js';
import type { Skill } from '../core/types.js';
import { UserError, where } from '../core/errors.js';
import { skillFromRecord } from './skill-record.js';
import { parseJsonlLine } from './jsonl.js';
import { buildDocumentText, DEFAULT_DOC_FIELDS, DEFAULT_DOC_SEPARATOR, type DocField } from './text.js';

/** Bytes read per block when streaming. */
const BLOCK_BYTES = 4 << 20;

const decoder = new TextDecoder('utf-8', { fatal: true });

export class MemoryDocStore implements DocStore {
  readonly ids: readonly string[];
  private readonly textOf: readonly string[];
  private index: Map<string, number> | undefined;
  readonly source = undefined;

  constructor(docs: readonly Doc[]) {
    this.ids = docs.map((d) => d.id);
    this.textOf = docs.map((d) => d.text);
  }

  get size(): number {
    return this.ids.length;
  }

  indexOf(id: string): number | undefined {
    this.index ??= new Map(this.ids.map((x, i) => [x, i]));
    return this.index.get(id);
  }

  text(i: number): string {
    const t = this.textOf[i];
    if (t === undefined) throw new RangeError(`document ${i} out of range 0..${this.size - 1}`);
    return t;
  }

  *texts(from = 0, to = this.size): Iterable<string> {
    for (let i = from; i < to; i++) yield this.textOf[i]!;
  }
}

export class JsonlDocStore implements DocStore {
  private index: Map<string, number> | undefined;
  private readonly fields: readonly DocField[];

  constructor(readonly source: DocSource) {
    if (source.offsets.length !== source.ids.length || source.lengths.length !== source.ids.length) {
      throw new RangeError(`${source.ids.length} ids, ${source.offsets.length} offsets, ${source.lengths.length} lengths`);
    }
    this.fields = source.fields as readonly DocField[];
  }

  get size(): number {
    return this.source.ids.length;
  }

  get ids(): readonly string[] {
    return this.source.ids;
  }

  indexOf(id: string): number | undefined {
    this.index ??= new Map(this.source.ids.map((x, i) => [x, i]));
    return this.index.get(id);
  }

  /** The skill of document `i` with all its fields, read from the file. */
  skill(i: number): Skill {
    this.check(i);
    const fd = this.open();
    try {
      const len = this.source.lengths[i]!;
      const buf = Buffer.allocUnsafe(len);
      const n = readSync(fd, buf, 0, len, this.source.offsets[i]!);
      if (n !== len) throw this.changed();
      return this.decode(i, buf);
    } finally {
      closeSync(fd);
    }
  }

  text(i: number): string {
    return buildDocumentText(this.skill(i), this.fields, this.source.separator);
  }

  *texts(from = 0, to = this.size): Iterable<string> {
    for (const s of this.skills(from, to)) yield buildDocumentText(s, this.fields, this.source.separator);
  }

  /** Skills of documents [from, to) in order, read in blocks of consecutive records. */
  *skills(from = 0, to = this.size): Iterable<Skill> {
    if (from < 0 || to > this.size || from > to) throw new RangeError(`range [${from}, ${to}) outside 0..${this.size}`);
    if (from === to) return;
    const { offsets, lengths } = this.source;
    const fd = this.open();
    try {
      let buf = Buffer.allocUnsafe(BLOCK_BYTES);
      let i = from;
      while (i < to) {
        // A block: records i..j-1, consecutive in the file order of their offsets' range.
        const start = offsets[i]!;
        let j = i + 1;
        let end = start + lengths[i]!;
        while (j < to && offsets[j]! >= end && offsets[j]! + lengths[j]! - start <= BLOCK_BYTES && offsets[j]! - end < 64) {
          end = offsets[j]! + lengths[j]!;
          j++;
        }
        const span = end - start;
        if (span > buf.length) buf = Buffer.allocUnsafe(span);
        const n = readSync(fd, buf, 0, span, start);
        if (n !== span) throw this.changed();
        for (let k = i; k < j; k++) {
          const at = offsets[k]! - start;
          yield this.decode(k, buf.subarray(at, at + lengths[k]!));
        }
        i = j;
      }
    } finally {
      closeSync(fd);
    }
  }

  private check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.size) throw new RangeError(`document ${i} out of range 0..${this.size - 1}`);
  }

  private open(): number {
    const { path, bytes, mtimeMs } = this.source;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      throw new UserError(`${where(path)}cannot read the skills file again (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    const st = fstatSync(fd);
    if (st.size !== bytes || st.mtimeMs !== mtimeMs) {
      closeSync(fd);
      throw this.changed();
    }
    return fd;
  }

  private changed(): UserError {
    return new UserError(`${where(this.source.path)}the skills file changed while the run was reading it; run again`);
  }

  private decode(i: number, bytes: Uint8Array): Skill {
    const path = this.source.path;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw this.changed();
    }
    const at = { file: path, line: 0 };
    const { skill } = skillFromRecord(parseJsonlLine(path, 0, text), at, this.source.skillMdField);
    if (skill.id !== this.source.ids[i]) throw this.changed();
    return skill;
  }
}

/** The store a worker thread reopens from `source`. */
export function openDocStore(source: DocSource): JsonlDocStore {
  return new JsonlDocStore(source);
}

/** A read-only map id → document text over a store, reading each text once and keeping it (rerank pools). */
export class StoreTextMap implements ReadonlyMap<string, string> {
  private readonly memo = new Map<string, string>();

  constructor(private readonly store: DocStore) {}

  get size(): number {
    return this.store.size;
  }

  has(id: string): boolean {
    return this.store.indexOf(id) !== undefined;
  }

  get(id: string): string | undefined {
    const hit = this.memo.get(id);
    if (hit !== undefined) return hit;
    const i = this.store.indexOf(id);
    if (i === undefined) return undefined;
    const t = this.store.text(i);
    this.memo.set(id, t);
    return t;
  }

  *entries(): MapIterator<[string, string]> {
    for (const id of this.store.ids) yield [id, this.get(id)!];
  }

  *keys(): MapIterator<string> {
    yield* this.store.ids;
  }

  *values(): MapIterator<string> {
    for (const id of this.store.ids) yield this.get(id)!;
  }

  forEach(cb: (value: string, key: string, map: ReadonlyMap<string, string>) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }
}

/** What `fileDocSource` needs from a loaded dataset. */
export interface SkillRecordRefs {
  path: string;
  bytes: number;
  mtimeMs: number;
  skillMdField: string;
  ids: readonly string[];
  offsets: ArrayLike<number>;
  lengths: ArrayLike<number>;
}

/** The source of a store over the dataset's skills with the given text fields. */
export function fileDocSource(refs: SkillRecordRefs, fields: readonly DocField[] = DEFAULT_DOC_FIELDS, separator: string = DEFAULT_DOC_SEPARATOR): DocSource {
  return {
    kind: 'jsonl',
    path: refs.path,
    bytes: refs.bytes,
    mtimeMs: refs.mtimeMs,
    skillMdField: refs.skillMdField,
    fields: [...fields],
    separator,
    ids: [...refs.ids],
    offsets: Float64Array.from(refs.offsets),
    lengths: Uint32Array.from(refs.lengths),
  };
}

/**
 * Every document of `store` with its text in memory (tests, small corpora). The run's stages never
 * call it: BM25 and the dense encoders stream texts from the store.
 */
export function docArray(store: DocStore): Doc[] {
  const out: Doc[] = new Array<Doc>(store.size);
  let i = 0;
  for (const text of store.texts()) {
    out[i] = { id: store.ids[i]!, text };
    i++;
  }
  return out;
}
