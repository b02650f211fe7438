/**
 * Writers of the vector files Python tools produce, in TypeScript (no Python in the tests): .npy
 * exactly as NumPy's `np.save` writes it (byte for byte: test/fixtures/npy/ holds files NumPy wrote,
 * and formats-npy.test.ts compares), .safetensors as the safetensors library lays it out (header
 * JSON padded with spaces to a multiple of 8), JSONL vector lines and ids files. float16 values are
 * rounded to nearest, ties to even (as NumPy's astype(np.float16)).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { toFloat16 } from '../../src/models/float-formats.js';

/** The binary16 bits of the half value nearest to x (round to nearest, ties to even; overflow → ±Infinity). */
export function float16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const v = toFloat16(x);
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a === 0) return sign;
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24); // subnormal: m · 2^-24
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

/** The bfloat16 bits of x rounded to nearest, ties to even. */
export function bfloat16Bits(x: number): number {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0]!;
  if (Number.isNaN(x)) return 0x7fc0;
  const rounded = u + 0x7fff + ((u >> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}

export type NpyDtype = '<f4' | '<f2' | '>f4' | '>f2' | '<f8';

export interface NpyOptions {
  dtype?: NpyDtype;
  /** Format version (default 1; NumPy writes 1.0 unless the header needs more). */
  version?: 1 | 2 | 3;
  /** The shape written in the header (default [rows, dim]). */
  shape?: readonly number[];
  /** Replaces the whole header dict text (before padding). */
  header?: string;
  fortranOrder?: boolean;
}

/** Python's repr of a shape tuple: `(3, 4)`, `(4,)`, `()`. */
function shapeRepr(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

/** A .npy file of `rows` (all of one length), as np.save writes it. */
export function npyBytes(rows: readonly (readonly number[])[], o: NpyOptions = {}): Buffer {
  const dtype = o.dtype ?? '<f4';
  const version = o.version ?? 1;
  const dim = rows[0]?.length ?? 0;
  const shape = o.shape ?? [rows.length, dim];
  const dict = o.header ?? `{'descr': '${dtype}', 'fortran_order': ${o.fortranOrder ? 'True' : 'False'}, 'shape': ${shapeRepr(shape)}, }`;
  const pre = version === 1 ? 10 : 12;
  const headerBytes = Buffer.from(dict, version === 3 ? 'utf8' : 'latin1');
  // NumPy pads with spaces so that preamble + header + "\n" is a multiple of 64.
  const total = Math.ceil((pre + headerBytes.length + 1) / 64) * 64;
  const header = Buffer.concat([headerBytes, Buffer.alloc(total - pre - headerBytes.length - 1, 0x20), Buffer.from('\n')]);
  const preamble = Buffer.alloc(pre);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(preamble);
  if (version === 1) preamble.writeUInt16LE(header.length, 8);
  else preamble.writeUInt32LE(header.length, 8);
  const little = dtype[0] === '<';
  const size = dtype.endsWith('8') ? 8 : dtype.endsWith('4') ? 4 : 2;
  const flat = o.fortranOrder ? Array.from({ length: dim }, (_, j) => rows.map((r) => r[j]!)).flat() : rows.flat();
  const data = Buffer.alloc(flat.length * size);
  flat.forEach((v, i) => {
    if (size === 8) little ? data.writeDoubleLE(v, 8 * i) : data.writeDoubleBE(v, 8 * i);
    else if (size === 4) little ? data.writeFloatLE(v, 4 * i) : data.writeFloatBE(v, 4 * i);
    else little ? data.writeUInt16LE(float16Bits(v), 2 * i) : data.writeUInt16BE(float16Bits(v), 2 * i);
  });
  return Buffer.concat([preamble, header, data]);
}

export interface SafetensorsTensorSpec {
  name: string;
  dtype: 'F32' | 'F16' | 'BF16' | 'F64' | 'I64';
  rows: readonly (readonly number[])[];
  /** Header shape (default [rows, dim]). */
  shape?: readonly number[];
}

/** A .safetensors file of the given tensors (data in the given order), as safetensors' save_file lays it out. */
export function safetensorsBytes(tensors: readonly SafetensorsTensorSpec[], metadata?: Record<string, string>): Buffer {
  const datas: Buffer[] = [];
  const header: Record<string, unknown> = {};
  if (metadata) header['__metadata__'] = metadata;
  let offset = 0;
  for (const t of tensors) {
    const flat = t.rows.flat();
    const size = t.dtype === 'F32' ? 4 : t.dtype === 'F64' || t.dtype === 'I64' ? 8 : 2;
    const b = Buffer.alloc(flat.length * size);
    flat.forEach((v, i) => {
      if (t.dtype === 'F32') b.writeFloatLE(v, 4 * i);
      else if (t.dtype === 'F64') b.writeDoubleLE(v, 8 * i);
      else if (t.dtype === 'I64') b.writeBigInt64LE(BigInt(Math.trunc(v)), 8 * i);
      else if (t.dtype === 'F16') b.writeUInt16LE(float16Bits(v), 2 * i);
      else b.writeUInt16LE(bfloat16Bits(v), 2 * i);
    });
    header[t.name] = { dtype: t.dtype, shape: t.shape ?? [t.rows.length, t.rows[0]?.length ?? 0], data_offsets: [offset, offset + b.length] };
    offset += b.length;
    datas.push(b);
  }
  let json = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Math.ceil(json.length / 8) * 8;
  json = Buffer.concat([json, Buffer.alloc(padded - json.length, 0x20)]);
  const n = Buffer.alloc(8);
  n.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([n, json, ...datas]);
}

/** JSON Lines of `{"id", "vector"}` (numbers as JavaScript writes them: the shortest decimal that reads back). */
export function vectorJsonl(ids: readonly string[], rows: readonly (readonly number[])[]): string {
  return ids.map((id, i) => JSON.stringify({ id, vector: rows[i] }) + '\n').join('');
}

/** An ids file: one id per line, a final newline. */
export function idsText(ids: readonly string[]): string {
  return ids.map((id) => id + '\n').join('');
}

/**
 * A Parquet file as pyarrow / pandas write one: a UTF-8 id column and a LIST<FLOAT> (or DOUBLE)
 * vector column (`pa.list_(pa.float32())`), through hyparquet-writer.
 */
export function parquetBytes(ids: readonly string[], rows: readonly (readonly number[])[], o: { type?: 'FLOAT' | 'DOUBLE'; idColumn?: string; vectorColumn?: string } = {}): Buffer {
  const idName = o.idColumn ?? 'id';
  const vecName = o.vectorColumn ?? 'vector';
  const schema = [
    { name: 'root', num_children: 2 },
    { name: idName, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    { name: vecName, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', type: o.type ?? 'FLOAT', repetition_type: 'OPTIONAL' },
  ];
  const ab = parquetWriteBuffer({ schema: schema as never, columnData: [{ name: idName, data: [...ids] }, { name: vecName, data: rows.map((r) => [...r]) }] });
  return Buffer.from(ab);
}
