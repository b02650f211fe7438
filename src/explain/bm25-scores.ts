/**
 * BM25 scores for explanations, over a built index (src/retrieval/bm25/): the score of every
 * document for a query (the retriever keeps only its top k) and the score a document text that
 * is not in the index would get (a field variant of a skill), with the index's idf and avgdl.
 *
 * Same arithmetic as the retriever: the official query tokens (src/retrieval/bm25/query.ts),
 * per-token float32 term scores idf · tf / (k1 · (1 − b + b · dl / avgdl) + tf) accumulated in
 * float32 in query-token order, repeats counted; so a document of the index scores exactly as in
 * the run.
 */
import { officialQueryTokens } from '../retrieval/bm25/query.js';
import { tokenize } from '../retrieval/bm25/tokenize.js';
import type { Bm25Index } from '../retrieval/bm25/types.js';

/** Score of every document number for `query`. */
export function bm25ScoresAll(index: Bm25Index, query: string): Float32Array {
  const acc = new Float32Array(index.numDocs);
  const { postingStart, postingDoc, postingScore } = index;
  for (const token of officialQueryTokens(query).tokens) {
    const t = index.vocab.get(token);
    if (t === undefined) continue;
    for (let j = postingStart[t]!; j < postingStart[t + 1]!; j++) {
      const d = postingDoc[j]!;
      acc[d] = acc[d]! + postingScore[j]!;
    }
  }
  return acc;
}

/** Score of a document text (tokenized like the corpus) for `query`, with the index's statistics. */
export function bm25ScoreText(index: Bm25Index, query: string, docText: string): number {
  const docTokens = tokenize(docText);
  const tf = new Map<string, number>();
  for (const t of docTokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  const { k1, b } = index.params;
  const lengthNorm = k1 * (1 - b + (b * docTokens.length) / index.avgdl);
  const acc = new Float32Array(1);
  for (const token of officialQueryTokens(query).tokens) {
    const t = index.vocab.get(token);
    const f = tf.get(token);
    if (t === undefined || f === undefined) continue;
    acc[0] = acc[0]! + Math.fround(index.idf[t]! * (f / (lengthNorm + f)));
  }
  return acc[0]!;
}
