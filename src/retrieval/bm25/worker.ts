/**
 * The BM25 worker thread (started by parallel.ts): tokenizes chunks of documents (chunk.ts) and
 * scores batches of queries against an index whose arrays live on SharedArrayBuffers, exactly as
 * the in-process code does (same functions), so results do not depend on the number of threads.
 */
import { parentPort } from 'node:worker_threads';
import type { DocSource } from '../../core/stages.js';
import { openDocStore } from '../../data/doc-store.js';
import { tokenizeChunk } from './chunk.js';
import { officialQueryTokens } from './query.js';
import { Bm25Searcher } from './search.js';
import type { Bm25Index, Bm25Params } from './types.js';

export type WorkerRequest =
  | { type: 'tokenize'; id: number; texts: string[]; stopwords: string[] | null }
  | { type: 'tokenize'; id: number; source: DocSource; stopwords: string[] | null }
  | {
      type: 'index';
      id: number;
      params: Bm25Params;
      numDocs: number;
      avgdl: number;
      vocab: string[];
      idf: Float32Array;
      docLen: Int32Array;
      postingStart: Uint32Array;
      postingDoc: Int32Array;
      postingScore: Float32Array;
      tieRank: Int32Array;
    }
  | { type: 'search'; id: number; texts: string[]; k: number };

export type WorkerReply =
  | { id: number; error: string }
  | { id: number; type: 'tokenize'; chunk: ReturnType<typeof tokenizeChunk> }
  | { id: number; type: 'index' }
  | { id: number; type: 'search'; counts: Int32Array; docs: Int32Array; scores: Float64Array; none: number };

let searcher: Bm25Searcher | undefined;

function handle(msg: WorkerRequest): { reply: WorkerReply; transfer: ArrayBuffer[] } {
  switch (msg.type) {
    case 'tokenize': {
      const chunk = 'source' in msg ? tokenizeChunk(openDocStore(msg.source).texts(), msg.stopwords, msg.source.ids.length) : tokenizeChunk(msg.texts, msg.stopwords);
      const transfer = [chunk.docPairEnd.buffer, chunk.docLen.buffer, chunk.pairTerm.buffer, chunk.pairTf.buffer] as ArrayBuffer[];
      return { reply: { id: msg.id, type: 'tokenize', chunk }, transfer };
    }
    case 'index': {
      const vocab = new Map<string, number>();
      msg.vocab.forEach((t, i) => vocab.set(t, i));
      const index: Bm25Index = {
        params: msg.params,
        numDocs: msg.numDocs,
        avgdl: msg.avgdl,
        vocab,
        idf: msg.idf,
        docLen: msg.docLen,
        postingStart: msg.postingStart,
        postingDoc: msg.postingDoc,
        postingScore: msg.postingScore,
      };
      searcher = new Bm25Searcher(index, { tieRank: msg.tieRank });
      return { reply: { id: msg.id, type: 'index' }, transfer: [] };
    }
    case 'search': {
      if (searcher === undefined) throw new Error('search before index');
      const counts = new Int32Array(msg.texts.length);
      const docs: number[] = [];
      const scores: number[] = [];
      let none = 0;
      msg.texts.forEach((text, i) => {
        const q = officialQueryTokens(text);
        if (q.none) none++;
        const hits = searcher!.search(q.tokens, msg.k);
        counts[i] = hits.length;
        for (const h of hits) {
          docs.push(h.doc);
          scores.push(h.score);
        }
      });
      const d = Int32Array.from(docs);
      const s = Float64Array.from(scores);
      return { reply: { id: msg.id, type: 'search', counts, docs: d, scores: s, none }, transfer: [counts.buffer, d.buffer, s.buffer] };
    }
  }
}

parentPort?.on('message', (msg: WorkerRequest) => {
  try {
    const { reply, transfer } = handle(msg);
    parentPort!.postMessage(reply, transfer);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies WorkerReply);
  }
});
