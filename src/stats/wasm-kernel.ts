/**
 * What the statistical tests' WebAssembly kernels share (bootstrap-simd.ts, randomization-simd.ts):
 * which loops a test runs, and the xoroshiro128+ step of stream.ts as WebAssembly code (assembled
 * with src/util/wasm.ts).
 */
import { ADD, I64AND, I64ROTL, I64SHR_U, I64XOR, WRAP, get, i32c, i64c, i64load, i64store, set } from '../util/wasm.js';

/** Which loops a statistical test runs: the SIMD kernel where available ('auto'), or one of them. */
export type Engine = 'auto' | 'simd' | 'js';

/**
 * The locals of {@link xoroshiroNext}: the state words s0, s1 and a scratch word x (i64), the mask
 * 0xffff0000ffffffff (i64, set by {@link xoroshiroLoad}) and the output (i32).
 */
export interface XoroshiroLocals {
  s0: number;
  s1: number;
  x: number;
  mask: number;
  out: number;
}

/**
 * Code: `out` = the next 32-bit output of xoroshiro128+ as pure-rand computes it (stream.ts), and
 * the state advanced. With the 64-bit words s0 = s00:s01 and s1 = s10:s11 (high word first;
 * pure-rand's state order is [s01, s00, s11, s10], so the four words as little-endian memory are
 * s0 then s1), an output is the wrapped sum of the two high words, then x = s0 ^ s1,
 * s0 = rotl(s0, 24) ^ x ^ rotl(rotl(x, 32) << 16, 32) and s1 = rotl(x, 37); the middle term is
 * rotl(x, 16) with bits 32 … 47 cleared, i.e. rotl(x, 16) & mask.
 */
export function xoroshiroNext(l: XoroshiroLocals): number[] {
  return [
    ...get(l.s0), ...i64c(32n), ...I64SHR_U, ...WRAP, ...get(l.s1), ...i64c(32n), ...I64SHR_U, ...WRAP, ...ADD, ...set(l.out),
    ...get(l.s1), ...get(l.s0), ...I64XOR, ...set(l.x),
    ...get(l.s0), ...i64c(24n), ...I64ROTL, ...get(l.x), ...I64XOR,
    ...get(l.x), ...i64c(16n), ...I64ROTL, ...get(l.mask), ...I64AND, ...I64XOR, ...set(l.s0),
    ...get(l.x), ...i64c(37n), ...I64ROTL, ...set(l.s1),
  ];
}

/** Code: the state words from memory at `at` (s0) and at + 8 (s1), and the mask. */
export function xoroshiroLoad(l: XoroshiroLocals, at: number): number[] {
  return [...i32c(0), ...i64load(at), ...set(l.s0), ...i32c(0), ...i64load(at + 8), ...set(l.s1), ...i64c(0xffff0000ffffffffn), ...set(l.mask)];
}

/** Code: the state words back to memory at `at` and at + 8. */
export function xoroshiroStore(l: XoroshiroLocals, at: number): number[] {
  return [...i32c(0), ...get(l.s0), ...i64store(at), ...i32c(0), ...get(l.s1), ...i64store(at + 8)];
}
