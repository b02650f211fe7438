/**
 * ColumnInterner (trec-columns.ts) against its plain definition, a Map from the decoded string to
 * the order of first appearance, at every size its arrays pass through: the slot table (1024 →
 * doubled at half load), the per-id hashes (512 → …) and offsets (513 → …), the byte arena
 * (16 KiB → …). Counts of distinct ids are drawn around every 2^k (± 2) up to 2^17, so each
 * growth step of each array is crossed with ids read again after it: the defect that dropped the
 * hash of the 1,025th id (and a few after each later doubling) gave such an id a second number.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ColumnInterner } from '../src/formats/trec-columns.js';

/** Every 2^k ± 2 from 2^4 to 2^17: the sizes at which some array of the interner grows. */
const BOUNDARIES = Array.from({ length: 14 }, (_, i) => 2 ** (i + 4)).flatMap((p) => [p - 2, p - 1, p, p + 1, p + 2]);

/** A deterministic id for index i under a seed: UUID-shaped, or short, long, or non-ASCII. */
function makeId(seed: number, i: number, shape: number): string {
  const h = (Math.imul(i + 1, 0x9e3779b1) ^ seed) >>> 0;
  const hex = h.toString(16).padStart(8, '0');
  switch (shape) {
    case 0: // SkillRet-like UUIDs
      return `${hex}-${(i & 0xffff).toString(16).padStart(4, '0')}-4a1b-8c2d-${(seed >>> 0).toString(16).padStart(12, '0')}`;
    case 1: // short ids (many share a prefix)
      return `d${i}`;
    case 2: // long ids: the arena grows several times
      return `${hex.repeat(1 + (i % 9))}/${i}`;
    default: // non-ASCII (UTF-8 decode path)
      return `ß-${i}-é${String.fromCodePoint(0x4e00 + (h % 500))}`;
  }
}

/** The plain definition: ids in order of first appearance. */
function plainIds(ids: readonly string[]): number[] {
  const m = new Map<string, number>();
  return ids.map((s) => {
    let k = m.get(s);
    if (k === undefined) m.set(s, (k = m.size));
    return k;
  });
}

function internAll(interner: ColumnInterner, ids: readonly string[]): number[] {
  return ids.map((s) => {
    const b = Buffer.from(`  ${s}\t`, 'utf8'); // the column sits inside a larger buffer, as in a chunk
    return interner.id(b, 2, b.length - 1);
  });
}

describe('ColumnInterner = Map in order of first appearance', () => {
  test.prop(
    [fc.constantFrom(...BOUNDARIES), fc.integer({ min: 0, max: 3 }), fc.integer(), fc.integer({ min: 1, max: 3 })],
    { numRuns: 40 },
  )('distinct ids around 2^k ± 2 (up to 2^17), each read again after every growth', (count, shape, seed, passes) => {
    const distinct = Array.from({ length: count }, (_, i) => makeId(seed, i, shape));
    // First pass in order, then the ids again (reversed, then interleaved), so every id is looked up
    // after the arrays it was stored in have grown.
    const seq: string[] = [...distinct];
    for (let p = 0; p < passes; p++) {
      if (p % 2 === 0) for (let i = count - 1; i >= 0; i--) seq.push(distinct[i]!);
      else for (let i = 0; i < count; i += 3) seq.push(distinct[i]!, distinct[count - 1 - i]!);
    }
    const interner = new ColumnInterner();
    const got = internAll(interner, seq);
    expect(got).toEqual(plainIds(seq));
    expect(interner.size).toBe(count);
    expect(interner.strings).toEqual(distinct);
  });

  test.prop([fc.array(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3000 }), fc.integer({ min: 0, max: 20 })], {
    numRuns: 60,
  })('arbitrary Unicode ids with repeats: same numbers and strings as the Map', (pool, repeatEvery) => {
    // Repeats drawn from the pool itself so some ids come back many times.
    const seq = repeatEvery === 0 ? pool : pool.flatMap((s, i) => (i % repeatEvery === 0 ? [s, pool[i >> 1]!] : [s]));
    // Lone surrogates do not survive UTF-8; the reader never sees them (it rejects invalid UTF-8).
    const clean = seq.map((s) => Buffer.from(s, 'utf8').toString('utf8'));
    const interner = new ColumnInterner();
    const got = internAll(interner, clean);
    expect(got).toEqual(plainIds(clean));
    const firstOrder = [...new Map(clean.map((s) => [s, true])).keys()];
    expect(interner.strings).toEqual(firstOrder);
  });
});
