/**
 * Persisted token counts for the injection operating points, so that a warm rerun does not
 * tokenize the corpus again: `<cacheDir>/tokens/cl100k_base-v1.json` maps the SHA-256 of a text
 * (hex) to its cl100k_base count (tokens.ts). A count is a function of the text alone, so entries
 * never go stale; an unreadable file is ignored (counted again and rewritten). Off when the cache is.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import { countTokens } from './tokens.js';

/** The cache's key of a text: its SHA-256 (hex, UTF-8). */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export class TokenCountCache {
  private readonly byHash: Map<string, number>;
  private readonly byText = new Map<string, number>();
  private dirty = false;

  private constructor(
    private readonly file: string | undefined,
    entries: Map<string, number>,
  ) {
    this.byHash = entries;
  }

  /** The cache under `cacheDir` (none when `useCache` is false). */
  static open(cacheDir: string, useCache: boolean): TokenCountCache {
    if (!useCache) return new TokenCountCache(undefined, new Map());
    const file = join(cacheDir, 'tokens', 'cl100k_base-v1.json');
    const entries = new Map<string, number>();
    if (existsSync(file)) {
      try {
        const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        for (const [h, n] of Object.entries(doc)) if (/^[0-9a-f]{64}$/.test(h) && Number.isSafeInteger(n) && (n as number) >= 0) entries.set(h, n as number);
      } catch {
        entries.clear(); // unreadable: count again
      }
    }
    return new TokenCountCache(file, entries);
  }

  /** cl100k_base tokens of `text` (`countTokens`), from the cache when it holds the text. */
  count(text: string): number {
    const keep = text.length <= 256; // long texts are not kept alive (callers memoise by id)
    const seen = keep ? this.byText.get(text) : undefined;
    if (seen !== undefined) return seen;
    let n: number;
    if (this.file === undefined) n = countTokens(text);
    else {
      const h = textHash(text);
      const hit = this.byHash.get(h);
      if (hit !== undefined) n = hit;
      else {
        n = countTokens(text);
        this.byHash.set(h, n);
        this.dirty = true;
      }
    }
    if (keep) this.byText.set(text, n);
    return n;
  }

  /** Whether counts are kept by text hash (the cache is on): then counts made elsewhere come with their hash (`record`). */
  get byHashes(): boolean {
    return this.file !== undefined;
  }

  /** How many texts' counts the cache holds. */
  get size(): number {
    return this.byHash.size;
  }

  /** The hashes of the texts whose counts the cache holds. */
  knownHashes(): string[] {
    return [...this.byHash.keys()];
  }

  /** The count held for the text of hash `h`. */
  lookup(h: string): number | undefined {
    return this.byHash.get(h);
  }

  /** A count made elsewhere (a worker thread) of the text of hash `h`. */
  record(h: string, n: number): void {
    if (this.file === undefined || this.byHash.get(h) === n) return;
    this.byHash.set(h, n);
    this.dirty = true;
  }

  /** Writes new entries (atomically); a no-op when nothing was added. */
  save(): void {
    if (this.file === undefined || !this.dirty) return;
    const keys = [...this.byHash.keys()].sort();
    writeFileAtomic(this.file, '{' + keys.map((k) => `"${k}":${this.byHash.get(k)!}`).join(',') + '}\n');
    this.dirty = false;
  }
}

/** What a corpus's counts are keyed by: the skills file's bytes, the SKILL.md field and the skills in order. */
export interface CorpusKey {
  /** SHA-256 of the skills file. */
  skillsSha256: string;
  /** The field read as SKILL.md (undefined: the default). */
  skillMdField: string | undefined;
  /** The skills counted, in the order of the counts. */
  ids: readonly string[];
}

/**
 * The counts of one corpus by skill, so that a warm rerun neither reads nor hashes a SKILL.md:
 * `<cacheDir>/tokens/by-corpus/<key>.json` holds `{"version": 1, "counts": [...]}`, one count per
 * skill of `ids` (-1: not counted yet), for the skills file of that SHA-256 read with that field
 * (a skill's SKILL.md text is a function of those, so entries never go stale). A file that does
 * not parse or does not fit is ignored (counted again and rewritten). Off when the cache is.
 */
export class CorpusTokenCounts {
  private saved: string;

  private constructor(
    private readonly file: string | undefined,
    /** Per skill: its count, -1 when not known. */
    readonly counts: Int32Array,
  ) {
    this.saved = this.text();
  }

  static open(cacheDir: string, useCache: boolean, key: CorpusKey): CorpusTokenCounts {
    const counts = new Int32Array(key.ids.length).fill(-1);
    if (!useCache) return new CorpusTokenCounts(undefined, counts);
    const name = createHash('sha256').update(`skillret-corpus-tokens\u0000cl100k_base-v1\u0000${key.skillsSha256}\u0000${key.skillMdField ?? ''}\u0000${key.ids.join('\n')}`, 'utf8').digest('hex');
    const file = join(cacheDir, 'tokens', 'by-corpus', `${name}.json`);
    if (existsSync(file)) {
      try {
        const doc = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; counts?: unknown };
        const got = doc.counts;
        if (doc.version === 1 && Array.isArray(got) && got.length === counts.length && got.every((n) => Number.isSafeInteger(n) && n >= -1 && n < 2 ** 31)) {
          counts.set(got as number[]);
        }
      } catch {
        // unreadable: count again
      }
    }
    return new CorpusTokenCounts(file, counts);
  }

  private text(): string {
    return `{"version":1,"counts":[${this.counts.join(',')}]}\n`;
  }

  /** Writes the counts (atomically) when they changed since opening or the last save. */
  save(): void {
    if (this.file === undefined) return;
    const t = this.text();
    if (t === this.saved) return;
    writeFileAtomic(this.file, t);
    this.saved = t;
  }
}
