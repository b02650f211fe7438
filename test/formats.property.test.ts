/**
 * The byte scanner of TREC files (src/formats/trec-columns.ts) against its plain definitions
 * (test/helpers/plain-trec.ts): the line reader of lines.ts plus a regex split, `Number()`, and
 * string comparison.
 *
 * - `scanColumns` / `scanColumnBatches` = readLineBatches + splitColumns: same non-blank lines, line
 *   numbers, column counts (past MAX_COLUMNS = 8) and columns; invalid UTF-8 names the same line and
 *   every line before it is handed over first. Crossed: read chunks (`chunkBytes` 1..4096: lines
 *   across chunk edges, lines longer than the chunk so the buffer doubles, a BOM and multi-byte
 *   characters across the edge, a last line without LF) and BATCH_LINES = 4096 (non-blank line
 *   counts 4096·m ± 2, m = 1..3, blank lines between them, a chunk edge within 3 bytes of the batch
 *   edge, a bad line at the batch edge).
 * - `parseDecimal` = `Number(text)` on the decimal grammar (Clinger's fast path: mantissas around
 *   2^53, 2^54, 10·2^53, 2^53/10; scales around ±22 and far out; leading zeros, long fractions, huge
 *   exponents), from the bytes and from a batch's chunk text; `parseInteger` = `Number(text)` when a
 *   safe integer (texts around 2^53).
 * - `ColumnTracker` = comparing with the previous string (its copy buffer: 64 bytes, regrown to 2n:
 *   lengths 64·2^k ± 2, columns in a reused, overwritten chunk).
 * The readers built on these (trec-run.ts, trec-qrels.ts, query-rows.ts) and the evaluator fed by
 * them: test/formats-readers.property.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import {
  batchColumn,
  column,
  type ColumnBatch,
  ColumnTracker,
  MAX_COLUMNS,
  parseDecimal,
  parseInteger,
  scanColumnBatches,
  scanColumns,
} from '../src/formats/trec-columns.js';
import { around, outcome, plainColumns, plainDecimal, plainInteger, prng } from './helpers/plain-trec.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-formats-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${fileNo++}.txt`);
  writeFileSync(p, content);
  return p;
}

const BATCH_LINES = 4096; // trec-columns.ts (module constant)

// ---------------------------------------------------------------------------------------------
// Line and column generators

const SEPS = [' ', '\t', '  ', ' \t ', '\f', '\v', '\r', ' \r ', '\t\v\f '];
/** Column texts with every quirk: non-ASCII, NBSP and BOM inside a column, control bytes, numbers. */
const COLS = ['d1', 'Q0', 'skill-0042', 'café', 'λόγος', '🙂x', 'a\u00a0b', '\ufffd', 'ÿ', '\ufeffbom', 'ctl\u0001x', '\u001f', 'a\u007fb', '\u0000nul', '漢字', '1.5e-3', '-0', '+.5', '007', '12345678901234567890'];
const SEP_CHARS = /[ \t\n\v\f\r]/g;

const sepArb = fc.constantFrom(...SEPS);
/** Any Unicode column (lone surrogates made U+FFFD, as a UTF-8 file holds them), no separator inside. */
const anyColArb = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 12 })
  .map((s) => Buffer.from(s.replace(SEP_CHARS, ''), 'utf8').toString('utf8'))
  .filter((s) => s.length > 0);
const decimalText = (): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom('', '+', '-'),
      fc.constantFrom('', '0', '000'),
      fc.stringMatching(/^[0-9]{0,20}$/),
      fc.option(fc.stringMatching(/^[0-9]{0,25}$/), { nil: undefined }),
      fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 })), { nil: undefined }),
    )
    .map(([sign, zeros, int, frac, exp]) => `${sign}${zeros}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `${exp[0]}${exp[1]}${exp[2]}`}`);
const colArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...COLS) },
  { weight: 2, arbitrary: anyColArb },
  { weight: 2, arbitrary: decimalText().filter((s) => s.length > 0) },
  // longer than the small chunks: the read buffer doubles until the line fits
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.constantFrom('x', 'é', '🙂')).map(([n, c]) => c.repeat(n)) },
);

