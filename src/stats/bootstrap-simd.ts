/**
 * The bootstrap's resampling loop (src/stats/bootstrap.ts) in WebAssembly SIMD: the index draws of
 * each iteration counted into `counts`, then every column's resample sum as a dense dot product
 * Σ_q counts[q]·x_q, two queries per instruction.
 *
 * Bit-identical to the JavaScript loops of bootstrap.ts (which remain the fallback where this
 * runtime has no WebAssembly SIMD):
 * - The draws: xoroshiro128+ as pure-rand computes it (stream.ts; with 64-bit words s0 = s00:s01 and
 *   s1 = s10:s11, high word first, an output is the wrapped sum of the two high words, then x = s0 ^ s1,
 *   s0 = rotl(s0, 24) ^ x ^ rotl(rotl(x, 32) << 16, 32), s1 = rotl(x, 37)), and the index rules of
 *   bootstrap.ts's module comment (n < 2^15: two 16-bit numbers per output, high half first, Lemire's
 *   rejection; larger n: one output, rejected from ⌊2^32 / n⌋·n on, the index the remainder). An
 *   iteration ends at its n-th accepted index; an output's low half left over then opens the next one.
 * - The sums: the terms c_q·x_q go to four partial sums by q mod 4 in query order, S = (A0 + A1) +
 *   (A2 + A3), the mean S / n; `f64x2.mul`, `f64x2.add`, `f64.add` and `f64.div` are IEEE 754 binary64
 *   operations (round to nearest even, never fused), the conversion of a count to float64 is exact.
 *   Lanes: one vector holds A0 and A1, another A2 and A3. The dense form also adds the terms with
 *   c_q = 0 or x_q = 0, which the sparse JavaScript loop skips: such a term is ±0, and a partial
 *   sum starting at +0 is never −0 (a sum is −0 only when both operands are), so adding ±0 leaves
 *   its bits unchanged. The padding of the last group of four queries is zero too.
 *
 * Layout of the module's memory (one per call of {@link simdResampledMeans}): the generator state
 * at byte 0 (s0, s1 as little-endian i64, then the pending low half and its flag), the counts at 64
 * (n rounded up to a multiple of 4), then the columns in chunks of up to four, a chunk's values
 * interleaved by group of four queries (group g: column 0's x_{4g} … x_{4g+3}, then column 1's, …),
 * then the means of a run of iterations (column-major).
 *
 * The module is assembled here byte by byte (no toolchain), as src/retrieval/bm25/simd.ts is:
 *   drawSmall(counts, n, reject), drawLarge(counts, n, maxAllowed − 1): one iteration's draws;
 *   zero(counts, bytes); sums1 … sums4(counts, bytes, chunk, out, stride, n as f64): the means of
 *   a chunk of 1 … 4 columns, column j's to out + j·stride.
 */

const I32 = 0x7f;
const I64 = 0x7e;
const F64 = 0x7c;
const V128 = 0x7b;

