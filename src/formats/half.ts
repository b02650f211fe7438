/**
 * Decoding the reduced float formats vector files store (IEEE binary16 "float16" and bfloat16) to
 * float32, exactly: every binary16 and bfloat16 value is a float32 value, so nothing is rounded.
 * binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits; exponent 0 is zero or a
 * subnormal (m · 2^-24), exponent 31 is ±Infinity (m = 0) or NaN. bfloat16: the top 16 bits of
 * a float32.
 */

/** The value of binary16 bits `h` (0 … 0xffff), by the definition. */
export function halfBitsToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m === 0 ? sign * Infinity : NaN;
  return sign * (1024 + m) * 2 ** (e - 25);
}

let table: Float32Array | undefined;

/** Every binary16 value, indexed by its bits (built once, 256 KiB). */
function halfTable(): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = halfBitsToNumber(h);
  }
  return table;
}

/** `count` binary16 values from `bytes` at `offset` (little- or big-endian) as float32. */
export function decodeFloat16(bytes: Uint8Array, offset: number, count: number, littleEndian: boolean): Float32Array {
  const t = halfTable();
  const out = new Float32Array(count);
  const lo = littleEndian ? 0 : 1;
  const hi = 1 - lo;
  for (let i = 0, p = offset; i < count; i++, p += 2) out[i] = t[bytes[p + lo]! | (bytes[p + hi]! << 8)]!;
  return out;
}

/** `count` bfloat16 values (little-endian) from `bytes` at `offset` as float32. */
export function decodeBfloat16(bytes: Uint8Array, offset: number, count: number): Float32Array {
  const out = new Float32Array(count);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0, p = offset; i < count; i++, p += 2) bits[i] = ((bytes[p]! | (bytes[p + 1]! << 8)) << 16) >>> 0;
  return out;
}

/** `count` float32 values from `bytes` at `offset` (any alignment, either byte order). */
export function decodeFloat32(bytes: Uint8Array, offset: number, count: number, littleEndian: boolean): Float32Array {
  const hostLittle = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  if (littleEndian === hostLittle) return new Float32Array(bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + 4 * count));
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 4 * count);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, littleEndian);
  return out;
}
