/**
 * xoroshiro128+ outputs in blocks: the same 32-bit sequence as pure-rand's
 * `xoroshiro128plusFromState(state).next()` calls (the generator of rng.ts), produced in a tight loop
 * into an Int32Array so that the inner loops of the tests read numbers instead of calling a method
 * per draw. Bit for bit the stream `seededRng(seed)` gives.
 */
import { seededState } from './rng.js';

export class Int32Stream {
  /** The outputs of the last `fill()`. */
  readonly block: Int32Array;
  private readonly s = new Int32Array(4);

  /** A stream for `seed` (rng.ts's seeding), `size` outputs per block. */
  constructor(seed: number, size = 8192) {
    this.s.set(seededState(seed));
    this.block = new Int32Array(size);
  }

  /** Fills `block` with the next `block.length` outputs and returns it. */
  fill(): Int32Array {
    const out = this.block;
    // pure-rand's state order: [s01, s00, s11, s10]
    let s01 = this.s[0]!;
    let s00 = this.s[1]!;
    let s11 = this.s[2]!;
    let s10 = this.s[3]!;
    for (let i = 0; i < out.length; i++) {
      out[i] = (s00 + s10) | 0;
      const a0 = s10 ^ s00;
      const a1 = s11 ^ s01;
      const t00 = s00;
      const t01 = s01;
      s00 = (t00 << 24) ^ (t01 >>> 8) ^ a0 ^ (a0 << 16);
      s01 = (t01 << 24) ^ (t00 >>> 8) ^ a1 ^ ((a1 << 16) | (a0 >>> 16));
      s10 = (a1 << 5) ^ (a0 >>> 27);
      s11 = (a0 << 5) ^ (a1 >>> 27);
    }
    this.s[0] = s01;
    this.s[1] = s00;
    this.s[2] = s11;
    this.s[3] = s10;
    return out;
  }
}
