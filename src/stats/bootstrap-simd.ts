/**
 * The bootstrap's resampling loop (src/stats/bootstrap.ts) in WebAssembly SIMD: the index draws of
 * each iteration counted into `counts`, then every column's resample sum as a dense dot product
 * Σ_q counts[q]·x_q, two queries per instruction.
 *
 * Bit-identical to the JavaScript loops of bootstrap.ts (which remain the fallback where this
 * runtime has no WebAssembly SIMD):
 * - The draws: xoroshiro128+ as pure-rand computes it (stream.ts; in 64-bit words: wasm.ts's
 *   xoroshiroNext), and the index rules of bootstrap.ts's module comment (n < 2^15: two 16-bit
 *   numbers per output, high half first, Lemire's rejection; larger n: one output, rejected from
 *   ⌊2^32 / n⌋·n on, the index the remainder). An iteration ends at its n-th accepted index; an
 *   output's low half left over then opens the next one. While at least eight indices of an
 *   iteration are missing, the 16-bit rule runs on four outputs at a time (i32x4: the eight halves
 *   cannot end the iteration, and the order in which integer counts are incremented is immaterial);
 *   the rest one half at a time, in order.
 * - The sums: the terms c_q·x_q go to four partial sums by q mod 4 in query order, S = (A0 + A1) +
 *   (A2 + A3), the mean S / n; `f64x2.mul`, `f64x2.add`, `f64.add` and `f64.div` are IEEE 754 binary64
 *   operations (round to nearest even, never fused), the conversion of a count to float64 is exact.
 *   Lanes: one vector holds A0 and A1, another A2 and A3. The dense form also adds the terms with
 *   c_q = 0 or x_q = 0, which the sparse JavaScript loop skips: such a term is ±0, and a partial
 *   sum starting at +0 is never −0 (a sum is −0 only when both operands are), so adding ±0 leaves
 *   its bits unchanged. The padding past n is zero too.
 *
 * Layout of the module's memory (one per call of {@link simdResampledMeans}): the generator state
 * at byte 0 (s0, s1 as little-endian i64, then the pending low half and its flag), the counts at 64
 * (n rounded up to a multiple of 8 with zeros), then the columns in chunks of up to four, a chunk's
 * values interleaved by group of four queries (group g: column 0's x_{4g} … x_{4g+3}, then column
 * 1's, …; zeros past n), then the means of a run of iterations (column-major).
 *
 * The module is assembled with src/util/wasm.ts (byte by byte, no toolchain):
 *   drawSmall(n, 2^16 − (2^16 mod n)), drawLarge(n, ⌊2^32 / n⌋·n − 1): one iteration's draws into
 *   the counts; zero(counts, bytes); sums1 … sums4(counts, bytes, chunk, out, stride, n as f64):
 *   the means of a chunk of 1 … 4 columns, column j's to out + j·stride.
 */

import {
  ADD, AND, BLOCK, br, brIf, compileOrNull, END, EQ, EQZ, F64, F64ADD, F64DIV, f64lane, f64store, F64X2_ADD,
  F64X2_FROM_I32X4_LOW, F64X2_MUL, get, I32, I32X4_ADD, I32X4_GT_S, I32X4_MUL, I32X4_SHR_U, I32X4_SPLAT, i32c, i32lane,
  i32load, i32replace, i32store, I64, IF, LE_U, LOOP, LT_S, LT_U, MEMORY_FILL, moduleBytes, MUL, REM_U, set, SHL,
  SHR_U, SUB, tee, V128, V128_AND, vload, vload64zero, VZERO, type WasmFunction, XOR,
} from '../util/wasm.js';
import { xoroshiroLoad, xoroshiroNext, xoroshiroStore } from './wasm-kernel.js';

/** Where the counts start in the module's memory (an immediate offset of the draw functions). */
const COUNTS_AT = 64;

// The draw functions: params n, limit; then locals.
const [N, LIMIT, I, OUT, M, A, ACC, S0, S1, X, MASK] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const DRAW_LOCALS = [I32, I32, I32, I32, I32, I64, I64, I64, I64];

const rng = { s0: S0, s1: S1, x: X, mask: MASK, out: OUT };
/** OUT = the next output (see wasm.ts). */
const next = xoroshiroNext(rng);

