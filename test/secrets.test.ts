/** Secrets in messages and URLs: a secret in every spelling a server may echo and any 6+ character word that is a piece of it are masked, nothing else; credentials in a URL are refused without quoting it. */
import { describe, expect, it } from 'vitest';
import { maskSecrets, urlCredentialProblem } from '../src/util/secrets.js';
import { redact } from '../src/remote/http.js';

const KEY = 'sk-live-Mm4oXk2Lq9Zz';

describe('maskSecrets', () => {
  it('masks the whole secret, a prefix, a suffix or any inner piece of 6+ characters', () => {
    expect(maskSecrets(`bad key ${KEY}!`, [KEY])).toBe('bad key ***!');
    expect(maskSecrets('invalid api key: sk-live-Mm4o…', [KEY])).toBe('invalid api key: ***…');
    expect(maskSecrets('ends with Lq9Zz? no: 2Lq9Zz', [KEY])).toBe('ends with Lq9Zz? no: ***');
    expect(maskSecrets('inner oXk2Lq here', [KEY])).toBe('inner *** here');
    expect(maskSecrets('short sk-li stays', [KEY])).toBe('short sk-li stays');
    expect(maskSecrets('nothing', [undefined, ''])).toBe('nothing');
    expect(redact(`{"error":"key sk-live-Mm4oX not valid"}`, KEY)).toBe('{"error":"key *** not valid"}');
  });
  it('masks the key echoed reversed, base64-encoded (padded, unpadded, URL-safe), URL-encoded or in hex', () => {
    const rev = [...KEY].reverse().join('');
    const b64 = Buffer.from(KEY).toString('base64');
    for (const echoed of [rev, b64, b64.replace(/=+$/, ''), Buffer.from(KEY).toString('base64url'), encodeURIComponent(KEY), Buffer.from(KEY).toString('hex')]) {
      expect(maskSecrets(`server says: ${echoed}.`, [KEY]), echoed).toBe('server says: ***.');
    }
    const odd = 'k+y/=ü&x ?';
    expect(maskSecrets(`got ${encodeURIComponent(odd)} and ${Buffer.from(odd).toString('base64')}`, [odd])).toBe('got *** and ***');
  });
  it('leaves other text alone, even where it shares characters with the key', () => {
    const hex = 'a3f9c2e1b7d4a3f9c2e1b7d4a3f9c2e1b7d4a3f9';
    const key = 'hf_a3f9c2e1Zq';
    expect(maskSecrets(`revision ${hex} of model; key hf_a3f9c2e1Zq`, [key])).toBe(`revision ${hex} of model; key ***`);
    expect(maskSecrets('sk-live-Mm4oXk is not oXk2Lq9', [KEY])).toBe('*** is not ***');
    expect(maskSecrets('the word Mm4oXk2Lq9Zzz has one character more', [KEY])).toBe('the word ***z has one character more');
  });
});

describe('urlCredentialProblem', () => {
  it('refuses user:password@, query strings and fragments without quoting the URL', () => {
    expect(urlCredentialProblem('http://user:pw-secret@host:8080/x')).toBe('must not hold credentials (user:password@host)');
    expect(urlCredentialProblem('http://token@host/')).toBe('must not hold credentials (user:password@host)');
    expect(urlCredentialProblem('https://hub.example/?token=abc')).toBe('must not hold a query string');
    expect(urlCredentialProblem('https://hub.example/#t')).toBe('must not hold a fragment');
    expect(urlCredentialProblem('https://huggingface.co')).toBeNull();
  });
});
