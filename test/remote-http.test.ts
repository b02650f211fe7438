/** src/remote/http.ts against a real server on 127.0.0.1: retries, Retry-After, timeouts, errors, the key. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { userError as oneLineUserError } from './helpers/cli.js';
import { createServer } from 'node:net';
import { excerpt, isRetryableStatus, parseRetryAfter, requestJson, setBackoffForTesting, newHttpStats, type HttpTarget } from '../src/remote/http.js';
import { apiUrl, assertAllowedOffline, isLoopbackHost, publicUrl, resolveEndpoint, urlProblem } from '../src/remote/endpoint.js';
import { startFakeServer, type FakeServer } from './helpers/remote-server.js';

const KEY = 'sk-test-Zq81hV0pX3-remote-http';
let server: FakeServer;

/** A one-line UserError that never shows the API key. */
async function userError(p: Promise<unknown>): Promise<string> {
  const m = await oneLineUserError(p);
  expect(m).not.toContain(KEY);
  return m;
}

const target = (o: Partial<HttpTarget> = {}): HttpTarget => ({ label: 'retrievers.x.endpoint', timeoutS: 5, maxRetries: 3, ...o });

beforeAll(async () => {
  setBackoffForTesting({ baseMs: 5, maxMs: 20 });
  server = await startFakeServer({ key: KEY });
});
afterAll(async () => {
  setBackoffForTesting(null);
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
  server.script.length = 0;
  server.delayMs = 0;
  delete process.env.SKILLRET_TEST_KEY;
});

