/**
 * The one batch planner of the local models (src/util/batch-plan.ts) and the padded layout of a
 * batch (src/util/pad-batch.ts), pure: what the dense embedder and both rerankers run.
 */
import { describe, expect, it } from 'vitest';
import { planBatches, type BatchPlan } from '../src/util/batch-plan.js';
import { bucketWidth } from '../src/util/length-buckets.js';
import { padBatch } from '../src/util/pad-batch.js';

/** The plan as one record per batch. */
const asBatches = (p: BatchPlan) => p.batches.map((items, b) => ({ items, width: p.widths[b]!, rows: p.rows[b]! }));

describe('planBatches', () => {
  it('one bucket per batch (widest first, positions in order), one shape per bucket, capped by size and padded tokens', () => {
    // Buckets: 3, 7, 1 → 8; 10 → 16.
    const p = planBatches([3, 10, 3, 7, 1, 10], 2, 100);
    expect(p.batches).toEqual([[1, 5], [0, 2], [3, 4]]);
    expect(p.widths).toEqual([16, 8, 8]);
    expect(p.rows).toEqual([2, 2, 2]);
    expect(p.paddedTokens).toBe(2 * 16 + 2 * 8 + 2 * 8);
    const q = planBatches([10, 10, 10, 2], 8, 40);
    expect(q.batches).toEqual([[0, 1], [2], [3]]);
    expect(q.rows).toEqual([2, 2, 5]);
    expect(planBatches([500], 4, 100).batches).toEqual([[0]]);
    expect(planBatches([30], 4, 1e9, 20).widths).toEqual([30]);
  });

  // Buckets (bucketWidth): 5, 7 → 8; 9 → 16; 2 → 8; 20 → 24.
  const lengths = [5, 9, 9, 2, 7];
  it('groups items by length bucket, widest first, in index order; cuts at the batch size; one shape per bucket', () => {
    expect(asBatches(planBatches(lengths, 2, 1e9))).toEqual([
      { items: [1, 2], width: 16, rows: 2 },
      { items: [0, 3], width: 8, rows: 2 },
      { items: [4], width: 8, rows: 2 },
    ]);
    expect(asBatches(planBatches(lengths, 8, 1e9))).toEqual([
      { items: [1, 2], width: 16, rows: 8 },
      { items: [0, 3, 4], width: 8, rows: 8 },
    ]);
    expect(planBatches([], 2, 10)).toEqual({ batches: [], widths: [], rows: [], paddedTokens: 0 });
  });

  it('a batch never depends on the other items: the same item gets the same width and row count in any company', () => {
    const alone = asBatches(planBatches([9], 4, 1e9));
    const mixed = asBatches(planBatches([3, 9, 40, 9, 9, 9, 9], 4, 1e9));
    expect(alone[0]).toMatchObject({ width: 16, rows: 4 });
    expect(mixed.filter((b) => b.items.includes(1))[0]).toMatchObject({ width: 16, rows: 4 });
  });

  it('respects the padded-token budget (a wider item still goes alone) and the model limit', () => {
    expect(asBatches(planBatches(lengths, 8, 17)).map((b) => [b.items, b.rows])).toEqual([
      [[1], 1],
      [[2], 1],
      [[0, 3], 2],
      [[4], 2],
    ]);
    expect(planBatches([100, 1], 8, 10).batches).toEqual([[0], [1]]);
    expect(asBatches(planBatches([60, 61, 50], 8, 1e9, 61)).map((b) => [b.items, b.width])).toEqual([
      [[0, 1], 61],
      [[2], 56],
    ]);
  });

  it('exact-length mode puts only equal lengths together, unpadded (and ignores the bucket limit)', () => {
    const p = planBatches(lengths, 8, 1e9, Number.POSITIVE_INFINITY, 'exact-length');
    expect(asBatches(p).map((b) => [b.items, b.width])).toEqual([
      [[1, 2], 9],
      [[4], 7],
      [[0], 5],
      [[3], 2],
    ]);
    expect(p.paddedTokens).toBe(8 * (9 + 7 + 5 + 2));
    expect(planBatches([5, 5, 6], 8, 1e9, 5, 'exact-length').widths).toEqual([6, 5]);
  });

  it('every position is planned exactly once, at a width no narrower than its length, and the padded tokens add up', () => {
    const lens = Array.from({ length: 200 }, (_, i) => (i * 37) % 151);
    for (const [batchSize, maxTokens] of [[1, 1e9], [4, 64], [16, 1000], [32, 16384]] as const) {
      const p = planBatches(lens, batchSize, maxTokens, 128);
      expect(p.batches.flat().sort((a, b) => a - b)).toEqual(lens.map((_, i) => i));
      p.batches.forEach((items, b) => {
        expect(items.length).toBeLessThanOrEqual(p.rows[b]!);
        expect(p.rows[b]!).toBeLessThanOrEqual(batchSize);
        for (const i of items) expect(p.widths[b]).toBe(bucketWidth(lens[i]!, 128));
      });
      expect(p.paddedTokens).toBe(p.rows.reduce((n, r, b) => n + r * p.widths[b]!, 0));
    }
  });

  it('refuses a batch size that is not a positive integer and a token budget below one', () => {
    expect(() => planBatches([1], 0, 10)).toThrow(/batch size must be a positive integer, got 0/);
    expect(() => planBatches([1], 1.5, 10)).toThrow(/batch size/);
    expect(() => planBatches([1], 2, 0)).toThrow(/max batch tokens must be >= 1, got 0/);
    expect(() => planBatches([1], 2, Number.NaN)).toThrow(/max batch tokens/);
  });
});

describe('padBatch', () => {
  it('pads to a given width and fills up to a given row count with copies of the first row', () => {
    const p = padBatch([{ ids: [5, 6] }], 0, 'right', 4, 2);
    expect([p.rows, p.width]).toEqual([2, 4]);
    expect([...p.inputIds]).toEqual([5n, 6n, 0n, 0n, 5n, 6n, 0n, 0n]);
    expect(() => padBatch([{ ids: [1, 2, 3] }], 0, 'right', 2)).toThrow(/longer than the width/);
  });

  it('pads left (decoders) or right (encoders) with the pad id and a 0/1 mask', () => {
    const rows = [{ ids: [5, 6, 7], typeIds: [0, 1, 1] }, { ids: [8], typeIds: [0] }];
    const left = padBatch(rows, 0, 'left');
    expect([left.rows, left.width]).toEqual([2, 3]);
    expect([...left.inputIds]).toEqual([5n, 6n, 7n, 0n, 0n, 8n]);
    expect([...left.attentionMask]).toEqual([1n, 1n, 1n, 0n, 0n, 1n]);
    const right = padBatch(rows, 9, 'right');
    expect([...right.inputIds]).toEqual([5n, 6n, 7n, 8n, 9n, 9n]);
    expect([...right.attentionMask]).toEqual([1n, 1n, 1n, 1n, 0n, 0n]);
    expect([...right.tokenTypeIds!]).toEqual([0n, 1n, 1n, 0n, 0n, 0n]);
    expect(padBatch([{ ids: [1] }], 0, 'right').tokenTypeIds).toBeUndefined();
  });
});
