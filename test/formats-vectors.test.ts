/**
 * The vector-file readers of `type: embeddings` (src/formats/): .npy against files NumPy itself
 * wrote (test/fixtures/npy/, made once with numpy 2.4: np.save of a 3 x 4 float32 array, its
 * float16 and big-endian casts, format versions 2.0 and 3.0, and the refused shapes and dtypes),
 * .safetensors, JSONL, ids files, the Parquet seam, float16 decoding exhaustively against a bit-level
 * definition, and every refusal as one line naming the file.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { toBfloat16 } from '../src/models/float-formats.js';
import { decodeBfloat16, decodeFloat16, halfBitsToNumber } from '../src/formats/half.js';
import { parseIdsFile } from '../src/formats/ids-file.js';
import { parseNpy, parsePyLiteral, readNpyHeader } from '../src/formats/npy.js';
import { parseSafetensors, readSafetensorsTensor } from '../src/formats/safetensors.js';
import { checkVectorSource, formatFromPath, readVectorSource } from '../src/formats/vector-file.js';
import { parseVectorJsonl } from '../src/formats/vectors-jsonl.js';
import { parquetUnavailable, parseVectorParquet, type ParquetColumnReader } from '../src/formats/vectors-parquet.js';
import { bfloat16Bits, float16Bits, idsText, npyBytes, safetensorsBytes, vectorJsonl } from './helpers/vector-files.js';
import { parquetBytes } from './helpers/vector-files.js';

const FIX = resolve(__dirname, 'fixtures/npy');
const expected = JSON.parse(readFileSync(join(FIX, 'expected.json'), 'utf8')) as { f4: number[][]; f2: number[][] };
const dir = mkdtempSync(join(tmpdir(), 'skr-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function put(name: string, bytes: string | Uint8Array): string {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, bytes);
  return p;
}

/** The one-line message of the UserError `f` throws. */
function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}
async function refusalAsync(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}

const rowsOf = (data: Float32Array, dim: number) => Array.from({ length: data.length / dim }, (_, r) => Array.from(data.subarray(r * dim, (r + 1) * dim)));

/** binary16 → float32 by bits (an independent definition: re-bias the exponent, shift the mantissa; subnormals normalised). */
function halfByBits(h: number): number {
  const s = (h >> 15) & 1;
  let e = (h >> 10) & 0x1f;
  let m = h & 0x3ff;
  let bits: number;
  if (e === 0x1f) bits = (s << 31) | 0x7f800000 | (m << 13);
  else if (e === 0) {
    if (m === 0) bits = s << 31;
    else {
      e = 1;
      while ((m & 0x400) === 0) {
        m <<= 1;
        e--;
      }
      bits = (s << 31) | ((e - 15 + 127) << 23) | ((m & 0x3ff) << 13);
    }
  } else bits = (s << 31) | ((e - 15 + 127) << 23) | (m << 13);
  return new Float32Array(new Uint32Array([bits >>> 0]).buffer)[0]!;
}

