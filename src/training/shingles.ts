/**
 * Query text as the leakage audit compares it (training/leakage.ts):
 * - normalisation (exact duplicates): Unicode NFKC, lower case, every run of characters that are
 *   not letters or digits (`[^\p{L}\p{N}]+`: spaces, punctuation, symbols) turned into one space,
 *   the ends trimmed. Two queries are exact duplicates when their normalised texts are equal.
 * - word shingles: the normalised text's words (split at its single spaces), every run of `k`
 *   consecutive words joined by one space, as a set (sorted, no repeats). A text of fewer than `k`
 *   words is one shingle, itself; a text with no word has no shingle.
 * - Jaccard: |A ∩ B| / |A ∪ B| of two shingle sets, computed exactly (two empty sets: 0).
 */

export function normalizeQuery(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Code-unit order, the order `wordShingles` sorts by and `jaccard` merges in. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The set of `k`-word shingles of a normalised text, sorted by code unit, without repeats. */
export function wordShingles(normalized: string, k: number): string[] {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`shingle size must be a positive integer, got ${k}`);
  if (normalized === '') return [];
  const words = normalized.split(' ');
  if (words.length <= k) return [words.join(' ')];
  const set = new Set<string>();
  for (let i = 0; i + k <= words.length; i++) set.add(words.slice(i, i + k).join(' '));
  return [...set].sort(byCodeUnit);
}

/** Exact Jaccard of two shingle sets as `wordShingles` returns them (sorted by code unit, no repeats). */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < a.length && j < b.length) {
    const c = byCodeUnit(a[i]!, b[j]!);
    if (c === 0) {
      common++;
      i++;
      j++;
    } else if (c < 0) i++;
    else j++;
  }
  const union = a.length + b.length - common;
  return union === 0 ? 0 : common / union;
}
