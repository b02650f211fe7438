/**
 * formats/compact-run.ts, the run form of BM25's run cache and the dense stage cache: a round trip
 * gives the same run (order, ids, float32 scores as doubles), and rows that do not fit the queries
 * or the corpus are refused.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '../src/core/types.js';
import { decodeCompactRun, encodeCompactRun } from '../src/formats/compact-run.js';

const docIds = ['a', 'b', 'c', 'd'];
const queries = [{ id: 'q1' }, { id: 'q2' }, { id: 'q3' }];
const run: Run = new Map([
  ['q1', [{ docId: 'c', score: Math.fround(2.7) }, { docId: 'a', score: Math.fround(1.1) }]],
  ['q2', [{ docId: 'd', score: 0 }]],
]);

describe('compact run', () => {
  it('round-trips through JSON, a query without hits included', () => {
    const rows = JSON.parse(JSON.stringify(encodeCompactRun(run, docIds, queries)));
    expect(rows).toEqual([['q1', [2, 0], [Math.fround(2.7), Math.fround(1.1)]], ['q2', [3], [0]], ['q3', [], []]]);
    const back = decodeCompactRun(rows, docIds, queries);
    expect([...back]).toEqual([...run, ['q3', []]]);
  });

  it('refuses rows that do not fit', () => {
    const rows = encodeCompactRun(run, docIds, queries);
    expect(() => decodeCompactRun(rows.slice(1), docIds, queries)).toThrow(/queries/);
    expect(() => decodeCompactRun([rows[1], rows[0], rows[2]], docIds, queries)).toThrow(/query 0/);
    expect(() => decodeCompactRun([['q1', [9], [1]], rows[1], rows[2]], docIds, queries)).toThrow(/out of range/);
    expect(() => decodeCompactRun([['q1', [0], ['x']], rows[1], rows[2]], docIds, queries)).toThrow(/out of range/);
    expect(() => decodeCompactRun([['q1', [0, 1], [1]], rows[1], rows[2]], docIds, queries)).toThrow(/query 0/);
    expect(() => decodeCompactRun('garbage', docIds, queries)).toThrow();
  });
});
