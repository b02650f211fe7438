/**
 * Persisted token counts for the injection operating points, so that a warm rerun does not
 * tokenize the corpus again: store kind `tokens` (cache/store.ts), one entry
 * (`<cacheDir>/tokens/<key>.json`) mapping the key of a text (`textHash`) to its cl100k_base count
 * (token-count.ts). A count is a function of the text alone, so entries never go stale; a damaged entry
 * is reported in the store's one line and its counts made again (and rewritten). Off when the
 * cache is.
 */
import { cacheKey, strings } from '../cache/key.js';
import { CACHE_KINDS, entryKind } from '../cache/kinds.js';
import { CacheStore } from '../cache/store.js';
import { countTokens } from './token-count.js';

export const TOKENS_KIND = entryKind(CACHE_KINDS.tokens, 'cl100k_base-v2');
export const CORPUS_TOKENS_KIND = entryKind(CACHE_KINDS.tokensCorpus, 'corpus-cl100k_base-v2');

/** The cache's key of a text (the store's key scheme over the text). */
export function textHash(text: string): string {
  return cacheKey(TOKENS_KIND.name, ['text', text]);
}

export class TokenCountCache {
  private readonly byHash: Map<string, number>;
  private readonly byText = new Map<string, number>();
  private dirty = false;

  private constructor(
    private readonly file: { store: CacheStore; key: string } | undefined,
    entries: Map<string, number>,
  ) {
    this.byHash = entries;
  }

  /** The cache under `cacheDir` (none when `useCache` is false); `log` gets the store's damage report. */
  static open(cacheDir: string, useCache: boolean, log: (line: string) => void = () => {}): TokenCountCache {
    if (!useCache) return new TokenCountCache(undefined, new Map());
    const store = CacheStore.of({ cacheDir, useCache, log });
    const key = cacheKey(TOKENS_KIND.name, [TOKENS_KIND.format]);
    const entries =
      store.readJson(TOKENS_KIND, key, (doc) => {
        if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a table of counts');
        const m = new Map<string, number>();
        for (const [h, n] of Object.entries(doc)) {
          if (!/^[0-9a-f]{64}$/.test(h) || !Number.isSafeInteger(n) || (n as number) < 0) throw new Error(`bad count for ${h.slice(0, 16)}`);
          m.set(h, n as number);
        }
        return m;
      }) ?? new Map<string, number>();
    return new TokenCountCache({ store, key }, entries);
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
    this.file.store.write(TOKENS_KIND, this.file.key, '{' + keys.map((k) => `"${k}":${this.byHash.get(k)!}`).join(',') + '}\n');
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
 * store kind `tokens-corpus` (`<cacheDir>/tokens/by-corpus/<key>.json`, keyed by the skills file's
 * SHA-256, the SKILL.md field and the skill ids in order) holds `{"counts": [...]}`, one count per
 * skill of `ids` (-1: not counted yet) (a skill's SKILL.md text is a function of those, so entries
 * never go stale). A damaged entry, or one that does not fit, is reported in the store's one line
 * and its counts made again (and rewritten). Off when the cache is.
 */
export class CorpusTokenCounts {
  private saved: string;

  private constructor(
    private readonly file: { store: CacheStore; key: string } | undefined,
    /** Per skill: its count, -1 when not known. */
    readonly counts: Int32Array,
  ) {
    this.saved = this.text();
  }

  /** The counts of the corpus `key` under `cacheDir` (none read or written when `useCache` is false). */
  static open(cacheDir: string, useCache: boolean, key: CorpusKey, log: (line: string) => void = () => {}): CorpusTokenCounts {
    const counts = new Int32Array(key.ids.length).fill(-1);
    if (!useCache) return new CorpusTokenCounts(undefined, counts);
    const store = CacheStore.of({ cacheDir, useCache, log });
    const entry = cacheKey(CORPUS_TOKENS_KIND.name, [CORPUS_TOKENS_KIND.format, key.skillsSha256, key.skillMdField ?? null, strings(key.ids)]);
    const got = store.readJson(CORPUS_TOKENS_KIND, entry, (doc) => {
      const c = (doc as { counts?: unknown } | null)?.counts;
      if (!Array.isArray(c) || c.length !== counts.length) throw new Error('not the counts of this corpus');
      if (!c.every((n) => Number.isSafeInteger(n) && n >= -1 && n < 2 ** 31)) throw new Error('bad count');
      return c as number[];
    });
    if (got !== undefined) counts.set(got);
    return new CorpusTokenCounts({ store, key: entry }, counts);
  }

  private text(): string {
    return `{"counts":[${this.counts.join(',')}]}\n`;
  }

  /** Writes the counts (through the store) when they changed since opening or the last save. */
  save(): void {
    if (this.file === undefined) return;
    const t = this.text();
    if (t === this.saved) return;
    this.file.store.write(CORPUS_TOKENS_KIND, this.file.key, t);
    this.saved = t;
  }
}
