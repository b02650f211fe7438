/**
 * The inner loop of the randomization test (src/stats/randomization.ts's countExtreme) in
 * WebAssembly SIMD: over a chunk of iterations' sign words, how many permuted means are at least
 * as extreme as the observed one, two iterations at a time (one per lane of an f64x2 vector).
 *
 * Bit-identical to the JavaScript loop (the fallback where WebAssembly SIMD is unavailable): per
 * iteration, each nibble of sign word w picks its group sum from the column's table, and the group
 * sums go, in word and nibble order, to four partial sums by group mod 4 (nibble j of a word to
 * A_{j mod 4}); the permuted sum is (A0 + A1) + (A2 + A3), compared as |sum / n| ≥ threshold. Lane
 * 0 holds the partial sums of iteration t, lane 1 those of t + 1; `f64x2.add`, `f64.div`,
 * `f64.abs` and `f64.ge` are the IEEE 754 binary64 operations the JavaScript loop performs, lane by
 * lane. An odd last iteration runs in both lanes and is counted once.
 *
 * The sign words come from the generator in the kernel too (xoroshiro128+ as pure-rand computes it:
 * wasm.ts's xoroshiroNext), the stream's outputs in order.
 *
 * Layout of the module's memory (one per call of randomizationPValues): the generator state at
 * byte 0 (s0, s1 as little-endian i64), the sign words of a chunk of iterations from byte 64 on
 * (iteration t's W words from 64 + 4·t·W on), then one table per column, each 1024·W bytes
 * (randomization.ts's signTable: entry (8w + j)·16 + m at byte 1024·w + 128·j + 8·m).
 *
 * The module is assembled with src/util/wasm.ts (byte by byte, no toolchain): two functions,
 *   words(count): the next `count` outputs into the chunk's words;
 *   extreme(words, W, iterations, table, threshold, n as f64) → count.
 */
import {
  ADD, AND, brIf, compileOrNull, END, F64, F64ABS, F64DIV, F64GE, f64lane, F64X2_ADD, GE_S, get, GT_S, I32, i32c,
  i32load, i32store, I64, LOOP, LT_U, moduleBytes, SELECT, set, SHL, SHR_U, SUB, tee, V128, vload64lane, vload64zero,
  VZERO, type WasmFunction,
} from '../util/wasm.js';
import { xoroshiroLoad, xoroshiroNext, xoroshiroStore } from './wasm-kernel.js';

/** Where the sign words start in the module's memory (the generator state is at byte 0). */
const WORDS_AT = 64;

/** words(count): the next `count` outputs of the generator, from WORDS_AT on. */
function wordsFunction(): WasmFunction {
  const [COUNT, P, END_, OUT, S0, S1, X, MASK] = [0, 1, 2, 3, 4, 5, 6, 7];
  const rng = { s0: S0, s1: S1, x: X, mask: MASK, out: OUT };
  return {
    name: 'words',
    params: [I32],
    results: [],
    locals: [I32, I32, I32, I64, I64, I64, I64],
    code: [
      ...xoroshiroLoad(rng, 0),
      ...i32c(WORDS_AT), ...tee(P), ...get(COUNT), ...i32c(2), ...SHL, ...ADD, ...set(END_),
      ...LOOP,
      ...xoroshiroNext(rng),
      ...get(P), ...get(OUT), ...i32store(0),
      ...get(P), ...i32c(4), ...ADD, ...tee(P), ...get(END_), ...LT_U, ...brIf(0),
      ...END,
      ...xoroshiroStore(rng, 0),
    ],
  };
}

