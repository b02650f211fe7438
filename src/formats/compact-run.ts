/**
 * A run as the caches store it (BM25's run cache, the dense stage cache): per query, in query
 * order, `[query id, document numbers, scores]`, the document numbers positions in the corpus's
 * id list and the scores JSON numbers (a float32 score is read back as the same double). Decoding
 * checks the rows against the queries and the corpus, and throws when they do not fit (the caller
 * recomputes).
 */
import type { Run, ScoredDoc } from '../core/types.js';

export type CompactRun = Array<[string, number[], number[]]>;

/** The compact form of `run` over `queries` (a query without hits gets empty lists). */
export function encodeCompactRun(run: Run, docIds: readonly string[], queries: readonly { id: string }[]): CompactRun {
  const number = new Map<string, number>();
  docIds.forEach((id, i) => number.set(id, i));
  return queries.map((q) => {
    const hits = run.get(q.id) ?? [];
    return [q.id, hits.map((h) => number.get(h.docId)!), hits.map((h) => h.score)];
  });
}

/** The run of `rows`; throws when a row is not the query at its position or a hit is not a document. */
export function decodeCompactRun(rows: unknown, docIds: readonly string[], queries: readonly { id: string }[]): Run {
  if (!Array.isArray(rows) || rows.length !== queries.length) throw new Error('does not match the queries');
  const run: Run = new Map();
  (rows as CompactRun).forEach((row, i) => {
    const [qid, docs, scores] = Array.isArray(row) ? row : [];
    if (qid !== queries[i]!.id || !Array.isArray(docs) || !Array.isArray(scores) || docs.length !== scores.length) throw new Error(`query ${i} does not match`);
    const hits: ScoredDoc[] = new Array<ScoredDoc>(docs.length);
    for (let j = 0; j < docs.length; j++) {
      const k = docs[j];
      // a document number only: an index given as a string ("length", "constructor") is no document
      const id = typeof k === 'number' ? docIds[k] : undefined;
      if (id === undefined || typeof scores[j] !== 'number') throw new Error(`query ${i}: hit ${j} out of range`);
      hits[j] = { docId: id, score: scores[j]! };
    }
    run.set(qid, hits);
  });
  return run;
}
