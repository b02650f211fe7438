/**
 * Reads that do not progress have a time cap (issue 28, bounded reads): a server that sends its
 * headers and then nothing more ends the attempt after `endpoint.idle_timeout_s` (default 60 s)
 * instead of the whole `timeout_s` (default 300 s), is retried like a timeout, and the run ends in
 * one line naming the key path, the method, the URL and the setting, exit 2, with the earlier
 * results and the cache as they were. The server runs on 127.0.0.1 in the test; the cap is set
 * short through the setting, and nothing asserts a duration.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestJson, setBackoffForTesting } from '../../src/remote/http.js';
import { configError, runCli, userError } from '../helpers/cli.js';
import { refusedInOneLine } from '../helpers/fault-suite.js';

const REPO = resolve(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'fault-stall-'));
const out = join(dir, 'out');
const cache = join(dir, 'cache');

let server: Server;
let base = '';
let requests = 0;
const open: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    // Headers and the first bytes of a JSON answer, then nothing, never an end.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":[');
    open.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => setBackoffForTesting(null));
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('a stalled answer ends at the idle cap', () => {
  it('requestJson: one line naming the setting, after the retries, never the whole timeout', async () => {
    setBackoffForTesting({ sleep: async () => {} });
    requests = 0;
    const url = `${base}/embed`;
    const m = await userError(requestJson({ label: 'retrievers.e.endpoint', timeoutS: 10, idleTimeoutS: 0.2, maxRetries: 1 }, 'POST', url, { inputs: ['x'] }));
    expect(m).toBe(`retrievers.e.endpoint: POST ${url}: the answer stalled: no byte for 0.2 s after its headers (endpoint.idle_timeout_s) (after 2 attempts)`);
    expect(requests).toBe(2);
  });

  it('idle_timeout_s is checked with the config: a positive number of seconds', () => {
    const text = [
      'name: x',
      'dataset: { path: /d }',
      'retrievers:',
      '  - { id: e, type: dense, model: intfloat/e5-large-v2, endpoint: { url: "http://127.0.0.1:1/v1", api: openai, idle_timeout_s: 0 } }',
      'output: /o',
    ].join('\n');
    expect(configError(text)).toBe('/cfg/x.yaml:4: retrievers[0].endpoint.idle_timeout_s: expected number to be >0, got number 0');
    expect(() => configError(text.replace('idle_timeout_s: 0', 'idle_timeout_s: 0.5'))).toThrow('expected a UserError');
  });

  it('a run whose embedding server stalls: exit 2, one line, the earlier results and the cache unchanged', async () => {
    const good = join(dir, 'good.yaml');
    writeFileSync(
      good,
      ['name: stall', `dataset: { path: ${JSON.stringify(join(REPO, 'data', 'mini'))}, split: test }`, 'retrievers:', '  - { id: bm25, type: bm25, top_k: 20 }', 'stats: { iterations: 200 }', `output: ${JSON.stringify(out)}`, ''].join('\n'),
    );
    expect((await runCli(['run', good, '--offline', '-q', '--cache-dir', cache])).code).toBe(0);
    const cfg = join(dir, 'stall.yaml');
    writeFileSync(
      cfg,
      [
        'name: stall',
        `dataset: { path: ${JSON.stringify(join(REPO, 'data', 'mini'))}, split: test }`,
        'retrievers:',
        `  - { id: remote, type: dense, model: intfloat/e5-large-v2, top_k: 20, endpoint: { url: "${base}/v1", api: openai, idle_timeout_s: 0.2, max_retries: 0 } }`,
        'stats: { iterations: 200 }',
        `output: ${JSON.stringify(out)}`,
        '',
      ].join('\n'),
    );
    await refusedInOneLine(
      ['run', cfg, '--offline', '-q', '--cache-dir', cache],
      new RegExp(`^retrievers\\.remote\\.endpoint: POST ${base.replace(/[.]/g, '\\.')}/v1/embeddings: the answer stalled: no byte for 0\\.2 s after its headers \\(endpoint\\.idle_timeout_s\\)$`),
      { same: [out], kept: [cache] },
    );
  }, 60_000);
});
