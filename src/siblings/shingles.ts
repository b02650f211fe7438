/**
 * Word shingles of a skill and the Jaccard similarity of two shingle sets: the plain definitions
 * the sibling families (families.ts) are built on, and that its fast path is tested against.
 *
 * - Tokens: maximal runs of letters and digits (Unicode `\p{L}\p{N}`), lower-cased.
 * - Shingles of size w: every run of w consecutive tokens, joined by one space; a text of fewer than
 *   w tokens (but at least one) has one shingle, all its tokens; a text without a token has none.
 * - The text of a skill: its name, description and SKILL.md body joined by "\n".
 * - Jaccard(A, B) = |A ∩ B| / |A ∪ B|, computed as that one division of two integers; 0 when both
 *   sets are empty (an empty text is nobody's sibling).
 */

/** The default shingle size (words). */
export const DEFAULT_SHINGLE = 3;

export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The set of w-word shingles of `text`. */
export function shingles(text: string, w: number = DEFAULT_SHINGLE): Set<string> {
  const t = tokens(text);
  const out = new Set<string>();
  if (t.length === 0) return out;
  if (t.length < w) {
    out.add(t.join(' '));
    return out;
  }
  for (let i = 0; i + w <= t.length; i++) out.add(t.slice(i, i + w).join(' '));
  return out;
}

/** The text a skill is shingled from: name, description and SKILL.md body. */
export function skillText(s: { name: string; description: string; skillMd: string }): string {
  return `${s.name}\n${s.description}\n${s.skillMd}`;
}

/** Jaccard similarity of two sets, by the plain definition (0 for two empty sets). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}