/** counts[index] += ACC, I += ACC, with `offset` (the code that pushes 4·index) and ACC (0 or 1) set. */
const count = (offset: number[]) => [
  ...offset, ...tee(A),
  ...get(A), ...i32load(COUNTS_AT), ...get(ACC), ...ADD, ...i32store(COUNTS_AT),
  ...get(I), ...get(ACC), ...ADD, ...set(I),
];

/**
 * One 16-bit number u (the code that pushes it), Lemire's rule with LIMIT = 2^16 − (2^16 mod n):
 * with m = u·n, accepted iff (m mod 2^16) + LIMIT ≥ 2^16, the index ⌊m / 2^16⌋.
 */
const half = (u: number[]) => [
  ...u, ...get(N), ...MUL, ...tee(M), ...i32c(0xffff), ...AND, ...get(LIMIT), ...ADD, ...i32c(16), ...SHR_U, ...set(ACC),
  ...count([...get(M), ...i32c(14), ...SHR_U, ...i32c(-4), ...AND]),
];
const high = half([...get(OUT), ...i32c(16), ...SHR_U]);
const low = half([...get(OUT), ...i32c(0xffff), ...AND]);

const loadState = xoroshiroLoad(rng, 0);
const storeState = xoroshiroStore(rng, 0);

/** while at least `2k` draws are missing: `k` outputs, both halves of each. */
const whole = (k: number) => [
  ...BLOCK, ...LOOP,
  ...get(N), ...get(I), ...SUB, ...i32c(2 * k), ...LT_S, ...brIf(1),
  ...Array.from({ length: k }, () => [...next, ...high, ...low]).flat(),
  ...br(0),
  ...END, ...END,
];

// drawSmall's vector locals: four outputs, the products of their halves, acceptance masks, addresses,
// the masks' running sum, and constants (splats of 0xffff, 2^16 mod n − 1, n, −4, COUNTS_AT).
const [BLOCKS, VW, VM, VA, VO, VSUM, FFFF, REJ1, VN, M4, VBASE] = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21];

/**
 * The eight halves of the four outputs in VW (the code that pushes the high or low halves of the
 * vector): counts[index] += 1 for each accepted one, the word at byte 0 (the state's first word,
 * rewritten by storeState) for each rejected one; VSUM -= the accepted ones. The order of the
 * additions to the counts does not matter (integers), and all eight belong to this iteration.
 */
const vhalves = (u: number[]) => [
  ...u, ...get(VN), ...I32X4_MUL, ...set(VM),
  ...get(VM), ...get(FFFF), ...V128_AND, ...get(REJ1), ...I32X4_GT_S, ...set(VA),
  ...get(VSUM), ...get(VA), ...I32X4_ADD, ...set(VSUM),
  ...get(VM), ...i32c(14), ...I32X4_SHR_U, ...get(M4), ...V128_AND, ...get(VBASE), ...I32X4_ADD, ...get(VA), ...V128_AND, ...set(VO),
  ...[0, 1, 2, 3].flatMap((k) => [...get(VO), ...i32lane(k), ...tee(A), ...get(A), ...i32load(0), ...i32c(1), ...ADD, ...i32store(0)]),
];

/**
 * While at least eight draws are missing: passes of ⌊missing / 8⌋ blocks of four outputs (no block
 * can end the iteration: each accepts at most eight), their halves taken four at a time.
 */
const blocks = [
  ...i32c(0xffff), ...I32X4_SPLAT, ...set(FFFF),
  ...i32c(0xffff), ...get(LIMIT), ...SUB, ...I32X4_SPLAT, ...set(REJ1),
  ...get(N), ...I32X4_SPLAT, ...set(VN),
  ...i32c(-4), ...I32X4_SPLAT, ...set(M4),
  ...i32c(COUNTS_AT), ...I32X4_SPLAT, ...set(VBASE),
  ...BLOCK, ...LOOP,
  ...get(N), ...get(I), ...SUB, ...i32c(3), ...SHR_U, ...tee(BLOCKS), ...EQZ, ...brIf(1),
  ...VZERO, ...set(VSUM),
  ...LOOP,
  ...next, ...get(OUT), ...I32X4_SPLAT, ...set(VW),
  ...[1, 2, 3].flatMap((k) => [...next, ...get(VW), ...get(OUT), ...i32replace(k), ...set(VW)]),
  ...vhalves([...get(VW), ...i32c(16), ...I32X4_SHR_U]),
  ...vhalves([...get(VW), ...get(FFFF), ...V128_AND]),
  ...get(BLOCKS), ...i32c(1), ...SUB, ...tee(BLOCKS), ...brIf(0),
  ...END,
  ...get(I), ...[0, 1, 2, 3].flatMap((k) => [...get(VSUM), ...i32lane(k), ...SUB]), ...set(I),
  ...br(0),
  ...END, ...END,
];

