/**
 * Wraps a model reranker for large workloads: identical pairs are scored once and cached pairs
 * skip the model (unique-pairs.ts); the rest go to the model in windows (bounded tokenisation
 * memory), and, with a score cache, every finished window is written to the cache (an interrupted
 * run keeps its work).
 */
import { faultPoint } from '../util/fault.js';
import type { ScoreCache } from './score-cache.js';
import type { RerankPair, Reranker, RerankStats } from './types.js';
import { lookupPairs } from './unique-pairs.js';

export interface WindowOptions {
  /** Unique uncached pairs per model call (default 1,024). */
  window?: number;
  /**
   * Keep the pairs' input order instead of sorting by length (remote servers score one query
   * per request, so a query's pairs are best kept together in one window).
   */
  keepOrder?: boolean;
  cache?: ScoreCache;
}

export class WindowedReranker implements Reranker {
  private cachedPairs = 0;
  private readonly window: number;

  constructor(
    readonly inner: Reranker,
    private readonly opts: WindowOptions = {},
  ) {
    this.window = Math.max(1, opts.window ?? 1024);
  }

  describe(): Record<string, unknown> {
    return this.inner.describe();
  }

  stats(): RerankStats {
    const s = this.inner.stats?.() ?? { pairs: 0, truncatedPairs: 0, cachedPairs: 0 };
    return { ...s, cachedPairs: s.cachedPairs + this.cachedPairs };
  }

  async score(pairs: RerankPair[], onProgress?: (n: number) => void): Promise<number[]> {
    const cache = this.opts.cache;
    const { scores, hits, unique } = lookupPairs(pairs, cache, this.opts.keepOrder ?? false);
    this.cachedPairs += hits;
    if (hits > 0) onProgress?.(hits);
    for (let start = 0; start < unique.length; start += this.window) {
      const part = unique.slice(start, start + this.window);
      const got = await this.inner.score(
        part.map((u) => pairs[u.idx[0]!]!),
        onProgress,
      );
      let dup = 0;
      part.forEach((u, j) => {
        const s = got[j]!;
        for (const i of u.idx) scores[i] = s;
        dup += u.idx.length - 1;
        cache?.put(u.key, s);
      });
      cache?.flush();
      faultPoint('reranking');
      if (dup > 0) onProgress?.(dup);
    }
    return scores;
  }

  async dispose(): Promise<void> {
    await this.inner.dispose?.();
  }
}
