/**
 * Secrets in text and URLs. `maskSecrets` hides every run of 6 or more characters that also occurs
 * inside a secret (so a server that echoes the key, a prefix of it or any long piece is shown as
 * `***`). `urlCredentialProblem` refuses user:password@ in a URL, and query strings and fragments
 * (where tokens hide), in words that never repeat the URL.
 */

/** The shortest piece of a secret that is masked when it appears in a message. */
export const MIN_SECRET_PIECE = 6;

/** `text` with every stretch of >= 6 characters found inside one of `secrets` replaced by `***`. */
export function maskSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (list.length === 0) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    let best = 0;
    for (const s of list) {
      if (s.length < MIN_SECRET_PIECE) {
        if (text.startsWith(s, i)) best = Math.max(best, s.length);
        continue;
      }
      // Longest L >= 6 with text[i, i+L) inside s (grows while it still occurs).
      let L = MIN_SECRET_PIECE;
      if (i + L > text.length || !s.includes(text.slice(i, i + L))) continue;
      while (i + L < text.length && s.includes(text.slice(i, i + L + 1))) L++;
      best = Math.max(best, L);
    }
    if (best > 0) {
      out += '***';
      i += best;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

/**
 * Why a URL may not be given (credentials, query string, fragment), or null; never quotes the URL.
 * Unparsable URLs are left to the caller's own check.
 */
export function urlCredentialProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return /^[^/]*\/\/[^/]*@/.test(url) ? 'must not hold credentials (user:password@host)' : null;
  }
  if (u.username !== '' || u.password !== '') return 'must not hold credentials (user:password@host)';
  if (u.search !== '' || url.includes('?')) return 'must not hold a query string';
  if (u.hash !== '' || url.includes('#')) return 'must not hold a fragment';
  return null;
}