function extremeFunction(): WasmFunction {
  const [WP, W, ITS, TABLE, THR, NF] = [0, 1, 2, 3, 4, 5];
  const [T, PA, PB, E, TW, BA, BB, EXT] = [6, 7, 8, 9, 10, 11, 12, 13];
  const ACC = [14, 15, 16, 17];
  const V = 18;
  /** 8·(nibble j of the word in local b): the byte offset of its entry within the nibble's 16. */
  const nib = (b: number, j: number) =>
    j === 0 ? [...get(b), ...i32c(3), ...SHL, ...i32c(0x78), ...AND] : [...get(b), ...i32c(4 * j - 3), ...SHR_U, ...i32c(0x78), ...AND];
  const twoLeft = [...get(T), ...i32c(2), ...GE_S];
  /** EXT += |lane k of V / n| ≥ threshold (`also`: the code of a 0/1 factor). */
  const tally = (k: number, also: number[]) => [
    ...get(EXT), ...get(V), ...f64lane(k), ...get(NF), ...F64DIV, ...F64ABS, ...get(THR), ...F64GE, ...also, ...ADD, ...set(EXT),
  ];
  const code: number[] = [
    ...get(ITS), ...set(T),
    ...get(WP), ...set(PA),
    ...LOOP, // pairs of iterations
    ...get(PA), ...get(W), ...i32c(2), ...SHL, ...ADD, ...tee(E), // the end of iteration t's words
    ...get(PA), ...twoLeft, ...SELECT, ...set(PB), // iteration t + 1's words (t's again when it is the last)
    ...get(TABLE), ...set(TW),
    ...ACC.flatMap((a) => [...VZERO, ...set(a)]),
    ...LOOP, // words
    ...get(PA), ...i32load(0), ...set(BA),
    ...get(PB), ...i32load(0), ...set(BB),
  ];
  for (let j = 0; j < 8; j++) {
    code.push(
      ...get(TW), ...nib(BA, j), ...ADD, ...vload64zero(128 * j), ...set(V),
      ...get(ACC[j & 3]!),
      ...get(TW), ...nib(BB, j), ...ADD, ...get(V), ...vload64lane(128 * j, 1),
      ...F64X2_ADD, ...set(ACC[j & 3]!),
    );
  }
  code.push(
    ...get(TW), ...i32c(1024), ...ADD, ...set(TW),
    ...get(PB), ...i32c(4), ...ADD, ...set(PB),
    ...get(PA), ...i32c(4), ...ADD, ...tee(PA), ...get(E), ...LT_U, ...brIf(0),
    ...END,
    ...get(ACC[0]!), ...get(ACC[1]!), ...F64X2_ADD, ...get(ACC[2]!), ...get(ACC[3]!), ...F64X2_ADD, ...F64X2_ADD, ...set(V),
    ...tally(0, []),
    ...tally(1, [...twoLeft, ...AND]),
    ...get(PB), ...set(PA), // past iteration t + 1 (past t when it was the last)
    ...get(T), ...i32c(2), ...SUB, ...tee(T), ...i32c(0), ...GT_S, ...brIf(0),
    ...END,
    ...get(EXT),
  );
  return {
    name: 'extreme',
    params: [I32, I32, I32, I32, F64, F64],
    results: [I32],
    locals: [I32, I32, I32, I32, I32, I32, I32, I32, V128, V128, V128, V128, V128],
    code,
  };
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD. */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) compiled = compileOrNull(moduleBytes([wordsFunction(), extremeFunction()]));
  return compiled;
}

/** Whether the SIMD kernel can run here. */
export function signKernelAvailable(): boolean {
  return kernel() !== null;
}

const PAGE = 65536;

/**
 * The generator, the sign words of a chunk of iterations and the tables of `columns` columns, in
 * one WebAssembly memory, and the kernel that counts the extreme permuted means of a column over
 * the chunk.
 */
export class SimdSignTables {
  private readonly tablesAt: number;
  private readonly tableBytes: number;
  private readonly memory: WebAssembly.Memory;
  private readonly run: (words: number, W: number, its: number, table: number, threshold: number, n: number) => number;
  private readonly fill: (count: number) => void;

  /**
   * For ⌈n/32⌉ = W words per iteration, `chunk` iterations per chunk, the generator state `state`
   * (rng.ts's seededState). Throws where the kernel is unavailable.
   */
  constructor(
    private readonly W: number,
    chunk: number,
    columns: number,
    state: readonly number[],
  ) {
    const mod = kernel();
    if (mod === null) throw new Error('WebAssembly SIMD is not available');
    this.tablesAt = Math.ceil((WORDS_AT + 4 * W * chunk) / 64) * 64;
    this.tableBytes = 1024 * W;
    this.memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil((this.tablesAt + columns * this.tableBytes) / PAGE)) });
    const inst = new WebAssembly.Instance(mod, { m: { mem: this.memory } });
    this.run = inst.exports.extreme as SimdSignTables['run'];
    this.fill = inst.exports.words as SimdSignTables['fill'];
    new Int32Array(this.memory.buffer, 0, 4).set(state);
  }

  /** Draws the sign words of the next `its` iterations (at most `chunk`) from the generator. */
  draw(its: number): void {
    this.fill(its * this.W);
  }

  /** Column c's table (128·W entries), to be filled before {@link extreme}. */
  table(c: number): Float64Array {
    return new Float64Array(this.memory.buffer, this.tablesAt + c * this.tableBytes, this.tableBytes / 8);
  }

  /** Over the first `its` iterations of the chunk: how many permuted means of column c are at least as extreme. */
  extreme(c: number, its: number, threshold: number, n: number): number {
    return this.run(WORDS_AT, this.W, its, this.tablesAt + c * this.tableBytes, threshold, n);
  }
}
