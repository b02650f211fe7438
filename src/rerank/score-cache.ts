/**
 * Reranker score cache: (scorer key, query text, document text) → score, on disk under
 * `<cacheDir>/rerank/<scorer key>/`, so a re-run of the same reranker over the same pools costs
 * no model call.
 *
 * The scorer key (computed by the caller) covers the model files' content hash, dtype, scorer
 * type, template, instruction and token limit. Inside a scorer's folder, entries are stored in
 * chunk files `<sha256 of content>.jsonl`, each line `["<sha256 of [query, doc]>", score]`, each
 * written atomically (temp file + rename): an interrupted run keeps every chunk it finished.
 * Scores are JSON doubles, which round-trip exactly (-0 written as `-0`, which JSON.stringify
 * would write as 0), so cached and fresh runs are bit-identical.
 * A chunk is trusted only whole: one whose content does not hash to its name (cut short, a byte
 * changed, lines lost) is deleted and its pairs are scored again.
 * When a folder holds more than `compactAbove` chunks, opening it merges them into one.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic.js';
import { sha256Hex } from '../util/hash.js';
import { makeDirs } from '../util/dirs.js';

const CHUNK = /^[0-9a-f]{64}\.jsonl$/;

/** Key of one pair inside a scorer's cache. */
export function pairKey(query: string, doc: string): string {
  return sha256Hex(JSON.stringify([query, doc]));
}

export class ScoreCache {
  private readonly entries = new Map<string, number>();
  private pending: [string, number][] = [];

  private constructor(readonly dir: string) {}

  /**
   * Opens (creating) the cache folder of one scorer, reading every chunk. `describe` is written
   * next to the chunks (key.json) for humans. Unreadable or damaged chunks are ignored (and deleted).
   */
  static open(dir: string, describe?: Record<string, unknown>, compactAbove = 64): ScoreCache {
    makeDirs(dir);
    const c = new ScoreCache(dir);
    if (describe && !existsSync(join(dir, 'key.json'))) writeJsonAtomic(join(dir, 'key.json'), describe);
    const chunks = readdirSync(dir).filter((f) => CHUNK.test(f)).sort().filter((f) => c.readChunk(dir, f));
    if (chunks.length > compactAbove) {
      const merged = c.writeChunk([...c.entries]);
      for (const f of chunks) if (f !== merged) rmSync(join(dir, f), { force: true });
    }
    return c;
  }

  /** Reads chunk `name` of `dir` when it is intact (its content hashes to its name): whether it was. */
  private readChunk(dir: string, name: string): boolean {
    const path = join(dir, name);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return false;
    }
    if (`${sha256Hex(bytes)}.jsonl` !== name) {
      rmSync(path, { force: true });
      return false;
    }
    const got: [string, number][] = [];
    for (const line of bytes.toString('utf8').split('\n')) {
      if (line === '') continue;
      try {
        const v = JSON.parse(line) as unknown;
        if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !Number.isFinite(v[1])) return false;
        got.push([v[0], v[1] as number]);
      } catch {
        return false;
      }
    }
    for (const [k, s] of got) this.entries.set(k, s);
    return true;
  }

  private writeChunk(items: [string, number][]): string | undefined {
    if (items.length === 0) return undefined;
    const body = items.map(([k, s]) => `[${JSON.stringify(k)},${Object.is(s, -0) ? '-0' : JSON.stringify(s)}]`).join('\n') + '\n';
    const name = `${sha256Hex(body)}.jsonl`;
    writeFileAtomic(join(this.dir, name), body);
    return name;
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
