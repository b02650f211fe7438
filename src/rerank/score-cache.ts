/**
 * Reranker score cache: (scorer key, query text, document text) → score. Store kind `rerank`
 * (cache/store.ts), one group folder per scorer, `<cacheDir>/rerank/<scorer key>/`, so a re-run of
 * the same reranker over the same pools costs no model call.
 *
 * The scorer key (`scorerKey`, from what the caller describes) covers the model files' content
 * hash, dtype, scorer type, template, instruction and token limit. Inside a scorer's group, scores
 * are stored in chunks, each one an entry of the store written atomically (an interrupted run keeps
 * every chunk it finished), keyed by the key of (scorer key, its content); its body one line
 * `["<pair key>", score]` per pair. Scores are JSON doubles, which round-trip exactly (-0 written
 * as `-0`, which JSON.stringify would write as 0), so cached and fresh runs are bit-identical.
 * A chunk is trusted only whole: the store checks its framing (cut short, a byte changed, lines
 * lost: length or SHA-256), the decoder its lines and that they give its key; a damaged one is
 * reported in the store's one line, removed, and its pairs are scored again.
 * When a group holds more than `compactAbove` chunks, opening it merges them into one.
 * `key.json` beside the chunks says, for people, what the scorer key stands for.
 */
import { cacheKey } from '../cache/key.js';
import { CACHE_KINDS, entryKind } from '../cache/kinds.js';
import type { CacheStore } from '../cache/store.js';

export const RERANK_KIND = entryKind(CACHE_KINDS.rerank, 'rerank-scores-v2');

/** Key of one pair inside a scorer's cache. */
export function pairKey(query: string, doc: string): string {
  return cacheKey(RERANK_KIND.name, ['pair', query, doc]);
}

/** The group key of a scorer described by `description` (everything that changes its scores' bits). */
export function scorerKey(description: object): string {
  return cacheKey(RERANK_KIND.name, [RERANK_KIND.format, 'scorer', description]);
}

/** The key of a chunk with this body in a scorer's group. */
export function scoreChunkKey(group: string, body: string): string {
  return cacheKey(RERANK_KIND.name, ['chunk', group, body]);
}

/** The body of a chunk of scores. */
export function encodeScoreChunk(items: readonly (readonly [string, number])[]): string {
  return items.map(([k, s]) => `[${JSON.stringify(k)},${Object.is(s, -0) ? '-0' : JSON.stringify(s)}]`).join('\n') + '\n';
}

/** The scores of a chunk body stored under `key` in `group`; throws when it is not one. */
export function decodeScoreChunk(group: string, key: string, body: string): [string, number][] {
  if (scoreChunkKey(group, body) !== key) throw new Error('its scores are not those of its key');
  const got: [string, number][] = [];
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const v = JSON.parse(line) as unknown;
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !Number.isFinite(v[1])) throw new Error(`line ${got.length + 1} is not a score`);
    got.push([v[0], v[1] as number]);
  }
  return got;
}

export class ScoreCache {
  private readonly entries = new Map<string, number>();
  private pending: [string, number][] = [];
  /** Damaged chunks found when the cache was opened. */
  damagedChunks = 0;

  private constructor(
    private readonly store: CacheStore,
    readonly group: string,
  ) {}

  /**
   * Opens the cache of one scorer (`group`: its `scorerKey`), reading every chunk. `describe` is
   * written beside the chunks (key.json) for people. Damaged chunks are reported and removed.
   */
  static open(store: CacheStore, group: string, describe?: Record<string, unknown>, compactAbove = 64): ScoreCache {
    const c = new ScoreCache(store, group);
    if (describe) store.writeNote(RERANK_KIND, group, 'key.json', JSON.stringify(describe, null, 2) + '\n');
    const { entries, damaged } = store.readGroup(RERANK_KIND, group, (body, at) => decodeScoreChunk(group, at.key, new TextDecoder('utf-8', { fatal: true }).decode(body)));
    c.damagedChunks = damaged;
    for (const { value } of entries) for (const [k, s] of value) c.entries.set(k, s);
    if (entries.length > compactAbove) {
      const merged = c.writeChunk([...c.entries]);
      for (const { key } of entries) if (key !== merged) store.remove(RERANK_KIND, key, group);
    }
    return c;
  }

  private writeChunk(items: [string, number][]): string | undefined {
    if (items.length === 0) return undefined;
    const body = encodeScoreChunk(items);
    const key = scoreChunkKey(this.group, body);
    this.store.write(RERANK_KIND, key, body, { group: this.group });
    return key;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): number | undefined {
    return this.entries.get(key);
  }

  /** Records a score (finite scores only); kept in memory until `flush`. */
  put(key: string, score: number): void {
    if (!Number.isFinite(score) || this.entries.has(key)) return;
    this.entries.set(key, score);
    this.pending.push([key, score]);
  }

  /** Writes the scores recorded since the last flush as one chunk. */
  flush(): void {
    const items = this.pending;
    this.pending = [];
    this.writeChunk(items);
  }
}
