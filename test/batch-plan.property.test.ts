/**
 * The batch planner of every local model (src/util/batch-plan.ts over src/util/length-buckets.ts)
 * and the padded batch layout (src/util/pad-batch.ts) against their plain definitions:
 *
 * - bucketWidth: the smallest multiple of a step ≥ the length, the step max(8, p / 8) for p the
 *   largest power of two ≤ the length (found by an integer loop, not Math.log2), capped by the
 *   limit but never below the length. Lengths are drawn at every 2^k ± 2 (k up to 52, where a
 *   floating log2 could round up to the next power) and at every multiple of 8 ± 1.
 * - planBatches: positions sorted by (width descending, position ascending), cut greedily into
 *   batches that hold one width and at most per(width) = max(1, min(batchSize,
 *   ⌊maxBatchTokens / max(1, width)⌋)) positions, each batch filled up to per(width) rows.
 *   Input counts are drawn around the batch size (and twice and three times it) ± 2, token budgets
 *   around width × batchSize ± 2 and below one width, widths around the model limit ± 2.
 * - The planner's promise the caches rely on: an input's padded width and row count depend on its
 *   own length alone, so the plan of any subset (what a cache left to compute) gives every input
 *   the tensor shape it gets in the plan of all inputs, whatever the company.
 * - padBatch: every row at its own offset (left or right), pads and mask elsewhere, filler rows
 *   copies of the first, against a cell-by-cell definition.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { planBatches, type BatchPlan, type Bucketing } from '../src/util/batch-plan.js';
import { bucketWidth } from '../src/util/length-buckets.js';
import { padBatch } from '../src/util/pad-batch.js';

/** The plain definition of a length bucket (integer arithmetic only). */
function plainBucketWidth(length: number, limit = Number.POSITIVE_INFINITY): number {
  if (length === 0) return 0;
  let p = 1;
  while (p * 2 <= length) p *= 2;
  const step = Math.max(8, p / 8);
  const width = Math.ceil(length / step) * step;
  return Math.max(length, Math.min(width, limit));
}

/** The plain definition of the plan: sort by (width desc, position), cut greedily. */
function plainPlan(lengths: readonly number[], batchSize: number, maxBatchTokens: number, maxWidth: number, bucketing: Bucketing): BatchPlan {
  const widthOf = (len: number) => (bucketing === 'exact-length' ? len : plainBucketWidth(len, maxWidth));
  const per = (w: number) => Math.max(1, Math.min(batchSize, Math.floor(maxBatchTokens / Math.max(1, w))));
  const order = lengths.map((_, i) => i).sort((a, b) => widthOf(lengths[b]!) - widthOf(lengths[a]!) || a - b);
  const plan: BatchPlan = { batches: [], widths: [], rows: [], paddedTokens: 0 };
  for (const i of order) {
    const w = widthOf(lengths[i]!);
    const last = plan.batches.length - 1;
    if (last >= 0 && plan.widths[last] === w && plan.batches[last]!.length < per(w)) plan.batches[last]!.push(i);
    else {
      plan.batches.push([i]);
      plan.widths.push(w);
      plan.rows.push(per(w));
      plan.paddedTokens += per(w) * w;
    }
  }
  return plan;
}

/** Every 2^k ± 2, k = 0 … 52 (non-negative, safe integers). */
const POW2_EDGES = Array.from({ length: 53 }, (_, k) => [-2, -1, 0, 1, 2].map((d) => 2 ** k + d))
  .flat()
  .filter((n) => n >= 0 && Number.isSafeInteger(n));
/** Every multiple of 8 ± 1 up to 600 (the 8-token steps, and the 16-, 32-, 64-token steps above). */
const STEP_EDGES = Array.from({ length: 76 }, (_, i) => [8 * i - 1, 8 * i, 8 * i + 1]).flat().filter((n) => n >= 0);

/** The shape (width, rows) the plan gives each position. */
function shapes(plan: BatchPlan, n: number): [number, number][] {
  const out = new Array<[number, number]>(n);
  plan.batches.forEach((items, b) => {
    for (const i of items) out[i] = [plan.widths[b]!, plan.rows[b]!];
  });
  return out;
}

describe('bucketWidth = its integer definition', () => {
  test.prop([fc.constantFrom(...POW2_EDGES, ...STEP_EDGES), fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.constantFrom(...POW2_EDGES.filter((n) => n > 0 && n < 2 ** 20)))], { numRuns: 600 })(
    'at every 2^k ± 2 and 8k ± 1, with and without a limit',
    (length, limit) => {
      expect(bucketWidth(length, limit)).toBe(plainBucketWidth(length, limit));
    },
  );

  test.prop([fc.integer({ min: 0, max: 40_000 })], { numRuns: 400 })('at arbitrary lengths', (length) => {
    expect(bucketWidth(length)).toBe(plainBucketWidth(length));
  });
});

