/**
 * IntListSpill (src/util/int-list-spill.ts) against its plain definition, an in-memory array of
 * arrays (`want[i]` = the i-th list pushed, `get(i)` = a copy of it, `length(i)` = its length).
 *
 * Capacities crossed:
 * - the per-list arrays `starts` / `lens` (1024, doubled when full, both under one condition):
 *   list counts drawn at 1024·2^k ± 2 for k = 0..4 (1,022 … 16,386), every list read back after
 *   each doubling (and some while pushing, between doublings);
 * - the block (`blockInts`, injected small: 1..9 and 16, 64): lists that exactly fill what is
 *   left of it, that overflow it by one, that are as long as the block or longer (the block is
 *   replaced by a bigger one), empty lists at every position (at the very end of a full block, at
 *   the start of a fresh one, between spilled lists);
 * - the file/block frontier: lists read from the file and from the block, the list that starts at
 *   exactly the block's first integer included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import { IntListSpill } from '../src/util/int-list-spill.js';

const dir = mkdtempSync(join(tmpdir(), 'skr-spill-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 1024·2^k ± 2: the list counts at which `starts` / `lens` are full and doubled. */
const COUNT_BOUNDARIES = [0, 1, 2, 3, 4].map((k) => 1024 * 2 ** k).flatMap((c) => [c - 2, c - 1, c, c + 1, c + 2]);
const BLOCKS = [1, 2, 3, 4, 5, 7, 8, 9, 16, 64];

/** Deterministic int32 values (extremes included). */
function value(seed: number, i: number, j: number): number {
  const h = Math.imul((i + 1) * 31 + j, 0x9e3779b1) ^ seed;
  switch (h & 7) {
    case 0:
      return 2147483647;
    case 1:
      return -2147483648;
    case 2:
      return 0;
    default:
      return h | 0;
  }
}

/**
 * Length of list i for block size B under a pattern: lengths relative to the block (0, 1, B - 1,
 * B, B + 1, 2B + 1), runs that fill the block exactly ([a, B - a]) or overflow it by one
 * ([a, B - a + 1]), or lengths from a hash.
 */
function length(pattern: number, seed: number, B: number, i: number): number {
  const h = (Math.imul(i + 7, 0x85ebca6b) ^ seed) >>> 0;
  switch (pattern) {
    case 0: // relative to the block
      return [0, 1, Math.max(0, B - 1), B, B + 1, 2 * B + 1, 0, 1][h & 7]!;
    case 1: {
      // exact fill: pairs a, B - a (a from 0..B)
      const a = (seed >>> 0) % (B + 1);
      return i % 2 === 0 ? a : B - a;
    }
    case 2: {
      // overflow by one: pairs a, B - a + 1
      const a = (seed >>> 0) % (B + 1);
      return i % 2 === 0 ? a : B - a + 1;
    }
    case 3: // mostly short, now and then longer than the block
      return h % 11 === 0 ? B + (h % 5) : h % 4 === 0 ? 0 : h % (B + 1);
    default: // all empty but a few
      return h % 17 === 0 ? 1 + (h % (2 * B)) : 0;
  }
}

function makeLists(count: number, pattern: number, seed: number, B: number): number[][] {
  return Array.from({ length: count }, (_, i) => Array.from({ length: length(pattern, seed, B, i) }, (_, j) => value(seed, i, j)));
}

/** Pushes `want`, checking some earlier lists while pushing, then every list, in a scrambled order. */
function check(want: readonly number[][], B: number, seed: number): void {
  const s = new IntListSpill({ blockInts: B, dir });
  try {
    // expect() only on a mismatch (it is slow, and this runs ~10^5 times per case)
    const peek = (i: number): void => {
      const w = want[i]!;
      const got = s.get(i);
      let same = s.length(i) === w.length && got.length === w.length;
      for (let j = 0; same && j < w.length; j++) same = got[j] === w[j];
      if (!same) expect({ list: i, length: s.length(i), got: Array.from(got) }).toEqual({ list: i, length: w.length, got: w });
    };
    want.forEach((l, i) => {
      const at = s.push(l);
      if (at !== i) expect(at).toBe(i);
      // the list just pushed, and now and then an older one (across a spill or a doubling)
      peek(i);
      if ((i & 63) === 63) peek((Math.imul(i, 2654435761) >>> 0) % (i + 1));
    });
    expect(s.size).toBe(want.length);
    // every list: ascending, then descending (the file is read at arbitrary positions)
    for (let i = 0; i < want.length; i++) peek(i);
    const step = 1 + ((seed >>> 0) % 7);
    for (let i = want.length - 1; i >= 0; i -= step) peek(i);
    // `get` gives a copy
    if (want.length > 0 && want[0]!.length > 0) {
      s.get(0).fill(5);
      peek(0);
    }
    expect(() => s.get(want.length)).toThrow(RangeError);
  } finally {
    s.dispose();
  }
}

describe('IntListSpill = an array of arrays', () => {
  test.prop([fc.constantFrom(...COUNT_BOUNDARIES), fc.constantFrom(...BLOCKS), fc.integer({ min: 0, max: 4 }), fc.integer()], { numRuns: 30 })(
    'list counts at 1024·2^k ± 2, small blocks: every list back as pushed',
    (count, B, pattern, seed) => {
      check(makeLists(count, pattern, seed, B), B, seed);
    },
  );

  test.prop(
    [
      fc.array(fc.array(fc.integer({ min: -2147483648, max: 2147483647 }), { maxLength: 20 }), { maxLength: 60 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer(),
    ],
    { numRuns: 300 },
  )('arbitrary lists (empty ones and ones longer than the block included)', (want, B, seed) => {
    check(want, B, seed);
  });

  test.prop([fc.constantFrom(...BLOCKS), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3 })], { numRuns: 120 })(
    'a block filled exactly, then one integer more: the lists on both sides of the frontier',
    (B, before, emptiesAtEnd) => {
      // `before` lists of one integer, then one list that fills the block up to the next multiple
      // of B exactly, empty lists (they sit at the end of the full block), a list of one integer
      // (it does not fit: the block goes to the file), then one exactly B long (fits a fresh block).
      const want: number[][] = Array.from({ length: before }, (_, i) => [i - 3]);
      const fill = (B - (before % B)) % B;
      if (fill > 0) want.push(Array.from({ length: fill }, (_, j) => 1000 + j));
      for (let e = 0; e < emptiesAtEnd; e++) want.push([]);
      want.push([-7]);
      want.push(Array.from({ length: B }, (_, j) => -1000 - j));
      want.push([]);
      want.push(Array.from({ length: B + 1 }, (_, j) => 2000 + j));
      want.push([9]);
      check(want, B, before);
    },
  );
});
