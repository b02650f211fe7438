/**
 * The BM25 run cache: a warm rerun of the same corpus, parameters, queries and k reads the hits
 * instead of loading the index and scoring every query again. File:
 * `<cacheDir>/bm25/<index key>.runs/<run key>.json`, run key = sha256 of (format, k, every query
 * id and text in order). Holds the hits as document numbers and float32 scores (JSON numbers read
 * back as the same doubles) plus the index facts the stage reports, so a hit gives exactly what
 * scoring would give. A first line `{"format","sha256"}` (sha256 of the rest) guards the body: a
 * file cut short or with a byte changed does not fit and is recomputed, as is an unreadable one.
 * Written atomically.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Query, Run } from '../../core/types.js';
import { decodeCompactRun, encodeCompactRun, type CompactRun } from '../../formats/compact-run.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { sha256Hex } from '../../util/hash.js';

const FORMAT = 'skillret-bm25-run-v2';

/** What the stage reports besides the run. */
export interface CachedRunFacts {
  numDocs: number;
  vocabSize: number;
  avgdl: number;
  totalTokens: number;
  noneQueries: number;
  emptyQueries: number;
}

interface RunFile extends CachedRunFacts {
  /** Per query, in query order: [qid, doc numbers, scores]. */
  queries: CompactRun;
}

/** The run key of `queries` at cutoff `k` (the index key is the folder). */
export function bm25RunKey(queries: readonly Query[], k: number): string {
  const h = createHash('sha256');
  h.update(`${FORMAT}\n${k}\n${queries.length}\n`);
  for (const q of queries) {
    h.update(`${Buffer.byteLength(q.id, 'utf8')}:${q.id}${Buffer.byteLength(q.text, 'utf8')}:`);
    h.update(q.text, 'utf8');
  }
  return h.digest('hex');
}

/** Reads a cached run; throws (the caller recomputes) when the file does not fit. */
export function readBm25RunCache(path: string, docIds: readonly string[], queries: readonly Query[]): { run: Run; facts: CachedRunFacts } {
  const text = readFileSync(path, 'utf8');
  const nl = text.indexOf('\n');
  if (nl < 0) throw new Error('no header line');
  const head = JSON.parse(text.slice(0, nl)) as { format?: unknown; sha256?: unknown };
  const body = text.slice(nl + 1);
  if (head.format !== FORMAT) throw new Error('not a run file of this format');
  if (sha256Hex(body) !== head.sha256) throw new Error('checksum mismatch');
  const f = JSON.parse(body) as RunFile;
  if (f.numDocs !== docIds.length) throw new Error('does not match the corpus');
  const run = decodeCompactRun(f.queries, docIds, queries);
  const { numDocs, vocabSize, avgdl, totalTokens, noneQueries, emptyQueries } = f;
  return { run, facts: { numDocs, vocabSize, avgdl, totalTokens, noneQueries, emptyQueries } };
}

/** Writes the run (document numbers from `docIds`) with its facts, atomically. */
export function writeBm25RunCache(path: string, docIds: readonly string[], queries: readonly Query[], run: Run, facts: CachedRunFacts): void {
  const file: RunFile = { ...facts, queries: encodeCompactRun(run, docIds, queries) };
  const body = JSON.stringify(file);
  writeFileAtomic(path, `${JSON.stringify({ format: FORMAT, sha256: sha256Hex(body) })}\n${body}`);
}
