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
 * The module is assembled here byte by byte (no toolchain): one function
 *   add(acc: i32, list: i32, count: i32, bytes: i32)
 * which, for each 64-byte block i < bytes of the accumulator, loads four vectors, adds
 * rows list[0..count-1] at the same block in order, and stores them back.
 */

/** Documents per block of the kernel (4 vectors of 4 float32). */
export const SIMD_BLOCK_DOCS = 16;

const I32 = 0x7f;
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

/** Signed LEB128 (i32.const immediates). */
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

function moduleBytes(): Uint8Array<ArrayBuffer> {
  // locals: params 0 acc, 1 list, 2 count, 3 bytes; 4 i, 5 j, 6 p (i32); 7..10 v0..v3 (v128)
  const [ACC, LIST, COUNT, BYTES, I, J, P] = [0, 1, 2, 3, 4, 5, 6];
  const V = [7, 8, 9, 10];
  const get = (l: number) => [0x20, l];
  const set = (l: number) => [0x21, l];
  const i32c = (n: number) => [0x41, ...sleb(n)];
  const add = [0x6a];
  const vload = (offset: number) => [0xfd, 0x00, 0x04, ...uleb(offset)];
  const vstore = (offset: number) => [0xfd, 0x0b, 0x04, ...uleb(offset)];
  const f32x4add = [0xfd, 0xe4, 0x01];
  const code: number[] = [
    0x02, 0x40, // block $done
    0x03, 0x40, //  loop $outer
    ...get(I), ...get(BYTES), 0x4f, 0x0d, 0x01, // if i >= bytes: br $done
    ...get(ACC), ...get(I), ...add, ...set(P), // p = acc + i
    ...V.flatMap((v, k) => [...get(P), ...vload(16 * k), ...set(v)]),
    ...i32c(0), ...set(J),
    0x02, 0x40, //   block $rows
    0x03, 0x40, //    loop $row
    ...get(J), ...get(COUNT), 0x4f, 0x0d, 0x01, // if j >= count: br $rows
    // p = load32(list + 4 j) + i
    ...get(LIST), ...get(J), ...i32c(2), 0x74, ...add, 0x28, 0x02, 0x00, ...get(I), ...add, ...set(P),
    ...V.flatMap((v, k) => [...get(v), ...get(P), ...vload(16 * k), ...f32x4add, ...set(v)]),
    ...get(J), ...i32c(1), ...add, ...set(J),
    0x0c, 0x00, //     br $row
    0x0b, //    end loop
    0x0b, //   end block
    ...get(ACC), ...get(I), ...add, ...set(P),
    ...V.flatMap((v, k) => [...get(P), ...get(v), ...vstore(16 * k)]),
    ...get(I), ...i32c(64), ...add, ...set(I),
    0x0c, 0x00, //  br $outer
    0x0b, // end loop
    0x0b, // end block
    0x0b, // end function
  ];
  const locals = [0x02, 0x03, I32, 0x04, V128];
  const body = [...locals, ...code];
  const fn = [...uleb(body.length), ...body];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x04, I32, I32, I32, I32, 0x00]),
    ...section(2, [0x01, 0x01, 0x6d, 0x03, ...[...'mem'].map((c) => c.charCodeAt(0)), 0x02, 0x00, 0x01]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, 0x03, ...[...'add'].map((c) => c.charCodeAt(0)), 0x00, 0x00]),
    ...section(10, [0x01, ...fn]),
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
