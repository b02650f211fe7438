/**
 * Secrets in text and URLs. `maskSecrets` hides a secret in every spelling a server may echo it in
 * (as is, reversed, base64, URL-encoded, hex) and any word of 6+ characters that is a piece of it
 * (a prefix a server echoes), and nothing else. `urlCredentialProblem` refuses user:password@ in a URL, and query strings and fragments
 * (where tokens hide), in words that never repeat the URL.
 */

/** The shortest piece of a secret that is masked when it stands as a word of its own. */
export const MIN_SECRET_PIECE = 6;

const reverse = (s: string) => [...s].reverse().join('');

/** The spellings of a secret a server may echo: as is, reversed, base64 (padded or not, URL-safe), URL-encoded, hex. */
export function secretSpellings(secret: string): string[] {
  const b64 = Buffer.from(secret, 'utf8').toString('base64');
  const b64url = Buffer.from(secret, 'utf8').toString('base64url');
  return [...new Set([secret, reverse(secret), b64, b64.replace(/=+$/, ''), b64url, encodeURIComponent(secret), Buffer.from(secret, 'utf8').toString('hex')])].filter((x) => x !== '');
}

/**
 * `text` with every secret hidden as `***`: each spelling of a secret (`secretSpellings`) wherever it
 * occurs, every word (a run of letters, digits, `_` and `-`) of 6 or more characters that is a
 * piece of a secret or of its reversal (a server that echoes a prefix of the key), and any stretch
 * of 10 or more characters of one glued to other text. Other text is left as it is, even where it
 * shares a few characters with a secret (a revision hash, an id).
 */
export function maskSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (list.length === 0) return text;
  let out = text;
  const spellings = [...new Set(list.flatMap(secretSpellings))].sort((a, b) => b.length - a.length);
  for (const v of spellings) out = out.split(v).join('***');
  const pieces = list.flatMap((s) => [s, reverse(s)]);
  out = out.replace(/[A-Za-z0-9_-]+/g, (word) => (word.length >= MIN_SECRET_PIECE && pieces.some((p) => p.includes(word)) ? '***' : word));
  return maskEmbedded(out, pieces);
}

/** A piece this long of a secret is masked wherever it is, even glued to other characters. */
export const MIN_EMBEDDED_PIECE = 10;

/** `text` with every stretch of ≥ MIN_EMBEDDED_PIECE characters found inside one of `pieces` replaced by `***`. */
function maskEmbedded(text: string, pieces: readonly string[]): string {
  const long = pieces.filter((p) => p.length >= MIN_EMBEDDED_PIECE);
  if (long.length === 0) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    let best = 0;
    for (const s of long) {
      let L = MIN_EMBEDDED_PIECE;
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

/**
 * Why `url` cannot be a hub endpoint: not a URL, or not http(s). A `file://` (or any other) URL can
 * never be downloaded from, so it is refused at once in one line instead of being retried with
 * backoff as if the network were down. Null when it is an http or https URL.
 */
export function hubUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'expected a URL like https://huggingface.co';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${JSON.stringify(url)} is a ${u.protocol.replace(/:$/, '')}: URL; a hub endpoint is an http or https URL like https://huggingface.co`;
  return null;
}
