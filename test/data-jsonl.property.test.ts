/**
 * The streamed JSONL reader (data/jsonl.ts `readJsonl`) and the file-backed document store
 * (data/doc-store.ts `JsonlDocStore`, records re-read by offset in blocks of 4 MiB) against their
 * plain definitions:
 * - the reader = Python's `[json.loads(l) for l in open(p) if l.strip()]` written out: the whole
 *   file decoded, split on universal newlines (`\r\n`, `\r`, `\n`), a BOM dropped from line 1,
 *   blank lines skipped but counted; each record's byte offset and length are where its line sits
 *   in the file. Read sizes from 1 byte up, so every terminator (a `\r\n` split between two reads
 *   too), every multi-byte character and every record crosses a read edge; SHA-256, byte and record
 *   counts as computed over the whole buffer.
 * - the store = JSON.parse of each record's line and the document text built from it; ranges over a
 *   file larger than the store's 4 MiB block, with records that straddle the block edge, a record
 *   larger than the block, and gaps (blank lines) between records.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import type { DocSource } from '../src/core/stages.js';
import { JsonlDocStore } from '../src/data/doc-store.js';
import { readJsonl, type JsonlRecord, type JsonlSummary } from '../src/data/jsonl.js';
import { skillFromRecord } from '../src/data/skill-record.js';
import { buildDocumentText, DEFAULT_DOC_FIELDS, DEFAULT_DOC_SEPARATOR, pyStrip } from '../src/data/text.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-jsonl-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (bytes: Buffer): string => {
  const p = join(dir, `f${n++}.jsonl`);
  writeFileSync(p, bytes);
  return p;
};

async function readAll(path: string, chunk: number): Promise<{ records: JsonlRecord[]; summary: JsonlSummary }> {
  const it = readJsonl(path, chunk);
  const records: JsonlRecord[] = [];
  for (;;) {
    const r = await it.next();
    if (r.done) return { records, summary: r.value };
    records.push(r.value);
  }
}

/** The plain definition (see the module comment). */
function plainRead(bytes: Buffer): { records: { line: number; value: unknown; offset: number; length: number }[]; summary: JsonlSummary } {
  const records: { line: number; value: unknown; offset: number; length: number }[] = [];
  let pos = 0;
  let line = 0;
  while (pos < bytes.length) {
    let end = pos;
    while (end < bytes.length && bytes[end] !== 0x0a && bytes[end] !== 0x0d) end++;
    line++;
    let start = pos;
    if (line === 1 && bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) start = 3;
    const text = bytes.toString('utf8', start, end);
    if (pyStrip(text) !== '') {
      records.push({ line, value: JSON.parse(text), offset: start, length: end - start });
    }
    pos = end < bytes.length && bytes[end] === 0x0d && bytes[end + 1] === 0x0a ? end + 2 : end + 1;
  }
  return { records, summary: { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, records: records.length } };
}

const TERMINATORS = ['\n', '\r\n', '\r'];
const BLANKS = ['', ' ', '\t', '  \u00a0 '];

/** A JSONL file: records with multi-byte text, mixed terminators, blank lines, maybe a BOM. */
const jsonlFile = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(
      fc.oneof(
        fc.record({ id: fc.string({ maxLength: 12 }), text: fc.string({ unit: 'grapheme', maxLength: 60 }) }).map((o) => JSON.stringify(o)),
        fc.constantFrom(...BLANKS),
      ),
      { maxLength: 40 },
    ),
    terms: fc.array(fc.constantFrom(...TERMINATORS), { minLength: 40, maxLength: 40 }),
    lastTerminated: fc.boolean(),
  })
  .map(({ bom, lines, terms, lastTerminated }) => {
    const body = lines.map((l, i) => l + (i < lines.length - 1 || lastTerminated ? terms[i]! : '')).join('');
    return Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(body, 'utf8')]);
  });

describe('readJsonl = the plain universal-newline reader', () => {
  test.prop([jsonlFile, fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 300 }), fc.constant(1 << 20))], { numRuns: 300 })(
    'records, line numbers, offsets, lengths and the summary, at every read size',
    async (bytes, chunk) => {
      const got = await readAll(file(bytes), chunk);
      const want = plainRead(bytes);
      expect(got.records.map((r) => ({ line: r.line, value: r.value, offset: r.offset, length: r.length }))).toEqual(want.records);
      expect(got.summary).toEqual(want.summary);
    },
  );
});

describe('JsonlDocStore = JSON.parse of each record line, across its 4 MiB blocks', () => {
  const BLOCK = 4 << 20;
  it('texts over ranges of a file larger than the block (records straddling its edge, one larger than it, gaps)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 0x7fffffff }), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }), async (seed, ranges) => {
        // Record sizes chosen so cumulative offsets land around BLOCK ± a few bytes.
        const sizes: number[] = [];
        let total = 0;
        let s = seed;
        const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
        while (total < 2 * BLOCK + 4096) {
          const size = total < BLOCK - 300_000 ? 200_000 + (next() % 50_000) : total < BLOCK + 100_000 ? 1 + (next() % 40) : next() % 7 === 0 ? BLOCK + 10 : 1000 + (next() % 300_000);
          sizes.push(size);
          total += size + 60;
        }
        const lines: string[] = [];
        sizes.forEach((size, i) => {
          const body = 'é'.repeat(size >> 2) + 'x'.repeat(size - 2 * (size >> 2));
          lines.push(JSON.stringify({ id: `s${i}`, name: `n${i}`, description: `d${i % 7}`, skill_md: body }));
          if (next() % 3 === 0) lines.push(' '.repeat(next() % 100)); // a gap: below and above the store's 64-byte limit
        });
        const bytes = Buffer.from(lines.join(next() % 2 === 0 ? '\n' : '\r\n') + '\n', 'utf8');
        const path = file(bytes);
        const { records } = await readAll(path, 1 << 20);
        const st = statSync(path);
        const source: DocSource = {
          kind: 'jsonl',
          path,
          bytes: st.size,
          mtimeMs: st.mtimeMs,
          skillMdField: 'skill_md',
          fields: DEFAULT_DOC_FIELDS,
          separator: DEFAULT_DOC_SEPARATOR,
          ids: records.map((r) => String(r.value['id'])),
          offsets: Float64Array.from(records, (r) => r.offset),
          lengths: Uint32Array.from(records, (r) => r.length),
        };
        const store = new JsonlDocStore(source);
        const plainText = (k: number) => {
          const { skill } = skillFromRecord(JSON.parse(bytes.toString('utf8', records[k]!.offset, records[k]!.offset + records[k]!.length)) as Record<string, unknown>, { file: path, line: 0 }, 'skill_md');
          return buildDocumentText(skill, DEFAULT_DOC_FIELDS, DEFAULT_DOC_SEPARATOR);
        };
        for (const [x, y] of ranges) {
          const from = x % store.size;
          const to = from + (y % (store.size - from + 1));
          const got = [...store.texts(from, to)];
          expect(got.length).toBe(to - from);
          got.forEach((t, j) => expect(t === plainText(from + j), `document ${from + j}`).toBe(true));
        }
        const all = [...store.texts()];
        all.forEach((t, k) => expect(t === plainText(k), `document ${k}`).toBe(true));
      }),
      { numRuns: 3 },
    );
  });
});