/** Unsigned LEB128. */
function uleb(n: number): number[] {
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
function sleb(n: number): number[] {
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

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

/** A function body: local declarations (one entry per local, grouped here) and code. */
function body(locals: number[], code: number[]): number[] {
  const groups: number[][] = [];
  for (const t of locals) {
    const last = groups[groups.length - 1];
    if (last && last[1] === t) last[0] = last[0]! + 1;
    else groups.push([1, t]);
  }
  const b = [...uleb(groups.length), ...groups.flatMap(([count, t]) => [...uleb(count!), t!]), ...code, 0x0b];
  return [...uleb(b.length), ...b];
}

// Instructions.
const get = (l: number) => [0x20, ...uleb(l)];
const set = (l: number) => [0x21, ...uleb(l)];
const tee = (l: number) => [0x22, ...uleb(l)];
const i32c = (n: number) => [0x41, ...sleb(n)];
const i64c = (n: number) => [0x42, ...sleb(n)];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const i32load = (offset: number) => [0x28, 0x02, ...uleb(offset)];
const i64load = (offset: number) => [0x29, 0x03, ...uleb(offset)];
const i32store = (offset: number) => [0x36, 0x02, ...uleb(offset)];
const i64store = (offset: number) => [0x37, 0x03, ...uleb(offset)];
const f64store = (offset: number) => [0x39, 0x03, ...uleb(offset)];
const [EQ, LT_S, LT_U, LE_U, GE_U] = [[0x46], [0x48], [0x49], [0x4d], [0x4f]];
const [ADD, SUB, MUL, REM_U, AND, XOR, SHL, SHR_U] = [[0x6a], [0x6b], [0x6c], [0x70], [0x71], [0x73], [0x74], [0x76]];
const [I64XOR, I64SHL, I64SHR_U, I64ROTL] = [[0x85], [0x86], [0x88], [0x89]];
const WRAP = [0xa7];
const [F64ADD, F64DIV] = [[0xa0], [0xa3]];
const MEMORY_FILL = [0xfc, 0x0b, 0x00];
const vload = (offset: number) => [0xfd, 0x00, 0x04, ...uleb(offset)];
const vload64zero = (offset: number) => [0xfd, 0x5d, 0x03, ...uleb(offset)];
const F64X2_FROM_I32X4_LOW = [0xfd, 0xfe, 0x01];
const F64X2_ADD = [0xfd, 0xf0, 0x01];
const F64X2_MUL = [0xfd, 0xf2, 0x01];
const lane = (k: number) => [0xfd, 0x21, k];

// The draw functions: params counts, n, limit; then locals.
const [COUNTS, N, LIMIT, I, OUT, M, A, ACC, S0, S1, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const DRAW_LOCALS = [I32, I32, I32, I32, I32, I64, I64, I64];

/** OUT = the next output; advances S0, S1 (see the module comment). */
const next = [
  ...get(S0), ...i64c(32), ...I64SHR_U, ...WRAP, ...get(S1), ...i64c(32), ...I64SHR_U, ...WRAP, ...ADD, ...set(OUT),
  ...get(S1), ...get(S0), ...I64XOR, ...set(X),
  ...get(S0), ...i64c(24), ...I64ROTL, ...get(X), ...I64XOR,
  ...get(X), ...i64c(32), ...I64ROTL, ...i64c(16), ...I64SHL, ...i64c(32), ...I64ROTL, ...I64XOR, ...set(S0),
  ...get(X), ...i64c(37), ...I64ROTL, ...set(S1),
];

/** counts[index] += ACC, I += ACC, with `index` (the code that pushes it) and ACC (0 or 1) set. */
const count = (index: number[]) => [
  ...get(COUNTS), ...index, ...i32c(2), ...SHL, ...ADD, ...tee(A),
  ...get(A), ...i32load(0), ...get(ACC), ...ADD, ...i32store(0),
  ...get(I), ...get(ACC), ...ADD, ...set(I),
];

/** One 16-bit number u (the code that pushes it), Lemire's rule with LIMIT = 2^16 mod n. */
const half = (u: number[]) => [
  ...u, ...get(N), ...MUL, ...tee(M), ...i32c(0xffff), ...AND, ...get(LIMIT), ...GE_U, ...set(ACC),
  ...count([...get(M), ...i32c(16), ...SHR_U]),
];
const high = half([...get(OUT), ...i32c(16), ...SHR_U]);
const low = half([...get(OUT), ...i32c(0xffff), ...AND]);

const loadState = [...i32c(0), ...i64load(0), ...set(S0), ...i32c(0), ...i64load(8), ...set(S1)];
const storeState = [...i32c(0), ...get(S0), ...i64store(0), ...i32c(0), ...get(S1), ...i64store(8)];

const drawSmall = body(DRAW_LOCALS, [
  ...loadState,
  // the low half left over by the previous iteration
  ...i32c(0), ...i32load(20), ...IF,
  ...i32c(0), ...i32load(16), ...set(OUT), ...low, ...i32c(0), ...i32c(0), ...i32store(20),
  ...END,
  // while at least two draws are missing: both halves of an output
  ...BLOCK, ...LOOP,
  ...get(N), ...get(I), ...SUB, ...i32c(2), ...LT_S, ...brIf(1),
  ...next, ...high, ...low,
  ...br(0),
  ...END, ...END,
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
]);

const drawLarge = body(DRAW_LOCALS, [
  ...loadState,
  ...LOOP,
  ...next,
  ...get(OUT), ...i32c(-0x80000000), ...XOR, ...tee(M), ...get(LIMIT), ...LE_U, ...set(ACC), // v = out + 2^31 < maxAllowed
  ...count([...get(M), ...get(N), ...REM_U]),
  ...get(I), ...get(N), ...LT_U, ...brIf(0),
  ...END,
  ...storeState,
]);

const zero = body([], [...get(0), ...i32c(0), ...get(1), ...MEMORY_FILL]);

/** The sums of a chunk of `cols` columns: params counts, bytes, chunk, out, stride, n (f64). */
function sums(cols: number): number[] {
  const [CP, BYTES, XP, OUTP, STRIDE, NF, END_, C01, C23] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const acc = (k: number) => 9 + k;
  const locals = [I32, V128, V128, ...new Array<number>(2 * cols).fill(V128)];
  const code: number[] = [
    ...get(CP), ...get(BYTES), ...ADD, ...set(END_),
    ...LOOP,
    ...get(CP), ...vload64zero(0), ...F64X2_FROM_I32X4_LOW, ...set(C01),
    ...get(CP), ...vload64zero(8), ...F64X2_FROM_I32X4_LOW, ...set(C23),
  ];
  for (let j = 0; j < cols; j++) {
    code.push(...get(acc(2 * j)), ...get(C01), ...get(XP), ...vload(32 * j), ...F64X2_MUL, ...F64X2_ADD, ...set(acc(2 * j)));
    code.push(...get(acc(2 * j + 1)), ...get(C23), ...get(XP), ...vload(32 * j + 16), ...F64X2_MUL, ...F64X2_ADD, ...set(acc(2 * j + 1)));
  }
  code.push(
    ...get(XP), ...i32c(32 * cols), ...ADD, ...set(XP),
    ...get(CP), ...i32c(16), ...ADD, ...tee(CP), ...get(END_), ...LT_U, ...brIf(0),
    ...END,
  );
  for (let j = 0; j < cols; j++) {
    const [a, b] = [acc(2 * j), acc(2 * j + 1)];
    code.push(
      ...get(OUTP),
      ...get(a), ...lane(0), ...get(a), ...lane(1), ...F64ADD,
      ...get(b), ...lane(0), ...get(b), ...lane(1), ...F64ADD,
      ...F64ADD, ...get(NF), ...F64DIV, ...f64store(0),
      ...get(OUTP), ...get(STRIDE), ...ADD, ...set(OUTP),
    );
  }
  return body(locals, code);
}

/** Most columns of one chunk (eight accumulators: they stay in registers). */
const MAX_CHUNK = 4;

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const draw = [0x60, 0x03, I32, I32, I32, 0x00];
  const zeroType = [0x60, 0x02, I32, I32, 0x00];
  const sumsType = [0x60, 0x06, I32, I32, I32, I32, I32, F64, 0x00];
  const fns: [string, number, number[]][] = [
    ['drawSmall', 0, drawSmall],
    ['drawLarge', 0, drawLarge],
    ['zero', 1, zero],
    ...Array.from({ length: MAX_CHUNK }, (_, k): [string, number, number[]] => [`sums${k + 1}`, 2, sums(k + 1)]),
  ];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x03, ...draw, ...zeroType, ...sumsType]),
    ...section(2, [0x01, ...name('m'), ...name('mem'), 0x02, 0x00, 0x01]),
    ...section(3, [fns.length, ...fns.map(([, t]) => t)]),
    ...section(7, [fns.length, ...fns.flatMap(([n], i) => [...name(n), 0x00, i])]),
    ...section(10, [fns.length, ...fns.flatMap(([, , b]) => b)]),
  ];
  return new Uint8Array(bytes);
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD. */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) {
    const bytes = moduleBytes();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
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

type Draw = (counts: number, n: number, limit: number) => void;
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
  const groups = Math.ceil(n / 4);
  const countBytes = 16 * groups;
  const countsAt = 64;
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
  const limit = small ? 65536 % n : (Math.floor(4294967296 / n) * n - 1) | 0;
  const zero = ex.zero as (counts: number, bytes: number) => void;
  const sums = chunks.map(({ cols }) => ex[`sums${cols}`] as Sums);
  const out = new Float64Array(buf, outAt, rows * run);
  const means = Array.from({ length: rows }, () => new Float64Array(iterations));
  for (let done = 0; done < iterations; done += run) {
    const its = Math.min(run, iterations - done);
    for (let t = 0; t < its; t++) {
      draw(countsAt, n, limit);
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