/** One line's bytes without the terminator: a blank line, columns, or an invalid UTF-8 line. */
type GenLine = { kind: 'blank' | 'cols'; text: string } | { kind: 'bad'; text: string; bad: Buffer };
const BAD_BYTES = [[0xff], [0xc3], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x99], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]].map((b) => Buffer.from(b));
const lineArb: fc.Arbitrary<GenLine> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '\t\r', '\r', '\v\f').map((text): GenLine => ({ kind: 'blank', text })) },
  {
    weight: 12,
    arbitrary: fc
      .tuple(fc.option(sepArb, { nil: '' }), fc.array(fc.tuple(colArb, sepArb), { minLength: 1, maxLength: 11 }), fc.option(sepArb, { nil: '' }))
      .map(([lead, cols, trail]): GenLine => ({ kind: 'cols', text: lead + cols.map(([c, s], i) => (i === 0 ? c : s + c)).join('') + trail })),
  },
);

/** The file's bytes: an optional BOM, the lines with LF or CRLF, the last one maybe without. */
function fileBytes(lines: readonly GenLine[], eols: readonly boolean[], bom: boolean, lastLf: boolean): Buffer {
  const parts: Buffer[] = bom ? [Buffer.from('\ufeff')] : [];
  lines.forEach((l, i) => {
    parts.push(Buffer.from(l.text, 'utf8'));
    if (l.kind === 'bad') parts.push(l.bad, Buffer.from('z', 'utf8'));
    if (i < lines.length - 1 || lastLf) parts.push(Buffer.from(eols[i % eols.length] ? '\r\n' : '\n'));
  });
  return Buffer.concat(parts);
}

/**
 * What the scanner hands over: [line, count, recorded columns]. Also checks each batch: 1..4096
 * lines, offsets inside the chunk, and every column's `parseDecimal` from the chunk text.
 */
async function scanned(
  path: string,
  chunkBytes: number | undefined,
  viaBatches: boolean,
): Promise<{ lines: Array<[number, number, string[]]>; batches: number[]; error?: string }> {
  const lines: Array<[number, number, string[]]> = [];
  const batches: number[] = [];
  try {
    if (viaBatches) {
      await scanColumnBatches(
        path,
        (b: ColumnBatch) => {
          if (b.n < 1 || b.n > BATCH_LINES) throw new Error(`batch of ${b.n} lines`);
          batches.push(b.n);
          for (let j = 0; j < b.n; j++) {
            const cols: string[] = [];
            for (let i = 0; i < Math.min(b.count[j]!, MAX_COLUMNS); i++) {
              const c = j * MAX_COLUMNS + i;
              if (b.end[c]! > b.size) throw new Error('column past the chunk');
              const text = batchColumn(b, j, i);
              cols.push(text);
              // numbers sliced from the chunk's Latin-1 text (one per chunk) = Number() of the column
              const v = parseDecimal(b.buf, b.start[c]!, b.end[c]!, b);
              if (!Object.is(v, plainDecimal(text))) throw new Error(`parseDecimal of ${JSON.stringify(text)} on line ${b.line[j]!}: ${v}`);
            }
            lines.push([b.line[j]!, b.count[j]!, cols]);
          }
        },
        chunkBytes,
      );
    } else {
      await scanColumns(
        path,
        (l) => {
          const cols: string[] = [];
          for (let i = 0; i < Math.min(l.count, MAX_COLUMNS); i++) cols.push(column(l, i));
          lines.push([l.line, l.count, cols]);
        },
        chunkBytes,
      );
    }
  } catch (e) {
    return { lines, batches, error: (e as Error).message };
  }
  return { lines, batches };
}

/** The plain view in the scanner's shape: columns past MAX_COLUMNS counted, not recorded. */
function asScanned(plain: Array<[number, string[]]>): Array<[number, number, string[]]> {
  return plain.map(([line, cols]) => [line, cols.length, cols.slice(0, MAX_COLUMNS)]);
}

/**
 * Checks the scanner against the line reader on `bytes`: when the file is valid, the same lines;
 * when line N is the first invalid one, both name line N and the scanner has handed over exactly
 * the non-blank lines before it (those of the same file with the bad bytes made valid).
 */