const drawSmall: WasmFunction = {
  name: 'drawSmall',
  params: [I32, I32],
  results: [],
  locals: [...DRAW_LOCALS, I32, V128, V128, V128, V128, V128, V128, V128, V128, V128, V128],
  code: [
    ...loadState,
    // the low half left over by the previous iteration
    ...i32c(0), ...i32load(20), ...IF,
    ...i32c(0), ...i32load(16), ...set(OUT), ...low, ...i32c(0), ...i32c(0), ...i32store(20),
    ...END,
    ...blocks,
    ...whole(1),
    // the last one: the low half is kept when the high one ends the iteration
    ...BLOCK, ...LOOP,
    ...get(I), ...get(N), ...EQ, ...brIf(1),
    ...next, ...high,
    ...get(I), ...get(N), ...EQ, ...IF,
    ...i32c(0), ...get(OUT), ...i32store(16), ...i32c(0), ...i32c(1), ...i32store(20), ...br(2),
    ...END,
    ...low,
    ...br(0),
    ...END, ...END,
    ...storeState,
  ],
};

const drawLarge: WasmFunction = {
  name: 'drawLarge',
  params: [I32, I32],
  results: [],
  locals: DRAW_LOCALS,
  code: [
    ...loadState,
    ...LOOP,
    ...next,
    ...get(OUT), ...i32c(-0x80000000), ...XOR, ...tee(M), ...get(LIMIT), ...LE_U, ...set(ACC), // v = out + 2^31 < maxAllowed
    ...count([...get(M), ...get(N), ...REM_U, ...i32c(2), ...SHL]),
    ...get(I), ...get(N), ...LT_U, ...brIf(0),
    ...END,
    ...storeState,
  ],
};

const zero: WasmFunction = { name: 'zero', params: [I32, I32], results: [], locals: [], code: [...get(0), ...i32c(0), ...get(1), ...MEMORY_FILL] };

/**
 * The sums of a chunk of `cols` columns: params counts, bytes (a multiple of 32: two groups of four
 * queries per loop), chunk, out, stride, n (f64).
 */
function sums(cols: number): WasmFunction {
  const [CP, BYTES, XP, OUTP, STRIDE, NF, END_, C01, C23] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const acc = (k: number) => 9 + k;
  const code: number[] = [...get(CP), ...get(BYTES), ...ADD, ...set(END_), ...LOOP];
  for (let g = 0; g < 2; g++) {
    code.push(
      ...get(CP), ...vload64zero(16 * g), ...F64X2_FROM_I32X4_LOW, ...set(C01),
      ...get(CP), ...vload64zero(16 * g + 8), ...F64X2_FROM_I32X4_LOW, ...set(C23),
    );
    for (let j = 0; j < cols; j++) {
      const at = 32 * (g * cols + j);
      code.push(...get(acc(2 * j)), ...get(C01), ...get(XP), ...vload(at), ...F64X2_MUL, ...F64X2_ADD, ...set(acc(2 * j)));
      code.push(...get(acc(2 * j + 1)), ...get(C23), ...get(XP), ...vload(at + 16), ...F64X2_MUL, ...F64X2_ADD, ...set(acc(2 * j + 1)));
    }
  }
  code.push(
    ...get(XP), ...i32c(64 * cols), ...ADD, ...set(XP),
    ...get(CP), ...i32c(32), ...ADD, ...tee(CP), ...get(END_), ...LT_U, ...brIf(0),
    ...END,
  );
  for (let j = 0; j < cols; j++) {
    const [a, b] = [acc(2 * j), acc(2 * j + 1)];
    code.push(
      ...get(OUTP),
      ...get(a), ...f64lane(0), ...get(a), ...f64lane(1), ...F64ADD,
      ...get(b), ...f64lane(0), ...get(b), ...f64lane(1), ...F64ADD,
      ...F64ADD, ...get(NF), ...F64DIV, ...f64store(0),
      ...get(OUTP), ...get(STRIDE), ...ADD, ...set(OUTP),
    );
  }
  return { name: `sums${cols}`, params: [I32, I32, I32, I32, I32, F64], results: [], locals: [I32, V128, V128, ...new Array<number>(2 * cols).fill(V128)], code };
}

