/**
 * The dense-row kernel of the BM25 searcher (search.ts) in WebAssembly SIMD: adds a run of dense
 * score rows into the accumulator, per document in row order, four documents per instruction.
 *
 * Bit-identical to the JavaScript loop: `f32x4.add` is the IEEE 754 binary32 addition (round to
 * nearest even, no flush to zero in standard WebAssembly SIMD), and for two float32 operands that
 * is exactly `Math.fround(a + b)` (a float64 sum of two float32 values rounded once to float32:
 * float64 has more than 2 × 24 + 2 bits, so the double rounding is innocuous). Each document's sum
 * is still formed one row at a time in row order, as numpy's float32 `+=` forms it.
 *
 * Layout of the module's memory (owned by one `SimdRows`): the accumulator at byte 0, then the
 * list of row addresses for one call, then the rows, each padded to a multiple of 16 documents
 * (the padding stays 0, so the accumulator's padding stays 0 too).
 *
 * The module is assembled with src/util/wasm.ts (byte by byte, no toolchain): one function
 *   add(acc: i32, list: i32, count: i32, bytes: i32)
 * which, for each 64-byte block i < bytes of the accumulator, loads four vectors, adds
 * rows list[0..count-1] at the same block in order, and stores them back.
 */
import { ADD, BLOCK, br, brIf, compileOrNull, END, F32X4_ADD, GE_U, get, I32, i32c, i32load, LOOP, moduleBytes, set, SHL, V128, vload, vstore, type WasmFunction } from '../../util/wasm.js';

/** Documents per block of the kernel (4 vectors of 4 float32). */
export const SIMD_BLOCK_DOCS = 16;

const [ACC, LIST, COUNT, BYTES, I, J, P] = [0, 1, 2, 3, 4, 5, 6];
const V = [7, 8, 9, 10];

/** The kernel's one function (see the module comment). */
function addFunction(): WasmFunction {
  // locals: params 0 acc, 1 list, 2 count, 3 bytes; 4 i, 5 j, 6 p (i32); 7..10 v0..v3 (v128)
  const code: number[] = [
    ...BLOCK, // $done
    ...LOOP, //  $outer
    ...get(I), ...get(BYTES), ...GE_U, ...brIf(1), // if i >= bytes: br $done
    ...get(ACC), ...get(I), ...ADD, ...set(P), // p = acc + i
    ...V.flatMap((v, k) => [...get(P), ...vload(16 * k), ...set(v)]),
    ...i32c(0), ...set(J),
    ...BLOCK, //   $rows
    ...LOOP, //    $row
    ...get(J), ...get(COUNT), ...GE_U, ...brIf(1), // if j >= count: br $rows
    // p = load32(list + 4 j) + i
    ...get(LIST), ...get(J), ...i32c(2), ...SHL, ...ADD, ...i32load(0), ...get(I), ...ADD, ...set(P),
    ...V.flatMap((v, k) => [...get(v), ...get(P), ...vload(16 * k), ...F32X4_ADD, ...set(v)]),
    ...get(J), ...i32c(1), ...ADD, ...set(J),
    ...br(0), //     $row
    ...END, //    loop
    ...END, //   block
    ...get(ACC), ...get(I), ...ADD, ...set(P),
    ...V.flatMap((v, k) => [...get(P), ...get(v), ...vstore(16 * k)]),
    ...get(I), ...i32c(64), ...ADD, ...set(I),
    ...br(0), //  $outer
    ...END, // loop
    ...END, // block
  ];
  return { name: 'add', params: [I32, I32, I32, I32], results: [], locals: [I32, I32, I32, V128, V128, V128, V128], code };
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD. */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) compiled = compileOrNull(moduleBytes([addFunction()]));
  return compiled;
}

/** Whether the SIMD kernel can run here. */
export function simdAvailable(): boolean {
  return kernel() !== null;
}

const PAGE = 65536;

/**
 * An accumulator of `numDocs` float32 scores plus dense rows, in one WebAssembly memory.
 * `acc` (length numDocs) is valid until the next `allocRow`, which may grow the memory.
 */
export class SimdRows {
  private readonly memory: WebAssembly.Memory;
  private readonly add: (acc: number, list: number, count: number, bytes: number) => void;
  /** Padded row length in bytes. */
  private readonly rowBytes: number;
  private readonly listAt: number;
  private readonly listCap: number;
  private next: number;
  private pending = 0;
  private list!: Int32Array;
  acc!: Float32Array;

  constructor(
    readonly numDocs: number,
    maxGroup = 256,
  ) {
    const mod = kernel();
    if (mod === null) throw new Error('WebAssembly SIMD is not available');
    this.rowBytes = 4 * Math.ceil(Math.max(numDocs, 1) / SIMD_BLOCK_DOCS) * SIMD_BLOCK_DOCS;
    this.listAt = this.rowBytes;
    this.listCap = maxGroup;
    this.next = align64(this.listAt + 4 * maxGroup);
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((this.next + 16 * this.rowBytes) / PAGE) });
    const inst = new WebAssembly.Instance(mod, { m: { mem: this.memory } });
    this.add = inst.exports.add as (acc: number, list: number, count: number, bytes: number) => void;
    this.views();
  }

  private views(): void {
    this.acc = new Float32Array(this.memory.buffer, 0, this.numDocs);
    this.list = new Int32Array(this.memory.buffer, this.listAt, this.listCap);
  }

  /** A new zeroed row; returns its address and a view of its numDocs entries (valid until the next allocRow). */
  allocRow(): { at: number; row: Float32Array } {
    const at = this.next;
    const end = at + this.rowBytes;
    if (end > this.memory.buffer.byteLength) {
      const need = Math.ceil((end - this.memory.buffer.byteLength) / PAGE);
      this.memory.grow(Math.max(need, this.memory.buffer.byteLength / PAGE / 2) | 0);
      this.views();
    }
    this.next = align64(end);
    return { at, row: new Float32Array(this.memory.buffer, at, this.numDocs) };
  }

  /** Queues the row at `at` for the next `flush`; flushes first when the list is full. */
  push(at: number): void {
    if (this.pending === this.listCap) this.flush();
    this.list[this.pending++] = at;
  }

  /** Whether rows are queued. */
  get queued(): number {
    return this.pending;
  }

  /** acc[d] += row[d] for each queued row in order (float32 rounding after each addition). */
  flush(): void {
    if (this.pending === 0) return;
    this.add(0, this.listAt, this.pending, this.rowBytes);
    this.pending = 0;
  }
}

function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}
