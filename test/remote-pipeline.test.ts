/**
 * `skillret-eval run` end to end with a remote dense retriever (OpenAI API) and a remote
 * reranker (TEI API) served on 127.0.0.1 by a fake server: the normal results folder, a warm
 * rerun that sends no request and writes byte-identical results, the key nowhere in the
 * output, one-line errors for a bad key and for a non-loopback server offline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setBackoffForTesting } from '../src/remote/http.js';
import { startFakeServer, type FakeServer } from './helpers/remote-server.js';

const root = resolve(__dirname, '..');
const KEY = 'sk-pipe-Vb3nR8eQ5u-secret';
const RESULT_FILES = ['metrics.json', 'run.trec', 'per-query.jsonl'];
const RUNS = ['remote-e5/none', 'remote-e5/remote-rr'];

const cli = runCli;

function configIn(dir: string, url: string, rerankUrl: string): string {
  const f = join(dir, 'remote.yaml');
  writeFileSync(
    f,
    `name: remote
dataset: { path: ${join(root, 'data/mini')} }
retrievers:
  - id: remote-e5
    type: dense
    model: intfloat/e5-large-v2
    endpoint: { url: "${url}", api: openai, api_key_env: SKILLRET_PIPE_KEY, batch_size: 8, concurrency: 2 }
    top_k: 20
rerankers:
  - { id: none }
  - id: remote-rr
    type: remote
    model: BAAI/bge-reranker-v2-m3
    depth: 10
    endpoint: { url: "${rerankUrl}", api: tei, api_key_env: SKILLRET_PIPE_KEY, batch_size: 5 }
stats: { iterations: 200 }
cache_dir: ${join(dir, 'cache')}
output: ${join(dir, 'out')}
`,
  );
  return f;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

let server: FakeServer;
beforeAll(async () => {
  setBackoffForTesting({ baseMs: 5, maxMs: 20 });
  server = await startFakeServer({ key: KEY });
});
afterAll(async () => {
  setBackoffForTesting(null);
  await server.close();
  delete process.env.SKILLRET_PIPE_KEY;
});

describe('run with remote inference servers', () => {
  it('writes the results folder; a warm rerun sends nothing and is byte-identical; the key is nowhere', async () => {
    process.env.SKILLRET_PIPE_KEY = KEY;
    const dir = mkdtempSync(join(tmpdir(), 'remote-pipe-'));
    const cfg = configIn(dir, `${server.url}/v1`, server.url);
    const out = join(dir, 'out');
    const first = await cli(['run', cfg, '-q']);
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    for (const r of RUNS) for (const f of RESULT_FILES) expect(existsSync(join(out, r, f))).toBe(true);
    // 45 skills in batches of 8 (6 requests), 21 queries (3), one probe; 21 queries × 10 pairs in batches of 5.
    expect(server.to('/v1/embeddings')).toHaveLength(10);
    expect(server.to('/rerank')).toHaveLength(42);
    expect(server.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);

    const trec = readFileSync(join(out, 'remote-e5/none/run.trec'), 'utf8').trim().split('\n');
    expect(trec).toHaveLength(21 * 20);
    const reranked = readFileSync(join(out, 'remote-e5/remote-rr/per-query.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(reranked).toHaveLength(21);
    expect(reranked.every((q) => q.retrieved.length === 10)).toBe(true);
    const metrics = JSON.parse(readFileSync(join(out, 'remote-e5/none/metrics.json'), 'utf8'));
    expect(metrics.metrics['NDCG@10']).toBeGreaterThan(0.1); // bag-of-words vectors do retrieve

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const dense = manifest.stages.find((s: { id: string }) => s.id === 'remote-e5');
    expect(dense.info).toMatchObject({ type: 'dense', remote: true, endpoint: { url: `${server.url}/v1`, api: 'openai', auth: 'bearer key from $SKILLRET_PIPE_KEY' } });
    const rr = manifest.stages.find((s: { id: string }) => s.id === 'remote-rr');
    expect(rr.params.resolved.endpoint).toMatchObject({ url: `${server.url}/`, api: 'tei' });

    const snapshot = () => Object.fromEntries(RUNS.flatMap((r) => RESULT_FILES.map((f) => [`${r}/${f}`, readFileSync(join(out, r, f))])));
    const before = snapshot();
    server.requests.length = 0;
    const second = await cli(['run', cfg]);
    expect(second.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    const after = snapshot();
    for (const k of Object.keys(before)) expect(after[k]!.equals(before[k]!), k).toBe(true);

    for (const f of [...filesUnder(out), ...filesUnder(join(dir, 'cache'))]) expect(readFileSync(f).includes(KEY), f).toBe(false);
    expect(first.out + second.out + second.err).not.toContain(KEY);
  });

  it('a rejected key is one line on stderr (exit 2) without the key', async () => {
    process.env.SKILLRET_PIPE_KEY = 'sk-wrong-Jt6cY1pLd0';
    const dir = mkdtempSync(join(tmpdir(), 'remote-pipe-'));
    const r = await cli(['run', configIn(dir, `${server.url}/v1`, server.url), '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `skillret-eval: retrievers.remote-e5.endpoint: POST ${server.url}/v1/embeddings: HTTP 401 Unauthorized: {"error":"invalid api key: ***"} (check the key in $SKILLRET_PIPE_KEY)\n`,
    );
    expect(r.err).not.toContain('Jt6cY1pLd0');
  });

  it('--offline refuses a non-loopback server with one line before any work, and allows a loopback one', async () => {
    process.env.SKILLRET_PIPE_KEY = KEY;
    const dir = mkdtempSync(join(tmpdir(), 'remote-pipe-'));
    server.requests.length = 0;
    const cfg = configIn(dir, 'https://gpu.example.com/v1', server.url);
    const r = await cli(['run', cfg, '--offline', '-q']);
    expect(r.code).toBe(2);
    // Like every problem the plan's check finds: the config file, the key's line and path.
    expect(r.err).toBe(
      `skillret-eval: ${cfg}:7: retrievers[0].endpoint.url: offline, and https://gpu.example.com/v1 is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)\n`,
    );
    expect(server.requests).toHaveLength(0);
    // Checked before any stage runs: the loopback retriever sends nothing either.
    const r2 = await cli(['run', configIn(dir, `${server.url}/v1`, 'http://10.1.2.3:8081'), '--offline', '-q']);
    expect(r2.err).toBe(
      `skillret-eval: ${cfg}:15: rerankers[1].endpoint.url: offline, and http://10.1.2.3:8081/ is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)\n`,
    );
    expect(server.requests).toHaveLength(0);
    // A loopback server is allowed offline.
    const r3 = await cli(['run', configIn(dir, `${server.url}/v1`, server.url), '--offline', '-q']);
    expect(r3.code).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
  });
});
