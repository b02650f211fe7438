/**
 * A minimal WebAssembly assembler for the project's SIMD kernels (src/stats/bootstrap-simd.ts,
 * src/stats/randomization-simd.ts, src/retrieval/bm25/simd.ts): modules are written byte by byte
 * (no toolchain, no dependency). A module imports one memory, `m.mem`, and exports its functions
 * by name.
 *
 * Only what the kernels use is here: integer, float32x4, float64 and f64x2 instructions, all of
 * them exact IEEE 754 operations where they touch floats (WebAssembly never fuses a multiply and
 * an add, and rounds to nearest even), so a kernel can reproduce a JavaScript loop bit for bit.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;
export const V128 = 0x7b;

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 (i32.const and small i64.const immediates). */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Signed LEB128 of a 64-bit integer (i64.const immediates). */
export function sleb64(n: bigint): number[] {
  const out: number[] = [];
  n = BigInt.asIntN(64, n);
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

/** One exported function: its name, parameter and result types, the types of its other locals, its code. */
export interface WasmFunction {
  name: string;
  params: number[];
  results: number[];
  locals: number[];
  code: number[];
}

/** The bytes of a module that imports `m.mem` (at least one page) and exports `fns`. */
export function moduleBytes(fns: readonly WasmFunction[]): Uint8Array<ArrayBuffer> {
  const types = fns.map((f) => [0x60, ...uleb(f.params.length), ...f.params, ...uleb(f.results.length), ...f.results]);
  const bodies = fns.map((f) => {
    const groups: [number, number][] = [];
    for (const t of f.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    const b = [...uleb(groups.length), ...groups.flatMap(([count, t]) => [...uleb(count), t]), ...f.code, 0x0b];
    return [...uleb(b.length), ...b];
  });
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [...uleb(fns.length), ...types.flat()]),
    ...section(2, [0x01, ...name('m'), ...name('mem'), 0x02, 0x00, 0x01]),
    ...section(3, [...uleb(fns.length), ...fns.flatMap((_, i) => uleb(i))]),
    ...section(7, [...uleb(fns.length), ...fns.flatMap((f, i) => [...name(f.name), 0x00, ...uleb(i)])]),
    ...section(10, [...uleb(fns.length), ...bodies.flat()]),
  ];
  return new Uint8Array(bytes);
}

/** The compiled module, or null where this runtime lacks an instruction it uses (no WebAssembly SIMD). */
export function compileOrNull(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Module | null {
  return typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
}


// Instructions.
export const get = (l: number) => [0x20, ...uleb(l)];
export const set = (l: number) => [0x21, ...uleb(l)];
export const tee = (l: number) => [0x22, ...uleb(l)];
export const i32c = (n: number) => [0x41, ...sleb(n)];
export const i64c = (n: bigint) => [0x42, ...sleb64(n)];
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const IF = [0x04, 0x40];
export const END = [0x0b];
export const br = (depth: number) => [0x0c, depth];
export const brIf = (depth: number) => [0x0d, depth];
export const SELECT = [0x1b];
export const i32load = (offset: number) => [0x28, 0x02, ...uleb(offset)];
export const i64load = (offset: number) => [0x29, 0x03, ...uleb(offset)];
export const i32store = (offset: number) => [0x36, 0x02, ...uleb(offset)];
export const i64store = (offset: number) => [0x37, 0x03, ...uleb(offset)];
export const f64store = (offset: number) => [0x39, 0x03, ...uleb(offset)];
export const [EQZ, EQ, LT_S, GT_S, LT_U, LE_U, GE_S, GE_U] = [[0x45], [0x46], [0x48], [0x4a], [0x49], [0x4d], [0x4e], [0x4f]];
export const [ADD, SUB, MUL, REM_U, AND, XOR, SHL, SHR_U] = [[0x6a], [0x6b], [0x6c], [0x70], [0x71], [0x73], [0x74], [0x76]];
export const [I64AND, I64XOR, I64SHR_U, I64ROTL] = [[0x83], [0x85], [0x88], [0x89]];
export const WRAP = [0xa7];
export const [F64GE, F64ABS, F64ADD, F64DIV] = [[0x66], [0x99], [0xa0], [0xa3]];
export const MEMORY_FILL = [0xfc, 0x0b, 0x00];
export const vload = (offset: number) => [0xfd, 0x00, 0x04, ...uleb(offset)];
export const vload64zero = (offset: number) => [0xfd, 0x5d, 0x03, ...uleb(offset)];
/** v128.load64_lane: [address, vector] → the vector with lane `lane` loaded. */
export const vload64lane = (offset: number, lane: number) => [0xfd, 0x57, 0x03, ...uleb(offset), lane];
export const VZERO = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
export const F64X2_FROM_I32X4_LOW = [0xfd, 0xfe, 0x01];
export const F64X2_ADD = [0xfd, 0xf0, 0x01];
export const F64X2_MUL = [0xfd, 0xf2, 0x01];
export const f64lane = (k: number) => [0xfd, 0x21, k];
export const I32X4_SPLAT = [0xfd, 0x11];
export const i32lane = (k: number) => [0xfd, 0x1b, k];
export const i32replace = (k: number) => [0xfd, 0x1c, k];
export const I32X4_GT_S = [0xfd, 0x3b];
export const V128_AND = [0xfd, 0x4e];
export const I32X4_SHR_U = [0xfd, 0xad, 0x01];
export const I32X4_ADD = [0xfd, 0xae, 0x01];
export const I32X4_MUL = [0xfd, 0xb5, 0x01];
export const vstore = (offset: number) => [0xfd, 0x0b, 0x04, ...uleb(offset)];
export const F32X4_ADD = [0xfd, 0xe4, 0x01];
