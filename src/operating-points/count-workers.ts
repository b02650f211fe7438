/**
 * cl100k_base counts of many skills' SKILL.md texts on worker threads (count-worker.ts): the
 * records are split into tasks of consecutive records of about `TASK_BYTES`, which the workers
 * take as they finish the last (two in flight each), and each worker reads its records from the
 * skills file itself, so no text crosses threads. The counts are those of `countTokens` in
 * process, whatever the number of threads or the order in which tasks finish (tested).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DocSource } from '../core/stages.js';
import { UserError } from '../core/errors.js';
import { packageRoot } from '../util/paths.js';
import type { CountReply, CountRequest } from './count-worker.js';

/** Record bytes per counting task. */
const TASK_BYTES = 2_000_000;

function workerScript(): string {
  const here = fileURLToPath(new URL('./count-worker.js', import.meta.url));
  // Under a TypeScript runner (tests) this module is src/…/count-workers.ts: use the compiled worker.
  return existsSync(here) ? here : join(packageRoot(), 'dist', 'operating-points', 'count-worker.js');
}

type Ok = Exclude<CountReply, { error: string }>;
type Request = CountRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** One worker thread answering one request at a time, in order. */
class CountWorker {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve: (r: Ok) => void; reject: (e: Error) => void }> = [];
  private failed: Error | undefined;
  private nextId = 0;

  constructor(script: string) {
    this.worker = new Worker(script);
    this.worker.on('message', (r: CountReply) => {
      const p = this.waiting.shift();
      if (p === undefined) return;
      if ('error' in r) p.reject(r.user ? new UserError(r.error) : new Error(`token-count worker: ${r.error}`));
      else p.resolve(r);
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`token-count worker exited with code ${code}`));
    });
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const p of this.waiting.splice(0)) p.reject(e);
  }

  send(msg: Request): Promise<Ok> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<Ok>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage({ ...msg, id: this.nextId++ } as CountRequest);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/** The records `records` (indices into `source`, ascending) of `source` as a source of their own. */
function pick(source: DocSource, records: readonly number[]): DocSource {
  return {
    ...source,
    ids: records.map((r) => source.ids[r]!),
    offsets: Float64Array.from(records, (r) => source.offsets[r]!),
    lengths: Uint32Array.from(records, (r) => source.lengths[r]!),
  };
}

/**
 * Counts of the SKILL.md texts of `records` (ascending indices into `source`) on `threads` workers.
 * With `known` (the cache's hashes), also each text's hash, and count -1 for a text the cache holds.
 */
export async function countSkillTokensOnWorkers(
  source: DocSource,
  records: readonly number[],
  threads: number,
  known: string[] | null,
  taskBytes = TASK_BYTES,
): Promise<{ counts: Int32Array; hashes: string[] | null }> {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`token-count threads must be a positive integer, got ${threads}`);
  const bounds: number[] = [0];
  let bytes = 0;
  for (let i = 0; i < records.length; i++) {
    bytes += source.lengths[records[i]!]!;
    if (bytes >= taskBytes && i + 1 < records.length) {
      bounds.push(i + 1);
      bytes = 0;
    }
  }
  bounds.push(records.length);
  const tasks = bounds.length - 1;
  const counts = new Int32Array(records.length);
  const hashes: string[] | null = known ? new Array<string>(records.length) : null;
  const script = workerScript();
  const workers = Array.from({ length: Math.min(threads, tasks) }, () => new CountWorker(script));
  try {
    if (known) await Promise.all(workers.map((w) => w.send({ type: 'known', hashes: known })));
    let next = 0;
    const lane = async (w: CountWorker): Promise<void> => {
      while (next < tasks) {
        const t = next++;
        const from = bounds[t]!;
        const r = await w.send({ type: 'count', source: pick(source, records.slice(from, bounds[t + 1]!)) });
        counts.set(r.counts, from);
        if (hashes && r.hashes) for (let i = 0; i < r.hashes.length; i++) hashes[from + i] = r.hashes[i]!;
      }
    };
    // two lanes per worker: a worker has its next task queued when it finishes one
    await Promise.all(workers.flatMap((w) => [lane(w), lane(w)]));
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  return { counts, hashes };
}