/** A batch size, a count of inputs around 1, 2 or 3 batches (± 2), a token budget, a limit, lengths. */
const planCase = fc
  .record({
    batchSize: fc.constantFrom(1, 2, 3, 4, 7, 8, 16, 32),
    batchesOf: fc.constantFrom(1, 2, 3),
    delta: fc.integer({ min: -2, max: 2 }),
    maxWidth: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.constantFrom(7, 8, 9, 62, 63, 64, 65, 66, 126, 128, 130, 510, 512, 514)),
    bucketing: fc.constantFrom<Bucketing>('length-buckets', 'length-buckets', 'exact-length'),
    budgetKind: fc.constantFrom('unlimited', 'near', 'tight'),
    budgetDelta: fc.integer({ min: -2, max: 2 }),
    /** Lengths from a few values (many inputs share a bucket) or anywhere up to 600. */
    lengthPool: fc.oneof(fc.array(fc.constantFrom(...STEP_EDGES.filter((n) => n <= 600), 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513), { minLength: 1, maxLength: 4 }), fc.constant(null)),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  })
  .map((c) => {
    const n = Math.max(0, c.batchSize * c.batchesOf + c.delta);
    let s = c.seed;
    const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
    let lengths = Array.from({ length: n }, () => (c.lengthPool ? c.lengthPool[Math.floor(rnd() * c.lengthPool.length)]! : Math.floor(rnd() * 601)));
    // No input is longer than the model limit (the tokenizer cuts it there).
    if (Number.isFinite(c.maxWidth)) lengths = lengths.map((l) => Math.min(l, c.maxWidth));
    const widest = lengths.reduce((m, l) => Math.max(m, c.bucketing === 'exact-length' ? l : plainBucketWidth(l, c.maxWidth)), 1);
    const maxBatchTokens =
      c.budgetKind === 'unlimited' ? 1e9 : c.budgetKind === 'near' ? Math.max(1, widest * c.batchSize + c.budgetDelta * Math.max(1, widest >> 1)) : Math.max(1, widest + c.budgetDelta);
    return { lengths, batchSize: c.batchSize, maxBatchTokens, maxWidth: c.maxWidth, bucketing: c.bucketing, seed: c.seed };
  });

describe('planBatches = sort by (width desc, position), cut greedily at the batch and token limits', () => {
  test.prop([planCase], { numRuns: 400 })('counts around k × batch size ± 2, budgets around width × batch size ± 2', (c) => {
    const got = planBatches(c.lengths, c.batchSize, c.maxBatchTokens, c.maxWidth, c.bucketing);
    expect(got).toEqual(plainPlan(c.lengths, c.batchSize, c.maxBatchTokens, c.maxWidth, c.bucketing));
  });

  test.prop([planCase, fc.integer({ min: 0, max: 2 ** 31 - 1 })], { numRuns: 300 })(
    "an input's tensor shape does not depend on its company: any subset (a cache's misses) plans it at the same width and row count",
    (c, subsetSeed) => {
      const full = shapes(planBatches(c.lengths, c.batchSize, c.maxBatchTokens, c.maxWidth, c.bucketing), c.lengths.length);
      let s = subsetSeed;
      const keep = c.lengths.map(() => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) & 1) === 1);
      const subset = c.lengths.map((_, i) => i).filter((i) => keep[i]);
      const part = shapes(planBatches(subset.map((i) => c.lengths[i]!), c.batchSize, c.maxBatchTokens, c.maxWidth, c.bucketing), subset.length);
      subset.forEach((i, j) => expect(part[j], `input ${i} (length ${c.lengths[i]})`).toEqual(full[i]));
    },
  );
});

/** The plain layout: cell (r, t) of the batch, by definition. */
function plainCell(rows: readonly { ids: number[]; typeIds?: number[] }[], padId: number, side: 'left' | 'right', width: number, rowCount: number, r: number, t: number) {
  const row = rows[r < rows.length ? r : 0]!;
  const start = side === 'left' ? width - row.ids.length : 0;
  const j = t - start;
  const real = j >= 0 && j < row.ids.length;
  return { id: real ? row.ids[j]! : padId, mask: real ? 1 : 0, type: real ? (row.typeIds?.[j] ?? 0) : 0, rowCount };
}

describe('padBatch = its cell-by-cell definition', () => {
  test.prop(
    [
      fc.array(fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 20 }), { minLength: 1, maxLength: 10 }),
      fc.constantFrom<'left' | 'right'>('left', 'right'),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 0, max: 3 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 9 }),
    ],
    { numRuns: 300 },
  )('rows padded to a width ≥ the longest, filled to a row count ≥ the real rows', (idLists, side, extraWidth, extraRows, withTypes, padId) => {
    const rows = idLists.map((ids) => (withTypes ? { ids, typeIds: ids.map((x) => x & 1) } : { ids }));
    const width = rows.reduce((m, r) => Math.max(m, r.ids.length), 0) + extraWidth;
    const rowCount = rows.length + extraRows;
    const p = padBatch(rows, padId, side, width, rowCount);
    expect([p.rows, p.width]).toEqual([rowCount, width]);
    expect(p.tokenTypeIds !== undefined).toBe(withTypes);
    for (let r = 0; r < rowCount; r++) {
      for (let t = 0; t < width; t++) {
        const want = plainCell(rows, padId, side, width, rowCount, r, t);
        const at = r * width + t;
        expect([Number(p.inputIds[at]), Number(p.attentionMask[at]), p.tokenTypeIds ? Number(p.tokenTypeIds[at]) : 0]).toEqual([want.id, want.mask, want.type]);
      }
    }
  });
});
