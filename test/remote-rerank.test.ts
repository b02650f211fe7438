/**
 * Reranking through a remote server (TEI /rerank and Cohere-style /v1/rerank) on 127.0.0.1:
 * request bodies, one query per request in batches, scores back in input order, the score
 * cache (a warm rerun sends nothing), errors and the offline guard.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../src/core/errors.js';
import type { StageContext } from '../src/core/context.js';
import { createRemoteReranker as createReranker } from '../src/rerank/remote.js';
import { groupByQuery } from '../src/rerank/remote.js';
import type { RemoteRerankerSpec, RerankPair } from '../src/rerank/types.js';
import { parseCohereRerank, parseTeiRerank, RemoteRerankClient } from '../src/remote/rerank.js';
import { setBackoffForTesting } from '../src/remote/http.js';
import { silentProgress } from '../src/util/progress.js';
import { cosine, startFakeServer, type FakeServer } from './helpers/remote-server.js';

const KEY = 'sk-rr-4Hd8Kp0Ws6-secret';
let server: FakeServer;
const ctxIn = (cacheDir: string, o: Partial<StageContext> = {}): StageContext => ({
  cacheDir,
  useCache: true,
  offline: false,
  progress: silentProgress,
  log: () => {},
  ...o,
});
const tmp = () => mkdtempSync(join(tmpdir(), 'remote-rr-'));

const QUERIES = ['postgres schema migration', 'kubernetes canary rollout', 'blog post seo'];
const DOCS = [
  'online schema migration for postgres tables',
  'helm chart canary rollout on kubernetes',
  'seo keywords for a blog post',
  'terraform vpc module',
  'pandas data report',
];
const PAIRS: RerankPair[] = QUERIES.flatMap((query) => DOCS.map((doc) => ({ query, doc })));

const spec = (o: Partial<RemoteRerankerSpec> = {}): RemoteRerankerSpec => ({
  id: 'rr',
  type: 'remote',
  model: 'BAAI/bge-reranker-v2-m3',
  depth: 5,
  endpoint: { url: server.url, api: 'tei', apiKeyEnv: 'SKILLRET_RR_KEY', batchSize: 2, concurrency: 2 },
  ...o,
});

beforeAll(async () => {
  setBackoffForTesting({ baseMs: 5, maxMs: 20 });
  server = await startFakeServer({ key: KEY });
});
afterAll(async () => {
  setBackoffForTesting(null);
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.script.length = 0;
  process.env.SKILLRET_RR_KEY = KEY;
});

describe('rerank clients', () => {
  it('TEI: {query, texts, truncate, raw_scores}; scores come back in input order', async () => {
    const c = new RemoteRerankClient({ url: server.url, api: 'tei', apiKeyEnv: 'SKILLRET_RR_KEY', timeoutS: 5, idleTimeoutS: 5, maxRetries: 0, concurrency: 1, batchSize: 8 }, 'm', 'rerankers.rr.endpoint');
    const s = await c.score(QUERIES[0]!, DOCS);
    expect(server.requests[0]!.body).toEqual({ query: QUERIES[0], texts: DOCS, truncate: true, raw_scores: true });
    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(s).toEqual(DOCS.map((d) => cosine(QUERIES[0]!, d, 64)));
    expect(s[0]).toBeGreaterThan(s[3]!); // the server answered sorted by score: order was restored
  });

  it('Cohere style: {model, query, documents} to <url>/rerank; results mapped back by index', async () => {
    const c = new RemoteRerankClient({ url: `${server.url}/v1`, api: 'cohere', apiKeyEnv: 'SKILLRET_RR_KEY', timeoutS: 5, idleTimeoutS: 5, maxRetries: 0, concurrency: 1, batchSize: 8 }, 'jina-reranker-v2', 'rerankers.rr.endpoint');
    const s = await c.score(QUERIES[1]!, DOCS);
    expect(server.requests[0]).toMatchObject({ path: '/v1/rerank', body: { model: 'jina-reranker-v2', query: QUERIES[1], documents: DOCS } });
    expect(s).toEqual(DOCS.map((d) => cosine(QUERIES[1]!, d, 64)));
  });

  it('parsers check counts and indices', () => {
    expect(parseTeiRerank([{ index: 1, score: 0.5 }, { index: 0, score: -2 }], 2)).toEqual([-2, 0.5]);
    expect(parseCohereRerank({ results: [{ index: 1, relevance_score: 0.1 }, { index: 0, relevance_score: 0.9 }] }, 2)).toEqual([0.9, 0.1]);
    expect(() => parseTeiRerank([{ index: 0, score: 1 }], 2)).toThrow('1 scores for 2 documents');
    expect(() => parseTeiRerank([{ index: 0, score: 1 }, { index: 0, score: 2 }], 2)).toThrow('index 0 appears twice');
    expect(() => parseCohereRerank({ results: [{ index: 2, relevance_score: 1 }] }, 1)).toThrow('results[0].index 2 is not in 0..0');
    expect(() => parseCohereRerank({ data: [] }, 0)).toThrow(/expected \{"results"/);
    expect(() => parseTeiRerank([{ index: 0, score: 'high' }], 1)).toThrow('[0].score is not a finite number');
  });

  it('groups pairs by query in batches, queries in first-appearance order', () => {
    const pairs = [
      { query: 'a', doc: '1' },
      { query: 'b', doc: '2' },
      { query: 'a', doc: '3' },
      { query: 'a', doc: '4' },
    ];
    expect(groupByQuery(pairs, 2)).toEqual([
      { query: 'a', idx: [0, 2] },
      { query: 'a', idx: [3] },
      { query: 'b', idx: [1] },
    ]);
  });
});

describe('remote reranker', () => {
  it('scores every pair with one query per request, then answers a rerun from the score cache', async () => {
    const cache = tmp();
    const r = await createReranker(ctxIn(cache), spec());
    let progress = 0;
    const scores = await r.score(PAIRS, (n) => (progress += n));
    expect(scores).toEqual(PAIRS.map((p) => cosine(p.query, p.doc, 64)));
    expect(progress).toBe(15);
    const rerank = server.to('/rerank').map((x) => x.body as { query: string; texts: string[] });
    expect(rerank).toHaveLength(9); // 3 queries × ceil(5 / 2)
    expect(rerank.every((b) => b.texts.length <= 2)).toBe(true);
    for (const q of QUERIES) expect(rerank.filter((b) => b.query === q).flatMap((b) => b.texts)).toEqual(DOCS);
    expect(r.describe()).toMatchObject({
      type: 'remote',
      model: 'BAAI/bge-reranker-v2-m3',
      endpoint: { url: `${server.url}/`, api: 'tei', auth: 'bearer key from $SKILLRET_RR_KEY', batchSize: 2, concurrency: 2 },
      requests: { sent: 9, retries: 0 },
    });
    expect(JSON.stringify(r.describe())).not.toContain(KEY);
    await r.dispose?.();

    server.requests.length = 0;
    delete process.env.SKILLRET_RR_KEY;
    const again = await createReranker(ctxIn(cache), spec());
    expect(await again.score(PAIRS)).toEqual(scores);
    expect(server.requests).toHaveLength(0);
    expect(again.stats?.()).toEqual({ pairs: 0, truncatedPairs: 0, cachedPairs: 15 });
  });

  it('a failing server gives one line naming the reranker endpoint; offline refuses a non-loopback server', async () => {
    for (let i = 0; i < 4; i++) server.script.push({ status: 500, body: 'CUDA out of memory' });
    const r = await createReranker(ctxIn(tmp()), spec({ endpoint: { url: server.url, api: 'tei', apiKeyEnv: 'SKILLRET_RR_KEY', maxRetries: 1, concurrency: 1 } }));
    const e = await r.score(PAIRS.slice(0, 2)).catch((x) => x);
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe(`rerankers.rr.endpoint: POST ${server.url}/rerank: HTTP 500 Internal Server Error: CUDA out of memory (after 2 attempts)`);

    const off = await createReranker(ctxIn(tmp(), { offline: true }), spec({ endpoint: { url: 'https://api.cohere.com/v1', api: 'cohere' } })).catch((x) => x);
    expect(off).toBeInstanceOf(UserError);
    expect(off.message).toBe('rerankers.rr.endpoint.url: offline, and https://api.cohere.com/v1 is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)');
  });
});
