/**
 * An append-only list of integer lists (token ids of a corpus, one list per text) whose memory does
 * not follow the number of integers: lists fill one in-memory block (4 MiB by default); when a list
 * does not fit, the block is written to a temporary file and starts over. Memory is the block plus
 * 12 bytes per list (where each starts, its length). The file is deleted as soon as it is open (on
 * systems that allow it; else by `dispose`), so a killed process leaves nothing behind.
 *
 * Values are 32-bit signed integers (token ids); `get` returns a fresh copy.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEFAULT_BLOCK_INTS = 1 << 20;

export interface IntListSpillOptions {
  /** Integers held in memory before a block goes to the file (default 1,048,576 = 4 MiB). */
  blockInts?: number;
  /** Folder for the temporary file (default the system's temporary folder). */
  dir?: string;
}

export class IntListSpill {
  private starts = new Float64Array(1024);
  private lens = new Uint32Array(1024);
  private count = 0;
  private block: Int32Array;
  private fill = 0;
  /** Integers written to the file before `block` (the global position of block[0]). */
  private blockStart = 0;
  private fd: number | undefined;
  private tempDir: string | undefined;
  private readonly dir: string;
  private disposed = false;

  constructor(o: IntListSpillOptions = {}) {
    const n = o.blockInts ?? DEFAULT_BLOCK_INTS;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`block size must be a positive integer, got ${n}`);
    this.block = new Int32Array(n);
    this.dir = o.dir ?? tmpdir();
  }

  /** Lists held. */
  get size(): number {
    return this.count;
  }

  /** Whether some lists live in the temporary file (tests). */
  get spilled(): boolean {
    return this.blockStart > 0;
  }

  /** Appends a list; returns its position. */
  push(list: ArrayLike<number>): number {
    if (this.disposed) throw new Error('IntListSpill: used after dispose');
    const n = list.length;
    if (this.fill + n > this.block.length) {
      this.spill();
      if (n > this.block.length) this.block = new Int32Array(n);
    }
    for (let j = 0; j < n; j++) this.block[this.fill + j] = list[j]!;
    if (this.count === this.starts.length) {
      const s = new Float64Array(this.count * 2);
      s.set(this.starts);
      this.starts = s;
      const l = new Uint32Array(this.count * 2);
      l.set(this.lens);
      this.lens = l;
    }
    this.starts[this.count] = this.blockStart + this.fill;
    this.lens[this.count] = n;
    this.fill += n;
    return this.count++;
  }

  /** Length of list `i`. */
  length(i: number): number {
    this.check(i);
    return this.lens[i]!;
  }

  /** A copy of list `i`. */
  get(i: number): Int32Array {
    this.check(i);
    const start = this.starts[i]!;
    const n = this.lens[i]!;
    if (start >= this.blockStart) {
      const at = start - this.blockStart;
      return this.block.slice(at, at + n);
    }
    const out = new Int32Array(n);
    if (n === 0) return out;
    const bytes = new Uint8Array(out.buffer);
    let done = 0;
    while (done < bytes.length) {
      const got = readSync(this.fd!, bytes, done, bytes.length - done, start * 4 + done);
      if (got === 0) throw new Error('IntListSpill: the temporary file is shorter than written');
      done += got;
    }
    return out;
  }

  /** Closes and removes the temporary file; the lists are gone. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.tempDir !== undefined) rmSync(this.tempDir, { recursive: true, force: true });
    this.fd = undefined;
    this.block = new Int32Array(0);
  }

  private check(i: number): void {
    if (this.disposed) throw new Error('IntListSpill: used after dispose');
    if (!Number.isInteger(i) || i < 0 || i >= this.count) throw new RangeError(`list ${i} out of range 0..${this.count - 1}`);
  }

  /** Writes the block's integers to the end of the file. */
  private spill(): void {
    if (this.fill === 0) return;
    if (this.fd === undefined) {
      this.tempDir = mkdtempSync(join(this.dir, 'skillret-ids-'));
      const path = join(this.tempDir, 'ids.bin');
      this.fd = openSync(path, 'w+');
      try {
        rmSync(this.tempDir, { recursive: true, force: true }); // the open file stays readable
        this.tempDir = undefined;
      } catch {
        // removed by dispose()
      }
    }
    const bytes = new Uint8Array(this.block.buffer, 0, this.fill * 4);
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.blockStart * 4 + done);
    this.blockStart += this.fill;
    this.fill = 0;
  }
}
