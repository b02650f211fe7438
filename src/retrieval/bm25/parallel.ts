/**
 * BM25 on several cores: worker threads (worker.ts) tokenize the corpus in chunks and score the
 * queries in batches; the main thread merges the chunks in corpus order (chunk.ts) and builds the
 * index with its postings on SharedArrayBuffers, which the workers then search without a copy.
 * Results are identical to the single-thread path (`buildBm25IndexFromTexts` + `queryBm25Index`):
 * the same index (vocabulary order included, so the same cache file) and the same hits, whatever
 * the number of threads or the order in which chunks finish (tested).
 *
 * Only a chunk of text (~2 M characters) per worker is copied at a time, so the extra memory is
 * two small worker heaps, not a second copy of the corpus.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Progress } from '../../core/context.js';
import type { Query, Run, ScoredDoc } from '../../core/types.js';
import type { DocSource, DocStore } from '../../core/stages.js';
import { packageRoot } from '../../util/paths.js';
import { Bm25IndexBuilder } from './build.js';
import { mergeChunk, type TokenizedChunk } from './chunk.js';
import type { CorpusIndexResult } from './corpus.js';
import type { Bm25QueryStats } from './query.js';
import { tieRanks } from '../../metrics/rank.js';
import { BM25S_STOPWORDS_EN } from './stopwords.js';
import type { Bm25Index, Bm25Params } from './types.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

/** Characters of document text per tokenizing task. */
const CHUNK_CHARS = 2_000_000;
/** Queries per scoring task. */
const QUERY_BATCH = 64;
/** Below this many documents one thread is faster than starting workers. */
export const MIN_PARALLEL_DOCS = 2000;

/** Worker threads the BM25 stage uses by default: one per core, at most 4; 0 = in process. */
export function defaultBm25Threads(numDocs: number): number {
  const cores = availableParallelism();
  if (cores < 2 || numDocs < MIN_PARALLEL_DOCS) return 0;
  return Math.min(4, cores);
}

function workerScript(): string {
  const here = fileURLToPath(new URL('./worker.js', import.meta.url));
  // Under a TypeScript runner (tests) this module is src/…/parallel.ts: use the compiled worker.
  return existsSync(here) ? here : join(packageRoot(), 'dist', 'retrieval', 'bm25', 'worker.js');
}

type OkReply = Exclude<WorkerReply, { error: string }>;
type Pending = { resolve: (r: OkReply) => void; reject: (e: Error) => void };

