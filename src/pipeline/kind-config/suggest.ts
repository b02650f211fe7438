/** "Did you mean" for config keys and ids (edit distance). */
import { closest, distance } from 'fastest-levenshtein';

/** ` (did you mean "x"?)` when one allowed value is close, else ` (allowed: a, b, …)`; '' when nothing is allowed. */
export function suggestion(key: string, allowed: readonly string[]): string {
  if (allowed.length === 0) return '';
  const best = closest(key, [...allowed]);
  return distance(key, best) <= Math.max(2, Math.floor(key.length / 3)) ? ` (did you mean "${best}"?)` : ` (allowed: ${allowed.join(', ')})`;
}
