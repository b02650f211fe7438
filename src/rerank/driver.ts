/**
 * Wraps a model reranker for large workloads: identical pairs are scored once, pairs go to the
 * model in windows (bounded tokenisation memory; pairs sorted by text length first so windows
 * batch well), and, with a score cache, cached pairs skip the model and every finished window is
 * written to the cache (an interrupted run keeps its work).
 */
import { pairKey, type ScoreCache } from './score-cache.js';
import type { RerankPair, Reranker, RerankStats } from './types.js';
import { faultPoint } from '../util/fault.js';

export interface DriverOptions {
  /** Unique uncached pairs per model call (default 1,024). */
  window?: number;
  /**
   * Keep the pairs' input order instead of sorting by length (remote servers score one query
   * per request, so a query's pairs are best kept together in one window).
   */
  keepOrder?: boolean;
  cache?: ScoreCache;
}

export class RerankDriver implements Reranker {
  private cachedPairs = 0;
  private readonly window: number;

  constructor(
    readonly inner: Reranker,
    private readonly opts: DriverOptions = {},
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
    const scores = new Array<number>(pairs.length).fill(NaN);
    const cache = this.opts.cache;
    // Unique pairs still to score: key -> indices.
    const todo = new Map<string, number[]>();
    let hits = 0;
    pairs.forEach((p, i) => {
      const key = pairKey(p.query, p.doc);
      const cached = cache?.get(key);
      if (cached !== undefined) {
        scores[i] = cached;
        hits++;
        return;
      }
      const list = todo.get(key);
      if (list) list.push(i);
      else todo.set(key, [i]);
    });
    this.cachedPairs += hits;
    if (hits > 0) onProgress?.(hits);

    const unique = [...todo.entries()].map(([key, idx]) => ({ key, idx, len: pairs[idx[0]!]!.query.length + pairs[idx[0]!]!.doc.length }));
    if (!this.opts.keepOrder) unique.sort((a, b) => b.len - a.len || a.idx[0]! - b.idx[0]!);
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
