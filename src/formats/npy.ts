/**
 * NumPy `.npy` files (what `np.save` writes), format versions 1.0, 2.0 and 3.0, read without NumPy:
 *
 *   0  magic "\x93NUMPY"   6  major, minor version bytes
 *   8  header length: u16 LE (1.0) or u32 LE (2.0, 3.0)
 *   10 / 12  header: a Python dict literal, ASCII (1.0, 2.0) or UTF-8 (3.0), padded with spaces
 *            and ended by "\n": {'descr': '<f4', 'fortran_order': False, 'shape': (rows, dim), }
 *   then the array's bytes, exactly rows · dim · itemsize of them.
 *
 * Accepted: 2-D arrays of float32 ('<f4', '>f4') or float16 ('<f2', '>f2') in C order. Anything
 * else (another dtype, Fortran order, another rank, missing or extra bytes) is one-line UserError
 * naming the file. float16 values are decoded exactly (half.ts).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { decodeFloat16, decodeFloat32 } from './half.js';
import type { VectorRows } from './vector-table.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

export interface NpyHeader {
  /** "1.0", "2.0" or "3.0". */
  version: string;
  descr: string;
  dtype: 'float32' | 'float16';
  littleEndian: boolean;
  itemSize: number;
  rows: number;
  dim: number;
  /** Byte offset of the array data. */
  dataOffset: number;
}

type PyValue = string | number | boolean | null | PyValue[] | { [k: string]: PyValue };