describe('float16 and bfloat16 decoding', () => {
  it('every one of the 65,536 binary16 values decodes exactly as the bit-level definition', () => {
    const le = new Uint8Array(2 * 65536);
    const be = new Uint8Array(2 * 65536);
    for (let h = 0; h < 65536; h++) {
      le[2 * h] = h & 0xff;
      le[2 * h + 1] = h >> 8;
      be[2 * h] = h >> 8;
      be[2 * h + 1] = h & 0xff;
    }
    const a = decodeFloat16(le, 0, 65536, true);
    const b = decodeFloat16(be, 0, 65536, false);
    const same = (x: number, y: number) => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));
    const wrong: string[] = [];
    for (let h = 0; h < 65536; h++) {
      const want = halfByBits(h);
      if (!same(a[h]!, want) || !same(b[h]!, want) || !same(halfBitsToNumber(h), want)) wrong.push(h.toString(16));
      // The test writer's rounding gives back the same bits for every non-NaN half value.
      if (!Number.isNaN(want) && float16Bits(want) !== h) wrong.push(`writer ${h.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('bfloat16 is the top half of a float32; the writer rounds to nearest even (float-formats.ts toBfloat16)', () => {
    const vals = [0, -0, 1, -1.5, 3.140625, 1e-40, 65504, 3.3895313892515355e38, -Infinity];
    const bytes = new Uint8Array(2 * vals.length);
    vals.forEach((v, i) => {
      const h = bfloat16Bits(v);
      bytes[2 * i] = h & 0xff;
      bytes[2 * i + 1] = h >> 8;
    });
    const got = decodeBfloat16(bytes, 0, vals.length);
    const want = vals.map(toBfloat16);
    expect(Array.from(got).map((x) => Object.is(x, -0) ? '-0' : x)).toEqual(want.map((x) => Object.is(x, -0) ? '-0' : x));
    expect(bfloat16Bits(1 + 2 ** -8)).toBe(0x3f80); // tie: to even
    expect(bfloat16Bits(1 + 3 * 2 ** -8)).toBe(0x3f82);
  });
});

describe('.npy', () => {
  const cases: [string, 'f4' | 'f2', Parameters<typeof npyBytes>[1]][] = [
    ['f4.npy', 'f4', { dtype: '<f4' }],
    ['f2.npy', 'f2', { dtype: '<f2' }],
    ['f4-be.npy', 'f4', { dtype: '>f4' }],
    ['f2-be.npy', 'f2', { dtype: '>f2' }],
    ['f4-v2.npy', 'f4', { dtype: '<f4', version: 2 }],
    ['f4-v3.npy', 'f4', { dtype: '<f4', version: 3 }],
  ];
  it.each(cases)('%s (written by NumPy) reads as NumPy reads it, and the test writer makes the same bytes', (name, kind, opts) => {
    const bytes = readFileSync(join(FIX, name));
    const got = parseNpy(bytes, name);
    expect([got.rows, got.dim, got.dtype]).toEqual([3, 4, kind === 'f4' ? 'float32' : 'float16']);
    expect(rowsOf(got.data, got.dim)).toEqual(expected[kind]);
    expect(npyBytes(expected.f4, opts).equals(bytes)).toBe(true);
    expect(readNpyHeader(join(FIX, name))).toEqual(got.header);
  });

  it('an empty (0, 4) array is 0 rows', () => {
    const got = parseNpy(readFileSync(join(FIX, 'empty.npy')), 'empty.npy');
    expect([got.rows, got.dim, got.data.length]).toEqual([0, 4, 0]);
  });

  it('refuses what NumPy can write but a vector file must not be, in one line naming the file', () => {
    const read = (name: string) => refusal(() => parseNpy(readFileSync(join(FIX, name)), name));
    expect(read('f8.npy')).toBe(
      `f8.npy: dtype '<f8' (float64) is not supported: save float32 ('<f4') or float16 ('<f2') vectors, e.g. np.save(path, x.astype(np.float32))`,
    );
    expect(read('f4-fortran.npy')).toBe('f4-fortran.npy: fortran_order is True: save a C-order array (np.save(path, np.ascontiguousarray(x)))');
    expect(read('f4-1d.npy')).toBe('f4-1d.npy: shape (4,) is not 2-D (rows, dimension): save one vector per row');
  });

  it('refuses broken files: truncated, trailing bytes, bad magic, version, header', () => {
    const good = readFileSync(join(FIX, 'f4.npy'));
    expect(refusal(() => parseNpy(good.subarray(0, good.length - 5), 'x.npy'))).toBe('x.npy: truncated: the header says 3 x 4 float32 (48 bytes of data), the file holds 43');
    expect(refusal(() => parseNpy(good.subarray(0, 100), 'x.npy'))).toBe('x.npy: truncated: the header is 118 bytes, the file ends 28 bytes before its end');
    expect(refusal(() => parseNpy(good.subarray(0, 4), 'x.npy'))).toBe('x.npy: truncated: 4 bytes, shorter than a .npy preamble');
    expect(refusal(() => parseNpy(Buffer.concat([good, Buffer.alloc(8)]), 'x.npy'))).toBe('x.npy: 8 bytes after the 3 x 4 float32 array the header describes (one array per .npy file)');
    expect(refusal(() => parseNpy(Buffer.from('PK\u0003\u0004 not npy at all'), 'x.npy'))).toBe('x.npy: not a .npy file (it does not start with the \\x93NUMPY magic of np.save)');
    const v4 = Buffer.from(good);
    v4[6] = 4;
    expect(refusal(() => parseNpy(v4, 'x.npy'))).toBe('x.npy: .npy format version 4.0 is not supported (1.0, 2.0 and 3.0 are)');
    expect(refusal(() => parseNpy(npyBytes([[1, 2]], { header: "{'descr': '<f4', 'shape': (1, 2), }" }), 'x.npy'))).toMatch(/^x\.npy: malformed \.npy header \(no 'fortran_order'\): /);
    expect(refusal(() => parseNpy(npyBytes([[1, 2]], { header: "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)" }), 'x.npy'))).toMatch(/^x\.npy: malformed \.npy header \(/);
    expect(refusal(() => parseNpy(npyBytes([[1, 2]], { header: "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 2), }" }), 'x.npy'))).toBe(
      "x.npy: a structured dtype (('a', '<f4'),) is not supported: save a plain 2-D float32 or float16 array",
    );
    expect(refusal(() => parseNpy(npyBytes([[1, 2]], { shape: [1, 2, 1] }), 'x.npy'))).toBe('x.npy: shape (1, 2, 1) is not 2-D (rows, dimension): save one vector per row');
  });

  it('reads header variants: double quotes, no trailing comma, keys in any order, Python 2 longs', () => {
    for (const header of [
      `{"descr": "<f4", "fortran_order": False, "shape": (2, 2)}`,
      `{'shape': (2L, 2L), 'fortran_order': False, 'descr': '<f4'}`,
      `{ 'descr' : '<f4' ,'fortran_order':False,'shape':( 2 , 2 , ) , }`,
    ]) {
      const got = parseNpy(npyBytes([[1, 2], [3, 4]], { header }), 'x.npy');
      expect(rowsOf(got.data, 2)).toEqual([[1, 2], [3, 4]]);
    }
    expect(parsePyLiteral(`{'a': (), 'b': [1, -2], 'c': None, 'd': 'x\\'y'}`)).toEqual({ a: [], b: [1, -2], c: null, d: "x'y" });
  });

  it('readNpyHeader reads only the header and checks the file size', () => {
    const p = put('cut.npy', readFileSync(join(FIX, 'f4.npy')).subarray(0, 150));
    expect(refusal(() => readNpyHeader(p))).toBe(`${p}: truncated: the header says 3 x 4 float32 (48 bytes of data), the file holds 22`);
  });
});

describe('.safetensors', () => {
  const rows = [
    [0.5, -1.25, 3],
    [1 / 3, -2, 0.1],
  ];
  it('reads F32, F16 and BF16 tensors; metadata is ignored', () => {
    const f32 = parseSafetensors(safetensorsBytes([{ name: 'embeddings', dtype: 'F32', rows }], { format: 'np' }), 'x.safetensors');
    expect([f32.rows, f32.dim, f32.dtype, f32.tensor]).toEqual([2, 3, 'float32', 'embeddings']);
    expect(rowsOf(f32.data, 3)).toEqual(rows.map((r) => r.map(Math.fround)));
    const f16 = parseSafetensors(safetensorsBytes([{ name: 'v', dtype: 'F16', rows }]), 'x.safetensors');
    expect(rowsOf(f16.data, 3)).toEqual(rows.map((r) => r.map((x) => halfBitsToNumber(float16Bits(x)))));
    const bf = parseSafetensors(safetensorsBytes([{ name: 'v', dtype: 'BF16', rows }]), 'x.safetensors');
    expect(bf.dtype).toBe('bfloat16');
    expect(Array.from(bf.data)).toEqual(rows.flat().map((x) => new Float32Array(new Uint32Array([bfloat16Bits(x) << 16]).buffer)[0]));
  });

  it('picks the only tensor, else "embeddings", else the one named; else says which there are', () => {
    const two = safetensorsBytes([
      { name: 'ids_hash', dtype: 'F32', rows: [[1]] },
      { name: 'embeddings', dtype: 'F32', rows },
    ]);
    expect(parseSafetensors(two, 'x.safetensors').tensor).toBe('embeddings');
    expect(parseSafetensors(two, 'x.safetensors', 'ids_hash').rows).toBe(1);
    const other = safetensorsBytes([
      { name: 'a', dtype: 'F32', rows },
      { name: 'b', dtype: 'F32', rows },
    ]);
    expect(refusal(() => parseSafetensors(other, 'x.safetensors'))).toBe('x.safetensors: holds tensors "a", "b" and none is called "embeddings": name the one to read with tensor:');
    expect(refusal(() => parseSafetensors(other, 'x.safetensors', 'c'))).toBe('x.safetensors: has no tensor "c" (it holds "a", "b")');
  });

  it('refuses other dtypes and shapes, inconsistent offsets, truncation and non-safetensors bytes', () => {
    expect(refusal(() => parseSafetensors(safetensorsBytes([{ name: 'e', dtype: 'F64', rows }]), 'x.safetensors'))).toBe(
      'x.safetensors: tensor "e": dtype F64 is not supported: save float32 (F32) or float16 (F16) vectors (BF16 is read too)',
    );
    expect(refusal(() => parseSafetensors(safetensorsBytes([{ name: 'e', dtype: 'F32', rows, shape: [6] }]), 'x.safetensors'))).toBe(
      'x.safetensors: tensor "e": shape [6] is not 2-D (rows, dimension): save one vector per row',
    );
    expect(refusal(() => parseSafetensors(safetensorsBytes([{ name: 'e', dtype: 'F32', rows, shape: [3, 3] }]), 'x.safetensors'))).toBe(
      'x.safetensors: tensor "e": data_offsets [0, 24] span 24 bytes, shape [3, 3] F32 needs 36',
    );
    const good = safetensorsBytes([{ name: 'e', dtype: 'F32', rows }]);
    expect(refusal(() => parseSafetensors(good.subarray(0, good.length - 1), 'x.safetensors'))).toBe('x.safetensors: truncated: tensor "e" ends at byte 24 of the data, the file holds 23');
    expect(refusal(() => parseSafetensors(good.subarray(0, 20), 'x.safetensors'))).toMatch(/^x\.safetensors: truncated: the header length says \d+ bytes, the file holds 12 after it$/);
    expect(refusal(() => parseSafetensors(good.subarray(0, 5), 'x.safetensors'))).toBe('x.safetensors: truncated: 5 bytes, shorter than a .safetensors header length');
    expect(refusal(() => parseSafetensors(readFileSync(join(FIX, 'f4.npy')), 'x.safetensors'))).toMatch(/^x\.safetensors: not a \.safetensors file \(its first 8 bytes give a header length of \d+\)$/);
    const notJson = Buffer.concat([Buffer.from([4, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('{"a"')]);
    expect(refusal(() => parseSafetensors(notJson, 'x.safetensors'))).toMatch(/^x\.safetensors: not a \.safetensors file \(its header is not JSON: /);
    const p = put('cut.safetensors', good.subarray(0, good.length - 4));
    expect(refusal(() => readSafetensorsTensor(p))).toBe(`${p}: truncated: tensor "e" ends at byte 24 of the data, the file holds 20`);
  });
});

describe('JSONL vectors, ids files, the Parquet seam', () => {
  it('JSONL: ids and vectors per line, blank lines skipped, values rounded to float32', () => {
    const got = parseVectorJsonl(Buffer.from(vectorJsonl(['a', 'b'], [[0.1, 2], [3, -4]]) + '\n\n{"id":"c","vector":[1e-3,5],"extra":1}\n'), 'v.jsonl');
    expect(got.ids).toEqual(['a', 'b', 'c']);
    expect(rowsOf(got.data, 2)).toEqual([[Math.fround(0.1), 2], [3, -4], [Math.fround(1e-3), 5]]);
    expect(got.locations).toEqual(['v.jsonl:1: ', 'v.jsonl:2: ', 'v.jsonl:5: ']);
  });

  it('JSONL: refusals name the line', () => {
    const bad = (text: string) => refusal(() => parseVectorJsonl(Buffer.from(text), 'v.jsonl'));
    expect(bad('{"id":"a","vector":[1,2]}\n{"id":"b","vector":[1,NaN]}\n')).toBe(
      'v.jsonl:2: component 1 of "vector" is null (NaN, Infinity or null in the file) (every vector component must be a finite number)',
    );
    expect(bad('{"id":"a","vector":[1,2]}\n{"id":"b","vector":[1,2,3]}\n')).toBe('v.jsonl:2: vector of 3 components, the first one (v.jsonl:1) has 2');
    expect(bad('{"id":7,"vector":[1,2]}\n')).toBe('v.jsonl:1: "id" must be a non-empty string, got number 7');
    expect(bad('{"id":"a"}\n')).toBe('v.jsonl:1: no "vector"');
    expect(bad('{"id":"a","vector":[1,"2"]}\n')).toBe('v.jsonl:1: component 1 of "vector" is the string "2" (every vector component must be a finite number)');
    expect(bad('{"id":"a","vector":[1,1e39]}\n')).toBe('v.jsonl:1: component 1 of "vector" is 1e+39, beyond the float32 range (every vector component must be a finite number)');
    expect(bad('{"id":"a","vector":[1,2]}\n{"id":"b","vec')).toMatch(/^v\.jsonl:2: malformed JSON \(/);
  });

  it('ids files: final newline optional, CRLF and a BOM accepted, an empty line refused', () => {
    expect(parseIdsFile(Buffer.from('a\nb\n'), 'i.txt')).toEqual(['a', 'b']);
    expect(parseIdsFile(Buffer.from('\ufeffa\r\nb'), 'i.txt')).toEqual(['a', 'b']);
    expect(parseIdsFile(Buffer.from(''), 'i.txt')).toEqual([]);
    expect(refusal(() => parseIdsFile(Buffer.from('a\n\nb\n'), 'i.txt'))).toBe('i.txt:2: empty line (one id per line, in the order of the vector rows)');
    expect(refusal(() => parseIdsFile(Buffer.from([0x61, 0xff, 0x0a]), 'i.txt'))).toBe('i.txt: invalid UTF-8 (the ids file must be UTF-8 text, one id per line)');
  });

  it('Parquet through hyparquet: LIST<FLOAT> and LIST<DOUBLE> columns as pyarrow writes them, a missing column named; a reader plugged into the seam is checked row by row', async () => {
    expect(parquetUnavailable('v.parquet')).toBeNull();
    const rows = [[1, 2.5, -0.1], [3, 4, 1e-7]];
    const f32 = await parseVectorParquet(parquetBytes(['a', 'b'], rows), 'v.parquet', { id: 'id', vector: 'vector' });
    expect([f32.ids, Array.from(f32.data)]).toEqual([['a', 'b'], Array.from(new Float32Array(rows.flat()))]);
    const f64 = await parseVectorParquet(parquetBytes(['a', 'b'], rows, { type: 'DOUBLE', idColumn: 'qid', vectorColumn: 'emb' }), 'q.parquet', { id: 'qid', vector: 'emb' });
    expect([f64.ids, Array.from(f64.data), f64.dtype]).toEqual([['a', 'b'], Array.from(new Float32Array(rows.flat())), 'float64']);
    expect(await refusalAsync(() => parseVectorParquet(parquetBytes(['a'], [[1]]), 'v.parquet', { id: 'skill_id', vector: 'vector' }))).toBe('v.parquet: no column "skill_id" (id_column; the file has id, vector)');
    expect(await refusalAsync(() => parseVectorParquet(Buffer.from('not parquet at all'), 'v.parquet', { id: 'id', vector: 'vector' }))).toMatch(/^v\.parquet: not a Parquet file \(/);
    const bad0 = await refusalAsync(() => parseVectorParquet(parquetBytes(['a', 'b'], [[1, 2], [3, Number.NaN]]), 'v.parquet', { id: 'id', vector: 'vector' }));
    expect(bad0).toMatch(/^v\.parquet: row 1: component 1 of "vector" is NaN/);
    const reader: ParquetColumnReader = async () => ({ ids: ['a', 'b'], vectors: [new Float32Array([1, 2]), [3, 4]] });
    const got = await parseVectorParquet(new Uint8Array(4), 'v.parquet', { id: 'id', vector: 'vector' }, reader);
    expect([got.ids, Array.from(got.data)]).toEqual([['a', 'b'], [1, 2, 3, 4]]);
    const bad: ParquetColumnReader = async () => ({ ids: ['a', 'b', 'c'], vectors: [[1, 2], [3, 4], [5, null]] });
    expect(await refusalAsync(() => parseVectorParquet(new Uint8Array(4), 'v.parquet', { id: 'id', vector: 'vector' }, bad))).toBe(
      'v.parquet: row 2: component 1 of "vector" is null (null) (every vector component must be a finite number)',
    );
  });
});

describe('readVectorSource: one side, hashed and checked', () => {
  const ids = ['s-a', 's-b', 's-c'];
  const rows = [
    [1, 0, 0],
    [0, 1, 0],
    [0.6, 0.8, 0],
  ];
  it('npy + ids file: rows in file order, SHA-256 of each file', async () => {
    const v = put('d.npy', npyBytes(rows));
    const i = put('d.txt', idsText(ids));
    const got = await readVectorSource({ format: 'npy', vectors: v, ids: i });
    expect([got.ids, got.rows, got.dim, got.dtype]).toEqual([ids, 3, 3, 'float32']);
    const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
    expect(got.files).toEqual({ vectors: { path: v, bytes: readFileSync(v).length, sha256: sha(v) }, ids: { path: i, bytes: 12, sha256: sha(i) } });
    expect(checkVectorSource({ format: 'npy', vectors: v, ids: i })).toEqual({ rows: 3, dim: 3 });
  });

  it('refuses: ids count, duplicate ids, NaN (row named), a missing file', async () => {
    const v = put('d.npy', npyBytes(rows));
    const short = put('short.txt', idsText(ids.slice(0, 2)));
    expect(await refusalAsync(() => readVectorSource({ format: 'npy', vectors: v, ids: short }))).toBe(`${short}: 2 ids for the 3 vector rows of ${v} (one id per line, in row order)`);
    const dup = put('dup.txt', idsText(['s-a', 's-b', 's-a']));
    expect(await refusalAsync(() => readVectorSource({ format: 'npy', vectors: v, ids: dup }))).toBe(`${dup}:3: duplicate id "s-a" (also line 1)`);
    const nan = put('nan.npy', npyBytes([rows[0]!, [0, NaN, 1], rows[2]!]));
    const i = put('d.txt', idsText(ids));
    expect(await refusalAsync(() => readVectorSource({ format: 'npy', vectors: nan, ids: i }))).toBe(
      `${nan}: row 1 (id "s-b"): component 1 is NaN (every vector component must be a finite number)`,
    );
    const inf = put('inf.safetensors', safetensorsBytes([{ name: 'x', dtype: 'F16', rows: [rows[0]!, rows[1]!, [0, 0, 70000]] }]));
    expect(await refusalAsync(() => readVectorSource({ format: 'safetensors', vectors: inf, ids: i }))).toBe(
      `${inf}: row 2 (id "s-c"): component 2 is Infinity (every vector component must be a finite number)`,
    );
    const jl = put('d.jsonl', vectorJsonl(['a', 'b', 'a'], rows));
    expect(await refusalAsync(() => readVectorSource({ format: 'jsonl', vectors: jl }))).toBe(`${jl}:3: duplicate id "a" (also line 1)`);
    expect(refusal(() => checkVectorSource({ format: 'npy', vectors: join(dir, 'nope.npy'), ids: i }))).toBe(`${join(dir, 'nope.npy')}: file not found`);
    expect(refusal(() => checkVectorSource({ format: 'npy', vectors: v }))).toBe(`${v}: a .npy file holds no ids: give an ids file (one id per line, in row order)`);
  });

  it('formats by extension', () => {
    expect(['a.npy', 'a.NPY', 'b.safetensors', 'c.jsonl', 'c.ndjson', 'd.parquet', 'd.pq', 'e.bin'].map(formatFromPath)).toEqual([
      'npy',
      'npy',
      'safetensors',
      'jsonl',
      'jsonl',
      'parquet',
      'parquet',
      undefined,
    ]);
  });
});