async function expectSameAsLineReader(bytes: Buffer, cleanBytes: Buffer, chunkBytes: number | undefined, viaBatches: boolean): Promise<number[]> {
  const p = file(bytes);
  const plain = await outcome(() => plainColumns(p));
  const got = await scanned(p, chunkBytes, viaBatches);
  if ('ok' in plain) {
    expect(got.error).toBeUndefined();
    expect(got.lines).toEqual(asScanned(plain.ok));
    return got.batches;
  }
  const m = /:(\d+): invalid UTF-8 byte sequence \(the file must be UTF-8\)$/.exec(plain.error);
  expect(m, plain.error).not.toBeNull();
  const badLine = Number(m![1]);
  expect(got.error).toBe(`${p}:${badLine}: invalid UTF-8 byte sequence (the file must be UTF-8)`);
  const before = asScanned((await plainColumns(file(cleanBytes))).filter(([line]) => line < badLine));
  expect(got.lines).toEqual(before);
  return got.batches;
}

describe('scanColumns / scanColumnBatches = line reader + splitColumns', () => {
  test.prop(
    [
      fc.array(lineArb, { maxLength: 60 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      fc.boolean(),
      fc.boolean(),
      fc.constantFrom(1, 15, 16, 17, 18, 19, 31, 32, 33, 63, 64, 65, 100, 4096),
      fc.boolean(),
    ],
    { numRuns: 300 },
  )('random tricky lines, small read chunks (lines across chunk edges, longer than the chunk)', async (lines, eols, bom, lastLf, chunk, viaBatches) => {
    const bytes = fileBytes(lines, eols, bom, lastLf);
    await expectSameAsLineReader(bytes, bytes, chunk, viaBatches);
  });

  test.prop(
    [
      fc.array(lineArb, { minLength: 1, maxLength: 40 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
      fc.boolean(),
      fc.boolean(),
      fc.constantFrom(16, 17, 19, 32, 64, 100, undefined),
      fc.nat(),
      fc.constantFrom(...BAD_BYTES),
      fc.nat(3),
    ],
    { numRuns: 200 },
  )('invalid UTF-8 names the same line, after every line before it', async (lines, eols, bom, lastLf, chunk, at, bad, where) => {
    const i = at % lines.length;
    const base = lines[i]!.text;
    // the bad bytes at the start, middle or end of the line (then 'z'), or alone on it
    const cut = where === 0 ? 0 : where === 1 ? base.length >> 1 : base.length;
    const head = [...base].slice(0, cut).join('');
    const badLines = lines.map((l, k): GenLine => (k === i ? { kind: 'bad', text: where === 3 ? '' : head, bad } : l));
    const cleanLines = lines.map((l, k): GenLine => (k === i ? { kind: 'cols', text: `${where === 3 ? '' : head}?z` } : l));
    await expectSameAsLineReader(fileBytes(badLines, eols, bom, lastLf), fileBytes(cleanLines, eols, bom, lastLf), chunk, true);
  });

  const COUNTS = [1, 2, 3].flatMap((m) => around(m * BATCH_LINES));
  test.prop(
    [
      fc.constantFrom(...COUNTS),
      fc.integer(),
      fc.constantFrom(0, 0.01, 0.2),
      // the whole file in one chunk, or a chunk edge within 3 bytes of the end of non-blank line 4096
      fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined }),
      fc.option(fc.constantFrom(-2, -1, 0, 1, 2), { nil: undefined }),
    ],
    { numRuns: 24 },
  )('non-blank line counts 4096·m ± 2 (m = 1..3): batches of at most 4096 lines, none lost or repeated', async (count, seed, blankRate, edge, badAt) => {
    const r = prng(seed);
    const lines: GenLine[] = [];
    let nonBlank = 0;
    let badIndex = -1;
    while (nonBlank < count) {
      if (r() < blankRate) {
        lines.push({ kind: 'blank', text: r() < 0.5 ? '' : ' \t' });
        continue;
      }
      nonBlank++;
      const text = `q${Math.floor(nonBlank / 50)}${SEPS[nonBlank % SEPS.length]!}d${Math.floor(r() * 1e4)} ${nonBlank} ${(r() * 10).toFixed(4)}${r() < 0.1 ? ' é' : ''}`;
      // the bad line is the non-blank line BATCH_LINES·m + badAt (m = 1): at the first batch edge
      if (badAt !== undefined && nonBlank === BATCH_LINES + 1 + badAt && nonBlank <= count) {
        badIndex = lines.length;
        lines.push({ kind: 'bad', text, bad: BAD_BYTES[Math.floor(r() * BAD_BYTES.length)]! });
      } else lines.push({ kind: 'cols', text });
    }
    const eols = [r() < 0.5, r() < 0.5];
    const bom = r() < 0.5;
    const lastLf = r() < 0.5;
    const bytes = fileBytes(lines, eols, bom, lastLf);
    const clean = badIndex === -1 ? bytes : fileBytes(lines.map((l, k): GenLine => (k === badIndex ? { kind: 'cols', text: l.text + '?z' } : l)), eols, bom, lastLf);
    let chunk: number | undefined;
    if (edge !== undefined) {
      // bytes up to the end of the 4096th non-blank line (or of the last line when there are fewer)
      let k = 0;
      for (let seen = 0; k < lines.length; k++) if (lines[k]!.kind !== 'blank' && ++seen === Math.min(count, BATCH_LINES)) break;
      const upTo = lines.slice(0, k + 1);
      chunk = fileBytes(upTo, eols, bom, true).length + edge;
    }
    const batches = await expectSameAsLineReader(bytes, clean, chunk, true);
    if (chunk === undefined && badIndex === -1) {
      // one chunk holds every line up to the last LF: batches of exactly 4096 lines, then the rest
      // (a last line without LF comes once the end of the file is seen: a batch of its own)
      const complete = lastLf || lines[lines.length - 1]!.kind === 'blank' ? count : count - 1;
      const want = Array.from({ length: Math.ceil(complete / BATCH_LINES) }, (_, i) => Math.min(BATCH_LINES, complete - i * BATCH_LINES));
      expect(batches).toEqual(complete === count ? want : [...want, 1]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Numbers from bytes

/** A batch whose chunk is `buf` (parseDecimal then slices the chunk's Latin-1 text). */
function batchOf(buf: Buffer): ColumnBatch {
  return { buf, n: 0, line: new Int32Array(0), count: new Int32Array(0), ascii: new Uint8Array(0), start: new Int32Array(0), end: new Int32Array(0), size: buf.length, text: undefined };
}

/** `text` inside a larger buffer (junk digits around it, as in a chunk): [buf, start, end]. */
function embedded(text: string, before: string, after: string): [Buffer, number, number] {
  const buf = Buffer.from(before + text + after, 'utf8');
  const s = Buffer.byteLength(before);
  return [buf, s, s + Buffer.byteLength(text)];
}

const TWO_53 = 2n ** 53n;
/** Mantissa digit strings at Clinger's edges: around 2^53 (and 10x, 2x), 10^15..10^17, random. */
const mantissaArb = fc.oneof(
  fc.integer({ min: -4, max: 4 }).chain((d) => fc.constantFrom(TWO_53 + BigInt(d), 2n * TWO_53 + BigInt(d), 10n * TWO_53 + BigInt(d), TWO_53 / 10n + BigInt(d)).map(String)),
  fc.constantFrom('1', '9', '10', '1000000000000000', '9999999999999999', '10000000000000000', '99999999999999999', '4503599627370497', '123456789012345678901234567890'),
  fc.stringMatching(/^[0-9]{1,25}$/),
);
/** Every decimal form: sign, leading zeros, the point anywhere (or none), trailing zeros, an exponent
 * putting the scale around ±22 or far out. */
const decimalArb = fc
  .tuple(
    fc.constantFrom('', '+', '-'),
    fc.constantFrom('', '0', '00000', '0'.repeat(25)),
    mantissaArb,
    fc.nat(),
    fc.constantFrom('', '0', '000', '0'.repeat(20)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(37, 44, 300, 308, 309, 323, 324, 400, 999_999, 1_000_000, 12_345_678)), fc.constantFrom('', '0', '000000000000')), { nil: undefined }),
    fc.boolean(),
  )
  .map(([sign, zeros, mant, at, trailing, exp, point]) => {
    const digits = zeros + mant + trailing;
    const p = at % (digits.length + 1);
    const body = point ? `${digits.slice(0, p)}.${digits.slice(p)}` : digits;
    return `${sign}${body === '.' ? '0' : body}${exp === undefined ? '' : `${exp[0]}${exp[1]}${exp[3]}${exp[2]}`}`;
  });
/** Texts near the grammar that it may reject: any mix of digits, signs, points, exponents, junk. */
const nearDecimalArb = fc.array(fc.constantFrom('0', '1', '5', '9', '.', 'e', 'E', '+', '-', 'x', ' ', '١', 'é', 'Infinity', 'NaN', '0x1'), { maxLength: 10 }).map((a) => a.join(''));

describe('parseDecimal = Number() on the decimal grammar', () => {
  test.prop([fc.oneof(decimalArb, nearDecimalArb, decimalText()), fc.constantFrom('', '7', ' 1.5 '), fc.constantFrom('', '9', 'e5 ')], { numRuns: 20_000 })(
    'every decimal form (Clinger edges: mantissa around 2^53, scale around ±22), from bytes and from the chunk text',
    (text, before, after) => {
      const want = plainDecimal(text);
      const [buf, s, e] = embedded(text, before, after);
      expect(parseDecimal(buf, s, e), text).toBe(want); // toBe: Object.is (-0 is not 0)
      expect(parseDecimal(buf, s, e, batchOf(buf)), text).toBe(want);
    },
  );
});

/** Integer texts around 2^53 (the safe limit), with signs and leading zeros, and near misses. */
const integerArb = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', '+', '-'),
      fc.constantFrom('', '0', '0'.repeat(20)),
      fc.oneof(fc.integer({ min: -4, max: 4 }).map((d) => String(TWO_53 + BigInt(d))), fc.stringMatching(/^[0-9]{1,20}$/), fc.constantFrom('0', '9999999999999999', '90071992547409910')),
    )
    .map(([a, b, c]) => a + b + c),
  fc.array(fc.constantFrom('0', '7', '9', '+', '-', '.', 'e', ' ', 'x', '٣'), { maxLength: 8 }).map((a) => a.join('')),
);

describe('parseInteger = Number() when a safe integer', () => {
  test.prop([integerArb, fc.constantFrom('', '5', ' -')], { numRuns: 10_000 })('integers around 2^53, signs, leading zeros, junk', (text, before) => {
    const [buf, s, e] = embedded(text, before, '1');
    expect(parseInteger(buf, s, e), text).toBe(plainInteger(text));
  });
});

// ---------------------------------------------------------------------------------------------
// ColumnTracker

/** Lengths around the tracker's copy buffer: 64 bytes, regrown to 2n. */
const TRACKER_LENGTHS = [0, 1, ...[64, 128, 256, 512].flatMap((p) => around(p))];
const trackedArb = fc.oneof(
  fc.constantFrom('q1', 'q2', 'q1 ', 'q10', 'é', 'e\u0301', '🙂', 'q'),
  fc.tuple(fc.constantFrom(...TRACKER_LENGTHS), fc.constantFrom('a', 'b'), fc.constantFrom('', 'z', 'é')).map(([n, c, tail]) => c.repeat(n) + tail),
  anyColArb,
);

describe('ColumnTracker = comparing with the previous string', () => {
  test.prop([fc.array(fc.tuple(trackedArb, fc.integer({ min: 1, max: 3 }), fc.nat(3), fc.nat(MAX_COLUMNS - 1), fc.nat(20)), { minLength: 1, maxLength: 40 })], { numRuns: 500 })(
    'changed() is true exactly when the column differs from the last line (lengths 64·2^k ± 2)',
    (runs) => {
      // each value on 1..3 consecutive lines (a query's lines), at varying places of the chunk
      const seq = runs.flatMap(([value, times, j, i, offset]) => Array.from({ length: times }, (_, t) => [value, j, (i + t) % MAX_COLUMNS, (offset * (t + 1)) % 21] as const));
      const tracker = new ColumnTracker();
      const buf = Buffer.alloc(4096);
      let prev: string | undefined;
      for (const [value, j, i, offset] of seq) {
        // the chunk is reused: overwrite it (junk first) and place the column at batch line j, column i
        buf.fill(0x78);
        const bytes = Buffer.from(value, 'utf8');
        bytes.copy(buf, offset);
        const b: ColumnBatch = { ...batchOf(buf), start: new Int32Array(4 * MAX_COLUMNS), end: new Int32Array(4 * MAX_COLUMNS) };
        b.start[j * MAX_COLUMNS + i] = offset;
        b.end[j * MAX_COLUMNS + i] = offset + bytes.length;
        expect(tracker.changed(b, j, i), JSON.stringify([prev, value])).toBe(value !== prev);
        prev = value;
      }
    },
  );
});