/** Parses the Python literal of a .npy header (dicts, tuples, lists, strings, ints, True/False/None). */
export function parsePyLiteral(text: string): PyValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${i}`);
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): PyValue => {
    ws();
    const c = text[i];
    if (c === undefined) return fail('unexpected end');
    if (c === '{') {
      i++;
      const out: Record<string, PyValue> = {};
      for (;;) {
        ws();
        if (text[i] === '}') return (i++, out);
        const k = value();
        if (typeof k !== 'string') fail('a dict key that is not a string');
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        out[k as string] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') fail('expected "," or "}"');
      }
    }
    if (c === '(' || c === '[') {
      const close = c === '(' ? ')' : ']';
      i++;
      const out: PyValue[] = [];
      for (;;) {
        ws();
        if (text[i] === close) return (i++, out);
        out.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== close) fail(`expected "," or "${close}"`);
      }
    }
    if (c === "'" || c === '"') {
      i++;
      let s = '';
      for (;;) {
        if (i >= text.length) fail('unterminated string');
        if (text[i] === c) break;
        if (text[i] === '\\' && ++i >= text.length) fail('unterminated string');
        s += text[i++];
      }
      i++;
      return s;
    }
    const m = /^-?\d+L?|^[A-Za-z_]\w*/.exec(text.slice(i, i + 40));
    if (!m) return fail(`unexpected ${JSON.stringify(c)}`);
    i += m[0].length;
    if (m[0] === 'True') return true;
    if (m[0] === 'False') return false;
    if (m[0] === 'None') return null;
    if (/^-?\d/.test(m[0])) return Number(m[0].replace('L', ''));
    return fail(`unexpected name ${m[0]}`);
  };
  const v = value();
  ws();
  if (i < text.length) fail('text after the literal');
  return v;
}

function pyRepr(v: PyValue): string {
  if (Array.isArray(v)) return v.length === 1 ? `(${pyRepr(v[0]!)},)` : `(${v.map(pyRepr).join(', ')})`;
  if (typeof v === 'string') return `'${v}'`;
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'object') return '{…}';
  return String(v);
}

const DTYPE_NAMES: Record<string, string> = { f8: 'float64', f4: 'float32', f2: 'float16', i8: 'int64', i4: 'int32', i2: 'int16', i1: 'int8', u1: 'uint8', b1: 'bool' };

/** Length of the preamble and header the first bytes announce (throws when even those are missing or wrong). */
function preamble(bytes: Uint8Array, file: string): { major: number; minor: number; start: number; length: number } {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    if (bytes.length < 10 && MAGIC.slice(0, bytes.length).every((b, i) => bytes[i] === b)) throw new UserError(`${file}: truncated: ${bytes.length} bytes, shorter than a .npy preamble`);
    throw new UserError(`${file}: not a .npy file (it does not start with the \\x93NUMPY magic of np.save)`);
  }
  const major = bytes[6]!;
  const minor = bytes[7]!;
  if (!(minor === 0 && (major === 1 || major === 2 || major === 3)))
    throw new UserError(`${file}: .npy format version ${major}.${minor} is not supported (1.0, 2.0 and 3.0 are)`);
  if (major === 1) return { major, minor, start: 10, length: bytes[8]! | (bytes[9]! << 8) };
  if (bytes.length < 12) throw new UserError(`${file}: truncated: ${bytes.length} bytes, shorter than a .npy ${major}.0 preamble`);
  return { major, minor, start: 12, length: (bytes[8]! | (bytes[9]! << 8) | (bytes[10]! << 16) | (bytes[11]! << 24)) >>> 0 };
}

/**
 * The header of a .npy file from its first bytes (at least the preamble and header; `fileSize`:
 * the whole file's, checked against the array the header describes).
 */
export function parseNpyHeader(bytes: Uint8Array, file: string, fileSize: number): NpyHeader {
  const p = preamble(bytes, file);
  const dataOffset = p.start + p.length;
  if (bytes.length < dataOffset) throw new UserError(`${file}: truncated: the header is ${p.length} bytes, the file ends ${dataOffset - bytes.length} bytes before its end`);
  const raw = bytes.subarray(p.start, dataOffset);
  const text = p.major === 3 ? new TextDecoder('utf-8').decode(raw) : Buffer.from(raw).toString('latin1');
  let dict: PyValue;
  try {
    dict = parsePyLiteral(text);
  } catch (e) {
    throw new UserError(`${file}: malformed .npy header (${(e as Error).message}): ${JSON.stringify(text.trim().slice(0, 120))}`);
  }
  if (dict === null || typeof dict !== 'object' || Array.isArray(dict)) throw new UserError(`${file}: malformed .npy header (not a dict): ${JSON.stringify(text.trim().slice(0, 120))}`);
  for (const k of ['descr', 'fortran_order', 'shape']) if (!(k in dict)) throw new UserError(`${file}: malformed .npy header (no '${k}'): ${JSON.stringify(text.trim().slice(0, 120))}`);
  const { descr, fortran_order: fortran, shape } = dict as { descr: PyValue; fortran_order: PyValue; shape: PyValue };
  if (typeof descr !== 'string') throw new UserError(`${file}: a structured dtype ${pyRepr(descr)} is not supported: save a plain 2-D float32 or float16 array`);
  const m = /^([<>|=])([a-zA-Z])(\d+)$/.exec(descr);
  const code = m ? `${m[2]}${m[3]}` : descr;
  if (!m || (code !== 'f4' && code !== 'f2') || m[1] === '|') {
    const name = DTYPE_NAMES[code] ?? descr;
    throw new UserError(`${file}: dtype '${descr}'${name !== descr ? ` (${name})` : ''} is not supported: save float32 ('<f4') or float16 ('<f2') vectors, e.g. np.save(path, x.astype(np.float32))`);
  }
  if (m[1] === '=') throw new UserError(`${file}: dtype '${descr}' has no byte order: save with an explicit '<f4' or '<f2' (np.save does)`);
  if (fortran !== false) throw new UserError(`${file}: fortran_order is ${pyRepr(fortran)}: save a C-order array (np.save(path, np.ascontiguousarray(x)))`);
  if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0))
    throw new UserError(`${file}: malformed .npy header (shape ${pyRepr(shape)} is not a tuple of sizes)`);
  if (shape.length !== 2) throw new UserError(`${file}: shape ${pyRepr(shape)} is not 2-D (rows, dimension): save one vector per row`);
  const [rows, dim] = shape as [number, number];
  const itemSize = code === 'f4' ? 4 : 2;
  const dataBytes = rows * dim * itemSize;
  const dtype = code === 'f4' ? 'float32' : 'float16';
  if (!Number.isSafeInteger(dataBytes)) throw new UserError(`${file}: shape ${pyRepr(shape)} is too large`);
  const held = fileSize - dataOffset;
  if (held < dataBytes) throw new UserError(`${file}: truncated: the header says ${rows} x ${dim} ${dtype} (${dataBytes} bytes of data), the file holds ${held}`);
  if (held > dataBytes) throw new UserError(`${file}: ${held - dataBytes} bytes after the ${rows} x ${dim} ${dtype} array the header describes (one array per .npy file)`);
  return { version: `${p.major}.${p.minor}`, descr, dtype, littleEndian: m[1] === '<', itemSize, rows, dim, dataOffset };
}

/** A whole .npy file's vectors (float16 decoded exactly to float32). */
export function parseNpy(bytes: Uint8Array, file: string): VectorRows & { header: NpyHeader } {
  const h = parseNpyHeader(bytes, file, bytes.length);
  const n = h.rows * h.dim;
  const data = h.dtype === 'float32' ? decodeFloat32(bytes, h.dataOffset, n, h.littleEndian) : decodeFloat16(bytes, h.dataOffset, n, h.littleEndian);
  return { data, rows: h.rows, dim: h.dim, dtype: h.dtype, header: h };
}

/** The header of the .npy file at `path`, reading only the preamble and header (and the file's size). */
export function readNpyHeader(path: string): NpyHeader {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 12));
    readSync(fd, head, 0, head.length, 0);
    const p = preamble(head, path);
    const want = Math.min(size, p.start + p.length);
    const bytes = Buffer.alloc(want);
    readSync(fd, bytes, 0, want, 0);
    return parseNpyHeader(bytes, path, size);
  } finally {
    closeSync(fd);
  }
}
