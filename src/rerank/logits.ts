/**
 * Reading single values out of model output tensors (float32, float64 or float16 stored as
 * raw 16-bit words), without converting whole logits tensors.
 */

/** IEEE 754 half-precision bits → number. */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** The element `index` (flat, row-major) of a float tensor's data as a number. */
export function readFloat(type: string, data: ArrayLike<number | bigint>, index: number): number {
  const v = data[index];
  if (v === undefined) throw new RangeError(`logits index ${index} out of range (${data.length})`);
  if (type === 'float16' && !isFloat16Array(data)) return halfToFloat(Number(v));
  return Number(v);
}

/** true for a native Float16Array (Node >= 24 may hand those out), whose elements are already numbers. */
function isFloat16Array(data: unknown): boolean {
  const F16 = (globalThis as Record<string, unknown>).Float16Array as (abstract new (...a: never[]) => unknown) | undefined;
  return F16 !== undefined && data instanceof F16;
}
