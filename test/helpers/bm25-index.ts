/** Asserts that two BM25 indexes are equal in every field (vocabulary order included). */
import { expect } from 'vitest';
import type { Bm25Index } from '../../src/retrieval/bm25/types.js';

export function expectSameIndex(a: Bm25Index, b: Bm25Index): void {
  expect(a.params).toEqual(b.params);
  expect(a.numDocs).toBe(b.numDocs);
  expect(a.avgdl).toBe(b.avgdl);
  expect([...a.vocab]).toEqual([...b.vocab]);
  expect([...a.idf]).toEqual([...b.idf]);
  expect([...a.docLen]).toEqual([...b.docLen]);
  expect([...a.postingStart]).toEqual([...b.postingStart]);
  expect([...a.postingDoc]).toEqual([...b.postingDoc]);
  expect([...a.postingScore]).toEqual([...b.postingScore]);
}
