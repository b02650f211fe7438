/**
 * Round trips of the vector readers (src/formats/npy.ts, safetensors.ts, vectors-jsonl.ts,
 * ids-file.ts) against the test writers (test/helpers/vector-files.ts, byte-identical to NumPy's
 * np.save per formats-vectors.test.ts): random shapes (0 rows, 1 column and up), float32 values
 * (every bit pattern fast-check's fc.float makes, -0 and subnormals included), float16 rounding,
 * both byte orders and the three .npy versions; every truncation of a file is refused as truncated.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { halfBitsToNumber } from '../src/formats/half.js';
import { parseIdsFile } from '../src/formats/ids-file.js';
import { parseNpy } from '../src/formats/npy.js';
import { parseSafetensors } from '../src/formats/safetensors.js';
import { parseVectorJsonl } from '../src/formats/vectors-jsonl.js';
import { toBfloat16 } from '../src/models/float-formats.js';
import { float16Bits, idsText, npyBytes, safetensorsBytes, vectorJsonl } from './helpers/vector-files.js';

/** A matrix of `rows` x `dim` float32 values. */
const matrix = (o: { maxRows?: number; maxDim?: number; finite?: boolean } = {}) =>
  fc
    .record({ rows: fc.integer({ min: 0, max: o.maxRows ?? 12 }), dim: fc.integer({ min: 1, max: o.maxDim ?? 40 }) })
    .chain(({ rows, dim }) =>
      fc.array(fc.array(fc.float(o.finite ? { noNaN: true, noDefaultInfinity: true } : {}), { minLength: dim, maxLength: dim }), { minLength: rows, maxLength: rows }).map((m) => ({ m, dim })),
    );

const half = (x: number) => halfBitsToNumber(float16Bits(x));
/** Same values, NaN equal to NaN and -0 apart from 0. */
function sameValues(got: ArrayLike<number>, want: readonly number[]): boolean {
  if (got.length !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (!(Object.is(got[i], want[i]) || (Number.isNaN(got[i]) && Number.isNaN(want[i]!)))) return false;
  return true;
}
function messageOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    return e.message;
  }
}

describe('.npy round trip', () => {
  test.prop([matrix(), fc.constantFrom('<f4', '>f4', '<f2', '>f2' as const), fc.constantFrom(1, 2, 3 as const)])('reads back what np.save writes', ({ m, dim }, dtype, version) => {
    const got = parseNpy(npyBytes(m, { dtype, version, shape: [m.length, dim] }), 'x.npy');
    expect([got.rows, got.dim, got.dtype]).toEqual([m.length, dim, dtype.endsWith('4') ? 'float32' : 'float16']);
    expect(sameValues(got.data, m.flat().map(dtype.endsWith('4') ? Math.fround : half))).toBe(true);
  });

  test.prop([matrix({ maxRows: 4, maxDim: 6 }), fc.constantFrom(1, 2, 3 as const), fc.nat()])('every cut of a file is refused as truncated', ({ m, dim }, version, at) => {
    const bytes = npyBytes(m, { version, shape: [m.length, dim] });
    const cut = at % bytes.length;
    expect(messageOf(() => parseNpy(bytes.subarray(0, cut), 'x.npy'))).toMatch(/^x\.npy: truncated: /);
  });
});

describe('.safetensors round trip', () => {
  const tensors = fc.uniqueArray(fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), dtype: fc.constantFrom('F32', 'F16', 'BF16' as const), mx: matrix({ maxRows: 6, maxDim: 9 }) }), {
    minLength: 1,
    maxLength: 3,
    selector: (t) => t.name,
  });
  test.prop([tensors, fc.nat(), fc.option(fc.nat(), { nil: undefined })])('reads back the tensor named; a cut before its end is refused as truncated', (ts, pick, cutAt) => {
    const specs = ts.map((t) => ({ name: t.name, dtype: t.dtype, rows: t.mx.m, shape: [t.mx.m.length, t.mx.dim] }));
    const bytes = safetensorsBytes(specs, { note: 'x' });
    const i = pick % ts.length;
    const t = ts[i]!;
    const round = t.dtype === 'F32' ? Math.fround : t.dtype === 'F16' ? half : toBfloat16;
    if (cutAt === undefined) {
      const got = parseSafetensors(bytes, 'x.safetensors', t.name);
      expect([got.rows, got.dim, got.tensor]).toEqual([t.mx.m.length, t.mx.dim, t.name]);
      expect(sameValues(got.data, t.mx.m.flat().map(round))).toBe(true);
      return;
    }
    const cut = cutAt % bytes.length;
    const header = Number(bytes.readBigUInt64LE(0));
    const before = specs.slice(0, i).reduce((s, x) => s + x.rows.flat().length * (x.dtype === 'F32' ? 4 : 2), 0);
    const end = 8 + header + before + t.mx.m.flat().length * (t.dtype === 'F32' ? 4 : 2);
    const msg = messageOf(() => parseSafetensors(bytes.subarray(0, cut), 'x.safetensors', t.name));
    if (cut < end) expect(msg).toMatch(/^x\.safetensors: truncated: /);
    else expect(msg).toBeNull();
  });
});

describe('JSONL and ids round trips', () => {
  const id = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' });
  test.prop([matrix({ finite: true }).chain(({ m, dim }) => fc.uniqueArray(id, { minLength: m.length, maxLength: m.length }).map((ids) => ({ m, dim, ids })))])(
    'JSONL reads back ids and float32 vectors',
    ({ m, dim, ids }) => {
      const got = parseVectorJsonl(Buffer.from(vectorJsonl(ids, m)), 'v.jsonl');
      expect(got.ids).toEqual(ids);
      expect(got.dim).toBe(m.length ? dim : 0);
      // JSON has no -0: it reads back as 0.
      expect(sameValues(got.data, m.flat().map((x) => (x === 0 ? 0 : x)))).toBe(true);
    },
  );

  test.prop([fc.array(id.filter((s) => !s.includes('\n') && !s.endsWith('\r') && !s.startsWith('\ufeff')), { maxLength: 20 }), fc.boolean()])(
    'an ids file reads back its lines, with or without a final newline',
    (ids, finalNewline) => {
      const text = finalNewline ? idsText(ids) : ids.join('\n');
      expect(parseIdsFile(Buffer.from(text), 'i.txt')).toEqual(ids);
    },
  );
});
