/**
 * Seeded pseudo-random numbers for the statistical tests: one place that turns a seed into a
 * generator, so every test draws from the same, documented source.
 *
 * - Generator: xoroshiro128+ from `pure-rand` (32-bit outputs, the high half of the 64-bit sum).
 * - Seeds are non-negative safe integers (0 … 2^53 − 1); anything else is a RangeError (a caller bug:
 *   user-facing code validates seeds first).
 * - The 128-bit state is the first 16 bytes of SHA-256(`skillret-stats-rng` NUL decimal seed), as four
 *   big-endian signed 32-bit words in pure-rand's state order. (pure-rand's own `xoroshiro128plus(seed)`
 *   keeps only 32 bits of the seed and starts from a state that is almost the seed itself: its first
 *   output is `~seed`; hashing avoids both.)
 * - {@link deriveSeed} gives each (base seed, label) pair its own stream: the first 6 bytes, big-endian,
 *   of SHA-256(`skillret-stats` NUL decimal base NUL label), label in UTF-8 (a 48-bit seed).
 */
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { sha256Hex } from '../util/hash.js';

export type { RandomGenerator };

/** Throws a RangeError unless `seed` is an integer in [0, 2^53 − 1]. */
export function checkSeed(seed: number): void {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`seed must be an integer in [0, ${Number.MAX_SAFE_INTEGER}], got ${seed}`);
  }
}

/** Throws a RangeError unless `n` is a positive safe integer. */
export function checkIterations(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`iterations must be a positive integer, got ${n}`);
  }
}

/** The xoroshiro128+ state for `seed`, in pure-rand's order (see the module comment). */
export function seededState(seed: number): number[] {
  checkSeed(seed);
  const h = sha256Hex(`skillret-stats-rng\u0000${seed}`);
  return [0, 1, 2, 3].map((i) => Number.parseInt(h.slice(8 * i, 8 * i + 8), 16) | 0);
}

/** A fresh xoroshiro128+ generator for `seed` (see the module comment for the state). */
export function seededRng(seed: number): RandomGenerator {
  return xoroshiro128plusFromState(seededState(seed));
}

/** Deterministic 48-bit seed for `label` under `base` (see the module comment). */
export function deriveSeed(base: number, label: string): number {
  checkSeed(base);
  return Number.parseInt(sha256Hex(`skillret-stats\u0000${base}\u0000${label}`).slice(0, 12), 16);
}
