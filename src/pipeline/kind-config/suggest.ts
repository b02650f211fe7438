/** "Did you mean" for config keys and ids (edit distance). */
import { closest, distance } from 'fastest-levenshtein';

/** The allowed value closest to `key` when it is close enough to be a slip, else undefined. */
export function closeMatch(key: string, allowed: readonly string[]): string | undefined {
  if (allowed.length === 0) return undefined;
  const best = closest(key, [...allowed]);
  return distance(key, best) <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** ` (did you mean "x"?)` when one allowed value is close, else ` (allowed: a, b, …)`; '' when nothing is allowed. */
export function suggestion(key: string, allowed: readonly string[]): string {
  if (allowed.length === 0) return '';
  const best = closeMatch(key, allowed);
  return best !== undefined ? ` (did you mean "${best}"?)` : ` (allowed: ${allowed.join(', ')})`;
}
