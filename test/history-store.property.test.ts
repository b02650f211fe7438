/**
 * The results history keeps each run's per-query values as one float64 blob (history/store.ts): for
 * random runs (query ids of any Unicode, 0 … 2^k ± 2 queries, 1 … 16 metric keys, values of every
 * sign with -0, subnormals and huge doubles, gold lists and grades present or not), what the store
 * gives back after a save and a reopen is bit for bit the records given, in their order, and every
 * entry's facts come back as written.
 */
import { fc, test } from '@fast-check/vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { HistoryStore, type NewEntry } from '../src/history/store.js';
import type { PerQueryRecord } from '../src/formats/per-query-jsonl.js';

const dir = mkdtempSync(join(tmpdir(), 'history-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const counts = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(...[4, 6, 8, 10].flatMap((k) => [2 ** k - 2, 2 ** k, 2 ** k + 2])));
const value = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 0, 5e-324, -5e-324, 1.7976931348623157e308, 1 / 3));

const run = fc
  .record({ n: counts, keys: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 16 }), seed: fc.integer() })
  .chain(({ n, keys }) =>
    fc.record({
      keys: fc.constant(keys),
      qids: fc.uniqueArray(fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), { minLength: n, maxLength: n }),
      values: fc.array(fc.array(value, { minLength: keys.length, maxLength: keys.length }), { minLength: n, maxLength: n }),
      gold: fc.array(fc.option(fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }), { nil: undefined }), { minLength: n, maxLength: n }),
      graded: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    }),
  );

function recordsOf(r: { keys: string[]; qids: string[]; values: number[][]; gold: (string[] | undefined)[]; graded: boolean[] }): Map<string, PerQueryRecord> {
  const m = new Map<string, PerQueryRecord>();
  r.qids.forEach((q, i) => {
    const rec: PerQueryRecord = { metrics: Object.fromEntries(r.keys.map((k, j) => [k, r.values[i]![j]!])) };
    const g = r.gold[i];
    if (g !== undefined) rec.gold = g;
    if (r.graded[i] && g?.length) rec.relevance = Object.fromEntries(g.map((x, j) => [x, j + 2]));
    m.set(q, rec);
  });
  return m;
}

const sameBits = (a: number, b: number) => Object.is(a, b);

describe('results history store', () => {
  let round = 0;
  test.prop([fc.array(run, { minLength: 1, maxLength: 3 })], { numRuns: 40 })('per-query values come back bit for bit after save and reopen', async (runs) => {
    const file = join(dir, `s${round++}.sqlite`);
    const entries: NewEntry[] = runs.map((r, i) => ({
      finishedAt: `2026-12-0${i + 1}T00:00:00.000Z`,
      experiment: `e${i}`,
      retriever: 'r',
      reranker: 'none',
      resultsDir: `/x/${i}`,
      dataset: 'd',
      config: 'c',
      tool: '0',
      models: { first_stage: { type: 'bm25' } },
      tags: [`t${i}`],
      metricsJson: { metrics: { k: i } },
      categories: { A: 0.5 },
      records: recordsOf(r),
    }));
    const ids = await HistoryStore.update(file, (s) => s.add(entries));
    const s = await HistoryStore.open(file);
    try {
      const listed = s.list();
      expect(listed.map((e) => e.id)).toEqual(ids);
      ids.forEach((id, i) => {
        const { records: got, line } = s.records(id);
        const want = entries[i]!.records;
        expect([...got.keys()]).toEqual([...want.keys()]);
        for (const [q, w] of want) {
          const g = got.get(q)!;
          expect(line.get(q)).toBe([...want.keys()].indexOf(q) + 1);
          for (const k of Object.keys(w.metrics)) expect(sameBits(g.metrics[k]!, w.metrics[k]!), `${q} ${k}`).toBe(true);
          expect(g.gold).toEqual(w.gold);
          expect(g.relevance).toEqual(w.relevance);
        }
        const { records: _r, ...facts } = entries[i]!;
        expect(listed[i]).toEqual({ id, ...facts });
      });
    } finally {
      s.close();
    }
  });
});