/** A fixed set of BM25 worker threads; tasks go to the least busy one. */
export class Bm25Pool {
  private readonly workers: Worker[] = [];
  private readonly busy: number[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failed: Error | undefined;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`BM25 threads must be a positive integer, got ${size}`);
    const script = workerScript();
    for (let i = 0; i < size; i++) {
      const w = new Worker(script);
      w.on('message', (r: WorkerReply) => {
        this.busy[i]!--;
        const p = this.pending.get(r.id);
        this.pending.delete(r.id);
        if (p === undefined) return;
        if ('error' in r) p.reject(new Error(`BM25 worker: ${r.error}`));
        else p.resolve(r);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`BM25 worker exited with code ${code}`));
      });
      this.workers.push(w);
      this.busy.push(0);
    }
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** Sends `msg` (its id is set here) to worker `to`, or to the least busy one. */
  send(msg: WorkerRequest, transfer: ArrayBuffer[] = [], to?: number): Promise<OkReply> {
    if (this.failed) return Promise.reject(this.failed);
    let w = to ?? 0;
    if (to === undefined) for (let i = 1; i < this.size; i++) if (this.busy[i]! < this.busy[w]!) w = i;
    const id = this.nextId++;
    msg.id = id;
    this.busy[w]!++;
    return new Promise<OkReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[w]!.postMessage(msg, transfer);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Runs `tasks` (each a promise factory) with at most `limit` in flight, in order of start. */
async function inFlight<T>(count: number, limit: number, start: (i: number) => Promise<T>, done: (i: number, r: T) => void): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      done(i, await start(i));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

/** The part [from, to) of a file-backed store's source (what one tokenizing task reads). */
function sliceSource(s: DocSource, from: number, to: number): DocSource {
  return { ...s, ids: s.ids.slice(from, to), offsets: s.offsets.slice(from, to), lengths: s.lengths.slice(from, to) };
}

/**
 * `buildBm25IndexFromTexts` (English stop words) on the pool; postings on SharedArrayBuffers.
 * A file-backed store's texts never come to this thread: each worker reads its chunk of records
 * from the file by their offsets.
 */
export async function buildBm25IndexParallel(
  pool: Bm25Pool,
  docs: readonly string[] | DocStore,
  params: Partial<Bm25Params> = {},
  progress?: Progress,
  chunkChars = CHUNK_CHARS,
): Promise<CorpusIndexResult> {
  const t0 = performance.now();
  const texts = Array.isArray(docs) ? (docs as readonly string[]) : undefined;
  const store = Array.isArray(docs) ? undefined : (docs as DocStore);
  const source = store?.source;
  const numDocs = texts ? texts.length : store!.size;
  // Chunks of consecutive documents of about CHUNK_CHARS characters (record bytes for a file).
  const size = (d: number): number => (texts ? texts[d]!.length : source ? source.lengths[d]! : store!.text(d).length);
  const bounds: number[] = [0];
  let chars = 0;
  for (let d = 0; d < numDocs; d++) {
    chars += size(d);
    if (chars >= chunkChars && d + 1 < numDocs) {
      bounds.push(d + 1);
      chars = 0;
    }
  }
  bounds.push(numDocs);
  const numChunks = bounds.length - 1;
  const builder = new Bm25IndexBuilder(params);
  const vocab = new Map<string, number>();
  const ready = new Map<number, TokenizedChunk>();
  let merged = 0;
  let totalTokens = 0;
  let mergeMs = 0;
  const stopwords = [...BM25S_STOPWORDS_EN];
  await inFlight(
    numChunks,
    2 * pool.size,
    async (i) => {
      const from = bounds[i]!;
      const to = bounds[i + 1]!;
      const reply = await pool.send(
        source
          ? { type: 'tokenize', id: 0, source: sliceSource(source, from, to), stopwords }
          : { type: 'tokenize', id: 0, texts: texts ? texts.slice(from, to) : [...store!.texts(from, to)], stopwords },
      );
      if (reply.type !== 'tokenize') throw new Error('BM25 worker: unexpected reply');
      return reply.chunk;
    },
    (i, chunk) => {
      ready.set(i, chunk);
      const m0 = performance.now();
      while (ready.has(merged)) {
        const c = ready.get(merged)!;
        ready.delete(merged);
        totalTokens += mergeChunk(builder, vocab, c);
        if (progress) for (let d = 0; d < c.docLen.length; d++) progress.increment();
        merged++;
      }
      mergeMs += performance.now() - m0;
    },
  );
  const t1 = performance.now();
  const index = builder.finish(vocab, true);
  const t2 = performance.now();
  return { index, tokenizeMs: t1 - t0 - mergeMs, indexMs: mergeMs + (t2 - t1), totalTokens };
}

/** An index whose search arrays are on SharedArrayBuffers (copied there when they are not). */
function shareable(index: Bm25Index): Bm25Index {
  const share = <T extends Int32Array | Uint32Array | Float32Array>(a: T): T => {
    if (a.buffer instanceof SharedArrayBuffer) return a;
    const copy = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
    copy.set(a as never);
    return copy;
  };
  return {
    ...index,
    idf: share(index.idf),
    postingStart: share(index.postingStart),
    postingDoc: share(index.postingDoc),
    postingScore: share(index.postingScore),
  };
}

/** `queryBm25Index` on the pool: the same run and stats (the timing aside). */
export async function queryBm25IndexParallel(
  pool: Bm25Pool,
  index: Bm25Index,
  docIds: readonly string[],
  queries: readonly Query[],
  k: number,
  progress?: Progress,
  batch = QUERY_BATCH,
): Promise<{ run: Run; stats: Bm25QueryStats }> {
  if (docIds.length !== index.numDocs) {
    throw new RangeError(`${docIds.length} document ids for an index of ${index.numDocs} documents`);
  }
  const t0 = performance.now();
  const shared = shareable(index);
  const tieRank = new Int32Array(new SharedArrayBuffer(4 * docIds.length));
  tieRank.set(tieRanks(docIds));
  const vocab = [...index.vocab.keys()];
  await Promise.all(
    Array.from({ length: pool.size }, (_, w) =>
      pool.send(
        {
          type: 'index',
          id: 0,
          params: { ...index.params },
          numDocs: index.numDocs,
          avgdl: index.avgdl,
          vocab,
          idf: shared.idf,
          docLen: index.docLen,
          postingStart: shared.postingStart,
          postingDoc: shared.postingDoc,
          postingScore: shared.postingScore,
          tieRank,
        },
        [],
        w,
      ),
    ),
  );
  const numBatches = Math.ceil(queries.length / batch);
  const results: Array<{ counts: Int32Array; docs: Int32Array; scores: Float64Array }> = [];
  let noneQueries = 0;
  await inFlight(
    numBatches,
    2 * pool.size,
    async (b) => {
      const texts = queries.slice(b * batch, (b + 1) * batch).map((q) => q.text);
      const reply = await pool.send({ type: 'search', id: 0, texts, k });
      if (reply.type !== 'search') throw new Error('BM25 worker: unexpected reply');
      return reply;
    },
    (b, r) => {
      results[b] = r;
      noneQueries += r.none;
      if (progress) for (let i = 0; i < r.counts.length; i++) progress.increment();
    },
  );
  const run: Run = new Map();
  let emptyQueries = 0;
  let qi = 0;
  for (const r of results) {
    let at = 0;
    for (let i = 0; i < r.counts.length; i++, qi++) {
      const n = r.counts[i]!;
      if (n === 0) emptyQueries++;
      const docs: ScoredDoc[] = new Array<ScoredDoc>(n);
      for (let j = 0; j < n; j++) docs[j] = { docId: docIds[r.docs[at + j]!]!, score: r.scores[at + j]! };
      at += n;
      run.set(queries[qi]!.id, docs);
    }
  }
  return { run, stats: { numQueries: queries.length, noneQueries, emptyQueries, queryMs: performance.now() - t0 } };
}
