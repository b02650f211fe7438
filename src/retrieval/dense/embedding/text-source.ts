/**
 * Texts by position, streamed: what the encoders read instead of holding a corpus in memory. A
 * document store (core/stages.ts `DocStore`, re-reading the skills file) is one; an array is
 * wrapped; `subsetOf` picks positions of another source (the texts a cache does not hold), reading
 * each run of consecutive positions as one range.
 */
import type { Doc, DocStore } from '../../../core/stages.js';
import { MemoryDocStore } from '../../../data/doc-store.js';

export interface TextSource {
  readonly size: number;
  /** Texts of positions [from, to) in order; each is read when the iteration reaches it. */
  texts(from?: number, to?: number): Iterable<string>;
}

/** An array (or a source already) as a source. */
export function textSource(texts: readonly string[] | TextSource): TextSource {
  if (!Array.isArray(texts)) return texts as TextSource;
  const arr = texts as readonly string[];
  return {
    size: arr.length,
    *texts(from = 0, to = arr.length) {
      checkRange(from, to, arr.length);
      for (let i = from; i < to; i++) yield arr[i]!;
    },
  };
}

/** Documents as a store: a store as it is, an array held in memory (the library API, tests). */
export function docStoreOf(docs: readonly Doc[] | DocStore): DocStore {
  return Array.isArray(docs) ? new MemoryDocStore(docs as readonly Doc[]) : (docs as DocStore);
}

/** Positions `positions` (ascending) of `source`, as a source of their own. */
export function subsetOf(source: TextSource, positions: ArrayLike<number>): TextSource {
  for (let j = 1; j < positions.length; j++) {
    if (!(positions[j]! > positions[j - 1]!)) throw new RangeError('subsetOf: positions must be strictly ascending');
  }
  return {
    size: positions.length,
    *texts(from = 0, to = positions.length) {
      checkRange(from, to, positions.length);
      let j = from;
      while (j < to) {
        // One run of consecutive positions, read as one range.
        let k = j + 1;
        while (k < to && positions[k] === positions[k - 1]! + 1) k++;
        yield* source.texts(positions[j]!, positions[k - 1]! + 1);
        j = k;
      }
    },
  };
}

/** Every text of [from, to) of `source` in one array (a bounded range: one batch). */
export function readRange(source: TextSource, from: number, to: number): string[] {
  return [...source.texts(from, to)];
}

function checkRange(from: number, to: number, size: number): void {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > size || from > to) {
    throw new RangeError(`range [${from}, ${to}) outside 0..${size}`);
  }
}
