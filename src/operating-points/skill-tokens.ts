/**
 * The cl100k_base token counts of the skills' SKILL.md texts, by skill id, that the injection
 * operating points need: each skill counted once per run, and only the skills a run retrieved.
 * `prepare(run)` counts the run's skills not counted yet (the pipeline starts it as soon as a
 * first stage has its run, so that counting overlaps the work that follows): on worker threads
 * (count-workers.ts, each reading its records from the skills file) when their records hold at
 * least `MIN_PARALLEL_BYTES`, else in process; `get` then answers synchronously. Counts go through
 * the count cache (token-cache.ts) either way, and are those of `countTokens` whatever the path
 * (tested). With the corpus's own counts (`corpus`), a skill they hold is neither read nor hashed:
 * a warm rerun reads no SKILL.md.
 */
import { availableParallelism } from 'node:os';
import type { Run } from '../core/types.js';
import type { DocSource } from '../core/stages.js';
import type { CorpusTokenCounts, TokenCountCache } from './token-cache.js';
import { countSkillTokensOnWorkers } from './count-workers.js';

/** Below this many record bytes to count, one thread is faster than starting workers (each builds its own encoder). */
export const MIN_PARALLEL_BYTES = 8 << 20;

/** Worker threads for counting: one per core, at most 4; 0 on one core. */
export function defaultCountThreads(): number {
  const cores = availableParallelism();
  return cores < 2 ? 0 : Math.min(4, cores);
}

export interface SkillTokenOptions {
  /** Skill ids, in the order of `source`'s records. */
  ids: readonly string[];
  /** The SKILL.md text of skill `i` (the in-process path). */
  skillMd: (i: number) => string;
  /** The skills file's records (the worker path; without it every count is made in process). */
  source?: DocSource;
  cache: TokenCountCache;
  /** This corpus's counts by skill (token-cache.ts): what they hold is not counted again, and `save` writes what was counted. */
  corpus?: CorpusTokenCounts;
  /** Worker threads (0 = in process). Default `defaultCountThreads()`. Counts do not depend on it. */
  threads?: number;
  /** Default `MIN_PARALLEL_BYTES`. */
  minParallelBytes?: number;
}

export class SkillTokenCounts {
  private readonly at = new Map<string, number>();
  /** Per skill: its count, -1 while not counted. */
  private readonly counts: Int32Array;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: SkillTokenOptions) {
    opts.ids.forEach((id, i) => this.at.set(id, i));
    this.counts = new Int32Array(opts.ids.length).fill(-1);
    if (opts.corpus) {
      if (opts.corpus.counts.length !== opts.ids.length) throw new RangeError(`${opts.ids.length} ids for corpus counts of ${opts.corpus.counts.length} skills`);
      this.counts.set(opts.corpus.counts);
    }
    if (opts.source && opts.source.ids.length !== opts.ids.length) throw new RangeError(`${opts.ids.length} ids for a source of ${opts.source.ids.length} records`);
  }

  /**
   * Counts every skill of `run` not counted yet. Calls run one after the other (a call made while
   * another counts waits for it), so a run can be started early and its counts awaited later.
   */
  prepare(run: Run): Promise<void> {
    const p = this.queue.then(() => this.count(run));
    this.queue = p.catch(() => undefined); // a failed call leaves its skills uncounted: the next call counts them again
    return p;
  }

  private async count(run: Run): Promise<void> {
    const seen = new Uint8Array(this.counts.length);
    const todo: number[] = [];
    for (const hits of run.values()) {
      for (const h of hits) {
        const i = this.at.get(h.docId);
        if (i === undefined || seen[i] || this.counts[i]! >= 0) continue;
        seen[i] = 1;
        todo.push(i);
      }
    }
    todo.sort((a, b) => a - b);
    const { source, cache } = this.opts;
    const threads = this.opts.threads ?? defaultCountThreads();
    let bytes = 0;
    if (source) for (const i of todo) bytes += source.lengths[i]!;
    // A cache that holds counts for at least half as many texts (a warm run) leaves mostly reading
    // and hashing to do: cheaper here than starting workers.
    const cached = cache.byHashes && cache.size >= todo.length / 2;
    if (!source || threads < 1 || cached || bytes < (this.opts.minParallelBytes ?? MIN_PARALLEL_BYTES)) {
      for (const i of todo) this.get(this.opts.ids[i]!);
      return;
    }
    const { counts, hashes } = await countSkillTokensOnWorkers(source, todo, threads, cache.byHashes ? cache.knownHashes() : null);
    todo.forEach((i, j) => {
      const h = hashes?.[j];
      let n = counts[j]!;
      if (n < 0) n = cache.lookup(h!)!;
      else if (h !== undefined) cache.record(h, n);
      this.counts[i] = n;
    });
  }

  /** Writes the counts made so far to the corpus counts (a no-op without them or when nothing is new). */
  save(): void {
    const corpus = this.opts.corpus;
    if (!corpus) return;
    corpus.counts.set(this.counts);
    corpus.save();
  }

  /** Tokens of the SKILL.md of skill `id` (counted now when `prepare` did not; 0 for an id outside the corpus: the empty text). */
  get(id: string): number {
    const i = this.at.get(id);
    if (i === undefined) return this.opts.cache.count('');
    let n = this.counts[i]!;
    if (n < 0) this.counts[i] = n = this.opts.cache.count(this.opts.skillMd(i));
    return n;
  }
}
