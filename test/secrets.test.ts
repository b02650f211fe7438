/** Secrets in messages and URLs: any 6+ character piece of a secret is masked; credentials in a URL are refused without quoting it. */
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
