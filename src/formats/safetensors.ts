/**
 * `.safetensors` files (Hugging Face's format, what `safetensors.numpy.save_file` and
 * `safetensors.torch.save_file` write), read without the library:
 *
 *   0  u64 LE N: the header's length in bytes
 *   8  header: N bytes of UTF-8 JSON (possibly space-padded), { "<tensor>": { "dtype": "F32",
 *      "shape": [rows, dim], "data_offsets": [begin, end] }, …, "__metadata__": {…} (optional) }
 *   8 + N  the byte buffer; each tensor's bytes are [begin, end) of it, little-endian, C order.
 *
 * The vectors are one 2-D tensor of F32, F16 or BF16: the one named (`tensor:` in the config), else
 * the file's only tensor, else the one called `embeddings`. A file holds no ids: they come from a
 * companion text file (vector-file.ts). Problems are one-line UserErrors naming the file.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { decodeBfloat16, decodeFloat16, decodeFloat32 } from './half.js';
import type { VectorRows } from './vector-table.js';

/** The tensor read when a file holds several and none is named. */
export const DEFAULT_TENSOR = 'embeddings';
/** The safetensors library refuses headers above 100 MB; so do we (a larger "length" is not a safetensors file). */
const MAX_HEADER = 100_000_000;

const ITEM_SIZE = { F32: 4, F16: 2, BF16: 2 } as const;
type FloatDtype = keyof typeof ITEM_SIZE;
const DTYPE_OF: Record<FloatDtype, VectorRows['dtype']> = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' };

export interface SafetensorsHeader {
  /** Byte offset of the byte buffer (8 + N). */
  dataOffset: number;
  /** Tensor entries as the header holds them (`__metadata__` left out). */
  tensors: Map<string, unknown>;
}

/** The checked tensor the vectors are read from. */
export interface SafetensorsTensor {
  name: string;
  dtype: FloatDtype;
  rows: number;
  dim: number;
  /** Absolute byte offsets in the file. */
  begin: number;
  end: number;
}

function headerLength(bytes: Uint8Array, file: string): number {
  if (bytes.length < 8) throw new UserError(`${file}: truncated: ${bytes.length} bytes, shorter than a .safetensors header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
  const n = Number(view.getBigUint64(0, true));
  if (n < 2 || n > MAX_HEADER) throw new UserError(`${file}: not a .safetensors file (its first 8 bytes give a header length of ${n})`);
  return n;
}

/** The header from the file's first bytes (at least 8 + N of them); `fileSize`: the whole file's. */
export function parseSafetensorsHeader(bytes: Uint8Array, file: string, fileSize: number): SafetensorsHeader {
  const n = headerLength(bytes, file);
  if (fileSize < 8 + n || bytes.length < 8 + n)
    throw new UserError(`${file}: truncated: the header length says ${n} bytes, the file holds ${Math.max(0, Math.min(fileSize, bytes.length) - 8)} after it`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw new UserError(`${file}: not a .safetensors file (its header is not JSON: ${(e as Error).message.split('\n')[0]})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new UserError(`${file}: not a .safetensors file (its header is not a JSON object)`);
  const tensors = new Map(Object.entries(json).filter(([k]) => k !== '__metadata__'));
  return { dataOffset: 8 + n, tensors };
}

const isSize = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The tensor to read (`name`, else the only one, else `embeddings`), checked against the file's size. */
export function selectTensor(h: SafetensorsHeader, file: string, fileSize: number, name?: string): SafetensorsTensor {
  const names = [...h.tensors.keys()];
  let chosen = name;
  if (chosen === undefined) {
    if (names.length === 1) chosen = names[0]!;
    else if (h.tensors.has(DEFAULT_TENSOR)) chosen = DEFAULT_TENSOR;
    else if (names.length === 0) throw new UserError(`${file}: holds no tensor`);
    else throw new UserError(`${file}: holds tensors ${names.map((x) => JSON.stringify(x)).join(', ')} and none is called "${DEFAULT_TENSOR}": name the one to read with tensor:`);
  }
  const entry = h.tensors.get(chosen);
  if (entry === undefined) throw new UserError(`${file}: has no tensor ${JSON.stringify(chosen)} (it holds ${names.map((x) => JSON.stringify(x)).join(', ') || 'none'})`);
  const t = `${file}: tensor ${JSON.stringify(chosen)}`;
  const e = (entry ?? {}) as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
  if (typeof e.dtype !== 'string' || !Array.isArray(e.shape) || !Array.isArray(e.data_offsets))
    throw new UserError(`${t}: malformed header entry (expected dtype, shape and data_offsets): ${JSON.stringify(entry).slice(0, 120)}`);
  if (!(e.dtype in ITEM_SIZE)) throw new UserError(`${t}: dtype ${e.dtype} is not supported: save float32 (F32) or float16 (F16) vectors (BF16 is read too)`);
  const dtype = e.dtype as FloatDtype;
  if (!e.shape.every(isSize)) throw new UserError(`${t}: malformed shape ${JSON.stringify(e.shape)}`);
  if (e.shape.length !== 2) throw new UserError(`${t}: shape ${JSON.stringify(e.shape)} is not 2-D (rows, dimension): save one vector per row`);
  const [rows, dim] = e.shape as [number, number];
  const [b, en] = e.data_offsets as unknown[];
  if (e.data_offsets.length !== 2 || !isSize(b) || !isSize(en) || en < b) throw new UserError(`${t}: malformed data_offsets ${JSON.stringify(e.data_offsets)}`);
  const need = rows * dim * ITEM_SIZE[dtype];
  if (en - b !== need) throw new UserError(`${t}: data_offsets [${b}, ${en}] span ${en - b} bytes, shape [${rows}, ${dim}] ${dtype} needs ${need}`);
  const held = fileSize - h.dataOffset;
  if (en > held) throw new UserError(`${file}: truncated: tensor ${JSON.stringify(chosen)} ends at byte ${en} of the data, the file holds ${held}`);
  return { name: chosen, dtype, rows, dim, begin: h.dataOffset + b, end: h.dataOffset + en };
}

/** The vectors of a whole .safetensors file (float16 and bfloat16 decoded exactly to float32). */
export function parseSafetensors(bytes: Uint8Array, file: string, tensor?: string): VectorRows & { tensor: string } {
  const h = parseSafetensorsHeader(bytes, file, bytes.length);
  const t = selectTensor(h, file, bytes.length, tensor);
  const n = t.rows * t.dim;
  const data =
    t.dtype === 'F32' ? decodeFloat32(bytes, t.begin, n, true) : t.dtype === 'F16' ? decodeFloat16(bytes, t.begin, n, true) : decodeBfloat16(bytes, t.begin, n);
  return { data, rows: t.rows, dim: t.dim, dtype: DTYPE_OF[t.dtype], tensor: t.name };
}

/** The tensor of the file at `path` the vectors would be read from, reading only the header. */
export function readSafetensorsTensor(path: string, tensor?: string): SafetensorsTensor {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 8));
    readSync(fd, head, 0, head.length, 0);
    const n = headerLength(head, path);
    const bytes = Buffer.alloc(Math.min(size, 8 + n));
    readSync(fd, bytes, 0, bytes.length, 0);
    return selectTensor(parseSafetensorsHeader(bytes, path, size), path, size, tensor);
  } finally {
    closeSync(fd);
  }
}