/** Most columns of one chunk (eight accumulators: they stay in registers). */
const MAX_CHUNK = 4;

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD. */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled = compileOrNull(moduleBytes([drawSmall, drawLarge, zero, ...Array.from({ length: MAX_CHUNK }, (_, k) => sums(k + 1))]));
  }
  return compiled;
}

/** Whether the SIMD kernel can run here. */
export function simdAvailable(): boolean {
  return kernel() !== null;
}

/** Below this many queries an index takes 16 bits of an output (bootstrap.ts's SMALL). */
const SMALL = 1 << 15;
/** Iterations whose means one run of the kernel holds before they are copied out. */
const RUN = 1024;
const PAGE = 65536;

type Draw = (n: number, limit: number) => void;
type Sums = (counts: number, bytes: number, chunk: number, out: number, stride: number, n: number) => void;

/**
 * The `iterations` bootstrap means of every row of the rows × n matrix `values` (row-major), in
 * iteration order (unsorted), from the generator state `state` (rng.ts's seededState, pure-rand's
 * order); bit for bit bootstrap.ts's JavaScript loops. Throws where {@link simdAvailable} is false.
 */
export function simdResampledMeans(values: Float64Array, n: number, state: readonly number[], iterations: number): Float64Array[] {
  const mod = kernel();
  if (mod === null) throw new Error('WebAssembly SIMD is not available');
  const rows = values.length / n;
  const groups = 2 * Math.ceil(n / 8); // the sums take two groups of four queries at a time
  const countBytes = 16 * groups;
  const countsAt = COUNTS_AT;
  // chunks of columns, as even as MAX_CHUNK allows (9 columns: 3 + 3 + 3)
  const chunkCount = Math.ceil(rows / MAX_CHUNK);
  const chunks: { first: number; cols: number; at: number }[] = [];
  let at = countsAt + countBytes;
  for (let c = 0, first = 0; c < chunkCount; c++) {
    const cols = Math.ceil((rows - first) / (chunkCount - c));
    chunks.push({ first, cols, at });
    at += 32 * groups * cols;
    first += cols;
  }
  const run = Math.min(RUN, iterations);
  const outAt = at;
  const memory = new WebAssembly.Memory({ initial: Math.ceil((outAt + 8 * rows * run) / PAGE) });
  const ex = new WebAssembly.Instance(mod, { m: { mem: memory } }).exports;
  const buf = memory.buffer;

  new Int32Array(buf, 0, 4).set(state);
  for (const { first, cols, at } of chunks) {
    const x = new Float64Array(buf, at, 4 * groups * cols);
    for (let j = 0; j < cols; j++) {
      const row = values.subarray((first + j) * n, (first + j + 1) * n);
      for (let q = 0; q < n; q++) x[4 * ((q >>> 2) * cols + j) + (q & 3)] = row[q]!;
    }
  }

  const small = n < SMALL;
  const draw = (small ? ex.drawSmall : ex.drawLarge) as Draw;
  const limit = small ? 65536 - (65536 % n) : (Math.floor(4294967296 / n) * n - 1) | 0;
  const zero = ex.zero as (counts: number, bytes: number) => void;
  const sums = chunks.map(({ cols }) => ex[`sums${cols}`] as Sums);
  const out = new Float64Array(buf, outAt, rows * run);
  const means = Array.from({ length: rows }, () => new Float64Array(iterations));
  for (let done = 0; done < iterations; done += run) {
    const its = Math.min(run, iterations - done);
    for (let t = 0; t < its; t++) {
      draw(n, limit);
      for (let c = 0; c < chunks.length; c++) {
        const ch = chunks[c]!;
        sums[c]!(countsAt, countBytes, ch.at, outAt + 8 * (ch.first * run + t), 8 * run, n);
      }
      zero(countsAt, countBytes);
    }
    for (let r = 0; r < rows; r++) means[r]!.set(out.subarray(r * run, r * run + its), done);
  }
  return means;
}