describe('requestJson', () => {
  it('sends the key from the named variable as a bearer token, read at call time', async () => {
    process.env.SKILLRET_TEST_KEY = KEY;
    const json = await requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY' }), 'GET', `${server.url}/info`);
    expect(json).toMatchObject({ model_id: 'fake/tei-model', model_sha: 'rev-1' });
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    delete process.env.SKILLRET_TEST_KEY;
    expect(await userError(requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY' }), 'GET', `${server.url}/info`))).toBe(
      'retrievers.x.endpoint.api_key_env: environment variable SKILLRET_TEST_KEY is not set or empty (it must hold the API key)',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries 503 and 429 with backoff, then succeeds', async () => {
    process.env.SKILLRET_TEST_KEY = KEY;
    server.script.push({ status: 503, body: 'overloaded' }, { status: 429, body: 'slow down' });
    const stats = newHttpStats();
    const json = await requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY' }), 'POST', `${server.url}/embed`, { inputs: ['a b'], truncate: true }, stats);
    expect(Array.isArray(json)).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual(['/embed', '/embed', '/embed']);
    expect(server.requests.every((r) => JSON.stringify(r.body) === '{"inputs":["a b"],"truncate":true}')).toBe(true);
    expect(stats).toEqual({ requests: 3, retries: 2 });
  });

  it('honours Retry-After (seconds) over its own shorter backoff; exponential backoff with jitter otherwise', async () => {
    process.env.SKILLRET_TEST_KEY = KEY;
    const waits: number[] = [];
    setBackoffForTesting({ baseMs: 10, maxMs: 1000, sleep: async (ms) => void waits.push(ms), random: () => 0.5 });
    try {
      server.script.push({ status: 429, headers: { 'retry-after': '7' }, body: '{}' });
      await requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY' }), 'GET', `${server.url}/info`);
      expect(waits).toEqual([7000]);
      waits.length = 0;
      server.script.push({ status: 503, body: '' }, { status: 503, body: '' }, { status: 502, body: '' });
      await requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY', maxRetries: 3 }), 'GET', `${server.url}/info`);
      expect(waits).toEqual([7.5, 15, 30]); // base 10 doubling, x (0.5 + 0.5 x 0.5)
    } finally {
      setBackoffForTesting({ baseMs: 5, maxMs: 20 });
    }
  });

  it('gives up after max_retries + 1 attempts with one line naming URL, status and body', async () => {
    for (let i = 0; i < 5; i++) server.script.push({ status: 503, body: '{"error": "model is loading",\n  "hint": "please wait"}' });
    const m = await userError(requestJson(target({ maxRetries: 2 }), 'POST', `${server.url}/embed`, { inputs: ['x'] }));
    expect(m).toBe(`retrievers.x.endpoint: POST ${server.url}/embed: HTTP 503 Service Unavailable: {"error": "model is loading", "hint": "please wait"} (after 3 attempts)`);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 401; the message hints at the key and never shows it, even when the server echoes it', async () => {
    process.env.SKILLRET_TEST_KEY = 'sk-wrong-Mm4oXk2Lq9';
    const m = await userError(requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY' }), 'POST', `${server.url}/embed`, { inputs: ['x'] }));
    expect(m).toBe(`retrievers.x.endpoint: POST ${server.url}/embed: HTTP 401 Unauthorized: {"error":"invalid api key: ***"} (check the key in $SKILLRET_TEST_KEY)`);
    expect(m).not.toContain('Mm4oXk2Lq9');
    expect(server.requests).toHaveLength(1);
    const m2 = await userError(requestJson(target(), 'POST', `${server.url}/embed`, { inputs: ['x'] }));
    expect(m2).toMatch(/HTTP 401 Unauthorized: .* \(the server may want a key: set endpoint\.api_key_env\)$/);
  });

  it('times out with one clear line, retrying timeouts', async () => {
    process.env.SKILLRET_TEST_KEY = KEY;
    server.delayMs = 1500;
    const m = await userError(requestJson(target({ apiKeyEnv: 'SKILLRET_TEST_KEY', timeoutS: 0.2, maxRetries: 1 }), 'GET', `${server.url}/info`));
    expect(m).toBe(`retrievers.x.endpoint: GET ${server.url}/info: no response within 0.2 s (endpoint.timeout_s) (after 2 attempts)`);
    expect(server.requests).toHaveLength(2);
  });

  it('reports an unreachable server, a 404 with its hint, and an answer that is not JSON', async () => {
    const free = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const m = await userError(requestJson(target({ maxRetries: 1 }), 'GET', `http://127.0.0.1:${free}/info`));
    expect(m).toBe(`retrievers.x.endpoint: GET http://127.0.0.1:${free}/info: cannot reach the server: ECONNREFUSED (after 2 attempts)`);

    process.env.SKILLRET_TEST_KEY = KEY;
    const t = target({ apiKeyEnv: 'SKILLRET_TEST_KEY', notFoundHint: 'url is the base, e.g. http://host:8000/v1' });
    expect(await userError(requestJson(t, 'POST', `${server.url}/v1/v1/embeddings`, {}))).toBe(
      `retrievers.x.endpoint: POST ${server.url}/v1/v1/embeddings: HTTP 404 Not Found: {"error":"no route POST /v1/v1/embeddings"} (url is the base, e.g. http://host:8000/v1)`,
    );
    server.script.push({ status: 200, body: '<html>proxy login</html>' });
    expect(await userError(requestJson(t, 'GET', `${server.url}/info`))).toBe(`retrievers.x.endpoint: GET ${server.url}/info: the answer is not JSON: <html>proxy login</html>`);
  });
});

describe('http helpers', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('retries 408, 429 and 5xx except 501 and 505', () => {
    expect([400, 401, 403, 404, 408, 413, 422, 429, 500, 501, 502, 503, 504, 505].filter(isRetryableStatus)).toEqual([408, 429, 500, 502, 503, 504]);
  });

  it('cuts, flattens and redacts body excerpts', () => {
    expect(excerpt('a\n\n b  KEY c', 'KEY')).toBe('a b *** c');
    expect(excerpt('x'.repeat(300), undefined)).toBe(`${'x'.repeat(200)}…`);
  });
});

describe('endpoint URLs', () => {
  it('keeps scheme, host and path only, and appends API paths', () => {
    expect(publicUrl('https://gpu.example.com:8443/v1/')).toBe('https://gpu.example.com:8443/v1/');
    expect(apiUrl('http://127.0.0.1:8080', '/embed')).toBe('http://127.0.0.1:8080/embed');
    expect(apiUrl('http://127.0.0.1:8000/v1/', '/embeddings')).toBe('http://127.0.0.1:8000/v1/embeddings');
    expect(apiUrl('https://gw.example.com/tei', '/rerank')).toBe('https://gw.example.com/tei/rerank');
    expect(urlProblem('http://a:b@h/')).toMatch(/credentials/);
    expect(urlProblem('http://h/?k=1')).toMatch(/query string/);
    expect(urlProblem('http://h/#x')).toMatch(/fragment/);
    expect(urlProblem('http://h:8080')).toBeNull();
  });

  it('applies defaults and checks settings', () => {
    expect(resolveEndpoint({ url: 'http://h:1', api: 'tei' }, (k) => `e.${k}`)).toEqual({ url: 'http://h:1', api: 'tei', timeoutS: 300, idleTimeoutS: 60, maxRetries: 4, concurrency: 4, batchSize: 32 });
    expect(resolveEndpoint({ url: 'http://h:1', api: 'tei' }, (k) => `e.${k}`, 8).batchSize).toBe(8);
    expect(() => resolveEndpoint({ url: 'http://h:1', api: 'tei', concurrency: 0 }, (k) => `e.${k}`)).toThrow('e.concurrency: expected an integer >= 1, got 0');
    expect(() => resolveEndpoint({ url: 'http://h:1', api: 'tei', idleTimeoutS: 0 }, (k) => `e.${k}`)).toThrow('e.idle_timeout_s: expected a positive number of seconds, got 0');
  });

  it('offline allows only loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.9.8.7', '[::1]', '::1', 'api.localhost']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '10.0.0.1', 'gpu.example.com', '128.0.0.1', 'localhost.example.com']) expect(isLoopbackHost(h)).toBe(false);
    expect(() => assertAllowedOffline('http://[::1]:8080', true, 'x.url')).not.toThrow();
    expect(() => assertAllowedOffline('https://gpu.example.com/v1', false, 'x.url')).not.toThrow();
    expect(() => assertAllowedOffline('https://gpu.example.com/v1', true, 'retrievers.e5.endpoint.url')).toThrow(
      'retrievers.e5.endpoint.url: offline, and https://gpu.example.com/v1 is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)',
    );
  });
});
