/**
 * Dense retrieval through a remote embedding server (OpenAI and TEI wire formats) on 127.0.0.1:
 * request bodies, prefixes by role, batch sizes, answers reordered by index, the embedding
 * cache (zero requests when warm, resume after a failed run, key covers the server's model
 * revision), client-side normalisation, the offline guard.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../src/core/errors.js';
import type { Run } from '../src/core/types.js';
import type { StageContext } from '../src/core/context.js';
import { remoteDenseRetrieve, type RemoteDenseSpec } from '../src/retrieval/dense/remote-retriever.js';
import { parseOpenAiEmbeddings, parseTeiEmbeddings, parseTeiInfo, PROBE_TEXT } from '../src/remote/embeddings.js';
import { setBackoffForTesting } from '../src/remote/http.js';
import { silentProgress } from '../src/util/progress.js';
import { bagOfWords, startFakeServer, type FakeServer } from './helpers/remote-server.js';

const KEY = 'sk-emb-9fQ2wLr7T1-secret';
const DOCS = [
  'postgres online schema migration with an index built concurrently',
  'kubernetes canary rollout with helm charts and health checks',
  'write a blog post with seo keywords and headings',
  'unit economics model lifetime value and acquisition cost',
  'pandas exploratory data analysis report with charts',
  'agent trajectory review to find loops and repeated tool calls',
  'react component testing with playwright and snapshots',
  'terraform module for an aws vpc with private subnets',
  'incident postmortem template with timeline and action items',
  'translate product documentation into german and french',
].map((text, i) => ({ id: `d${i}`, text }));
const QUERIES = [
  { id: 'q1', text: 'how do I run a schema migration on postgres without downtime' },
  { id: 'q2', text: 'canary rollout on kubernetes' },
  { id: 'q3', text: 'lifetime value versus acquisition cost model' },
];

let server: FakeServer;
let logs: string[];
const ctxIn = (cacheDir: string, o: Partial<StageContext> = {}): StageContext => ({
  cacheDir,
  useCache: true,
  offline: false,
  progress: silentProgress,
  log: (l) => logs.push(l),
  ...o,
});
const tmp = () => mkdtempSync(join(tmpdir(), 'remote-emb-'));

const openaiSpec = (o: Partial<RemoteDenseSpec> = {}): RemoteDenseSpec => ({
  id: 'e5',
  model: 'intfloat/e5-large-v2', // a preset: prefixes "query: " / "passage: "
  endpoint: { url: `${server.url}/v1`, api: 'openai', apiKeyEnv: 'SKILLRET_EMB_KEY', batchSize: 4, concurrency: 2 },
  topK: 3,
  index: { type: 'exact' },
  ...o,
});

/** The expected run: float32 dot products of the fake server's vectors, prefixes applied. */
function expectedRun(qp: string, dp: string, k: number, normalize = true): Run {
  const f32 = (t: string) => Float32Array.from(bagOfWords(t, 64, normalize));
  const dv = DOCS.map((d) => f32(dp + d.text));
  const run: Run = new Map();
  for (const q of QUERIES) {
    const qv = f32(qp + q.text);
    const scored = DOCS.map((d, i) => {
      let s = 0;
      for (let j = 0; j < 64; j++) s = Math.fround(s + Math.fround(qv[j]! * dv[i]![j]!));
      return { docId: d.id, score: s };
    });
    scored.sort((a, b) => b.score - a.score || (a.docId < b.docId ? 1 : -1));
    run.set(q.id, scored.slice(0, k));
  }
  return run;
}

function expectRunClose(got: Run, want: Run): void {
  expect([...got.keys()]).toEqual([...want.keys()]);
  for (const [qid, list] of want) {
    const g = got.get(qid)!;
    expect(g.map((x) => x.docId)).toEqual(list.map((x) => x.docId));
    g.forEach((x, i) => expect(x.score).toBeCloseTo(list[i]!.score, 5));
  }
}

const inputsOf = (s: FakeServer, path: string) => s.to(path).map((r) => ((r.body as { input?: string[]; inputs?: string[] }).input ?? (r.body as { inputs: string[] }).inputs));

beforeAll(async () => {
  setBackoffForTesting({ baseMs: 5, maxMs: 20 });
  server = await startFakeServer({ key: KEY, maxClientBatchSize: 3 });
});
afterAll(async () => {
  setBackoffForTesting(null);
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.failFrom = null;
  server.revision = 'rev-1';
  logs = [];
  process.env.SKILLRET_EMB_KEY = KEY;
});

describe('remote dense retrieval, OpenAI API', () => {
  it('prefixes by role, batches, sends the key, reorders answers by index; a warm rerun sends nothing', async () => {
    const cache = tmp();
    const a = await remoteDenseRetrieve(ctxIn(cache), openaiSpec(), DOCS, QUERIES);
    const bodies = server.to('/v1/embeddings').map((r) => r.body as { model: string; input: string[] });
    expect(bodies.every((b) => b.model === 'intfloat/e5-large-v2' && Object.keys(b).join() === 'model,input')).toBe(true);
    expect(bodies[0]!.input).toEqual([PROBE_TEXT]);
    const docBatches = bodies.slice(1).filter((b) => b.input[0]!.startsWith('passage: '));
    const queryBatches = bodies.slice(1).filter((b) => b.input[0]!.startsWith('query: '));
    expect(docBatches.map((b) => b.input.length).sort()).toEqual([2, 4, 4]);
    expect(docBatches.flatMap((b) => b.input).sort()).toEqual(DOCS.map((d) => `passage: ${d.text}`).sort());
    expect(queryBatches.map((b) => b.input)).toEqual([QUERIES.map((q) => `query: ${q.text}`)]);
    expect(server.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);

    expectRunClose(a.run, expectedRun('query: ', 'passage: ', 3));
    expect(a.info.endpoint).toEqual({ url: `${server.url}/v1`, api: 'openai', auth: 'bearer key from $SKILLRET_EMB_KEY', timeoutS: 300, maxRetries: 4, concurrency: 2, batchSize: 4 });
    expect(a.info.model).toMatchObject({ ref: 'intfloat/e5-large-v2', preset: 'e5-large-v2', server: { model: 'intfloat/e5-large-v2', revision: null }, identity: 'asked' });
    expect(a.info.options).toEqual({ queryPrefix: 'query: ', docPrefix: 'passage: ', normalize: 'server default', topK: 3 });
    expect(a.info.requests).toEqual({ sent: 5, retries: 0 });
    expect(a.info.cache.misses).toBe(13);
    expect(a.info.dims).toBe(64);
    expect(JSON.stringify(a.info)).not.toContain(KEY);

    server.requests.length = 0;
    delete process.env.SKILLRET_EMB_KEY; // a warm cache needs no key: nothing is sent
    const b = await remoteDenseRetrieve(ctxIn(cache), openaiSpec(), DOCS, QUERIES);
    expect(server.requests).toHaveLength(0);
    expect(b.run).toEqual(a.run);
    expect(b.info.model.identity).toBe('remembered');
    expect(b.info.cache).toMatchObject({ hits: 13, misses: 0 });
    expect(b.info.requests).toEqual({ sent: 0, retries: 0 });
    for (const f of readdirSync(join(cache, 'remote'))) expect(readFileSync(join(cache, 'remote', f), 'utf8')).not.toContain(KEY);
  });

  it('resumes a failed run: finished batches are kept, only the rest is sent again', async () => {
    const cache = tmp();
    const spec = openaiSpec({ endpoint: { url: `${server.url}/v1`, api: 'openai', apiKeyEnv: 'SKILLRET_EMB_KEY', batchSize: 4, concurrency: 1 } });
    server.failFrom = 3; // probe, first document batch, then HTTP 400
    await expect(remoteDenseRetrieve(ctxIn(cache), spec, DOCS, QUERIES)).rejects.toThrow(/HTTP 400 Bad Request: \{"error":"scripted failure"\}$/);
    expect(inputsOf(server, '/v1/embeddings')[1]).toEqual(DOCS.slice(0, 4).map((d) => `passage: ${d.text}`));
    server.failFrom = null;
    server.requests.length = 0;
    const b = await remoteDenseRetrieve(ctxIn(cache), spec, DOCS, QUERIES);
    const sent = inputsOf(server, '/v1/embeddings');
    expect(sent).toEqual([[PROBE_TEXT], DOCS.slice(4, 8).map((d) => `passage: ${d.text}`), DOCS.slice(8).map((d) => `passage: ${d.text}`), QUERIES.map((q) => `query: ${q.text}`)]);
    expect(b.info.cache.documents).toEqual({ hits: 4, misses: 6 });
    expectRunClose(b.run, expectedRun('query: ', 'passage: ', 3));
  });

  it('normalises client-side when normalize is true; prefixes from the config beat the preset', async () => {
    const scaled = await startFakeServer({ openaiScale: 3 });
    try {
      const spec = (o: Partial<RemoteDenseSpec>) =>
        openaiSpec({ endpoint: { url: `${scaled.url}/v1`, api: 'openai' }, queryPrefix: 'Q: ', docPrefix: '', ...o });
      const raw = await remoteDenseRetrieve(ctxIn(tmp()), spec({}), DOCS, QUERIES);
      expect(raw.run.get('q2')![0]!.score).toBeGreaterThan(2);
      const unit = await remoteDenseRetrieve(ctxIn(tmp()), spec({ normalize: true }), DOCS, QUERIES);
      expectRunClose(unit.run, expectedRun('Q: ', '', 3));
      expect(unit.info.options.normalize).toBe(true);
      expect(scaled.to('/v1/embeddings').slice(-1)[0]!.body).toEqual({ model: 'intfloat/e5-large-v2', input: QUERIES.map((q) => `Q: ${q.text}`) });
    } finally {
      await scaled.close();
    }
  });

  it('warns about local-model options it ignores', async () => {
    await remoteDenseRetrieve(ctxIn(tmp()), openaiSpec({ pooling: 'cls', dtype: 'fp16', maxTokens: 512 }), DOCS, QUERIES);
    expect(logs.filter((l) => l.includes('is ignored with a remote endpoint'))).toEqual([
      'dense e5: pooling is ignored with a remote endpoint (the server decides it)',
      'dense e5: dtype is ignored with a remote endpoint (the server decides it)',
      'dense e5: max_tokens is ignored with a remote endpoint (the server decides it)',
    ]);
  });
});

describe('remote dense retrieval, TEI API', () => {
  const teiSpec = (o: Partial<RemoteDenseSpec> = {}): RemoteDenseSpec => ({
    id: 'tei',
    model: 'my-embedder',
    endpoint: { url: server.url, api: 'tei', apiKeyEnv: 'SKILLRET_EMB_KEY', batchSize: 8 },
    queryPrefix: 'Instruct: find a skill\nQuery: ',
    topK: 2,
    index: { type: 'exact' },
    ...o,
  });

  it('asks /info, keeps to max_client_batch_size, sends truncate (and normalize only when set)', async () => {
    const r = await remoteDenseRetrieve(ctxIn(tmp()), teiSpec(), DOCS, QUERIES);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/info' });
    const bodies = server.to('/embed').map((x) => x.body as Record<string, unknown>);
    expect(bodies.every((b) => Object.keys(b).join() === 'inputs,truncate' && b.truncate === true)).toBe(true);
    expect(bodies.map((b) => (b.inputs as string[]).length).sort()).toEqual([1, 3, 3, 3, 3]);
    expect(logs).toContain("dense tei: batch size 8 lowered to the server's max_client_batch_size 3");
    expect(r.info.model.server).toEqual({ model: 'fake/tei-model', revision: 'rev-1', maxInputLength: 512 });
    expectRunClose(r.run, expectedRun('Instruct: find a skill\nQuery: ', '', 2));

    server.requests.length = 0;
    await remoteDenseRetrieve(ctxIn(tmp()), teiSpec({ normalize: false }), DOCS, QUERIES);
    expect(server.to('/embed').every((x) => (x.body as { normalize?: boolean }).normalize === false)).toBe(true);
  });

  it("the cache key covers the server's reported revision", async () => {
    const cache = tmp();
    await remoteDenseRetrieve(ctxIn(cache), teiSpec(), DOCS, QUERIES);
    server.requests.length = 0;
    server.revision = 'rev-2';
    // A new query misses, so the server is asked who it is: a new revision re-encodes everything.
    const more = [...QUERIES, { id: 'q4', text: 'terraform vpc module' }];
    const b = await remoteDenseRetrieve(ctxIn(cache), teiSpec(), DOCS, more);
    expect(b.info.model.server.revision).toBe('rev-2');
    expect(b.info.cache.documents).toEqual({ hits: 0, misses: 10 });
    expect(inputsOf(server, '/embed').flat()).toHaveLength(14);
    server.requests.length = 0;
    const c = await remoteDenseRetrieve(ctxIn(cache), teiSpec(), DOCS, more);
    expect(server.requests).toHaveLength(0);
    expect(c.run).toEqual(b.run);
    // Back to rev-1 with a cold text: the rev-1 vectors are found again.
    server.revision = 'rev-1';
    const d = await remoteDenseRetrieve(ctxIn(cache), teiSpec(), DOCS, [...more, { id: 'q5', text: 'german translation' }]);
    expect(d.info.cache.documents).toEqual({ hits: 10, misses: 0 });
  });

  it('offline: refuses a non-loopback server before any request, allows a loopback one', async () => {
    const err = await remoteDenseRetrieve(ctxIn(tmp(), { offline: true }), teiSpec({ endpoint: { url: 'https://gpu.example.com', api: 'tei' } }), DOCS, QUERIES).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe('retrievers.tei.endpoint.url: offline, and https://gpu.example.com/ is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)');
    const ok = await remoteDenseRetrieve(ctxIn(tmp(), { offline: true }), teiSpec(), DOCS, QUERIES);
    expect(ok.run.size).toBe(3);
  });
});

describe('embedding answer parsers', () => {
  it('orders OpenAI data by index and checks the shape', () => {
    const a = parseOpenAiEmbeddings({ data: [{ index: 1, embedding: [0, 1] }, { index: 0, embedding: [1, 0] }], model: 'm', usage: { prompt_tokens: 7 } }, 2);
    expect(a.vectors.map((v) => [...v])).toEqual([[1, 0], [0, 1]]);
    expect(a).toMatchObject({ model: 'm', promptTokens: 7 });
    expect(() => parseOpenAiEmbeddings({ data: [{ index: 0, embedding: [1] }] }, 2)).toThrow('1 embeddings for 2 inputs');
    expect(() => parseOpenAiEmbeddings({ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }] }, 2)).toThrow('index 0 appears twice');
    expect(() => parseOpenAiEmbeddings({ data: [{ index: 0, embedding: [1] }, { index: 1, embedding: [1, 2] }] }, 2)).toThrow('different dimensions');
    expect(() => parseOpenAiEmbeddings({ data: [{ index: 0, embedding: 'AAAA' }] }, 1)).toThrow(/base64/);
    expect(() => parseTeiEmbeddings([[1, null]], 1)).toThrow('[0][1] is not a finite number');
    expect(parseTeiInfo({ model_id: 'x', model_sha: null, max_client_batch_size: 16 })).toEqual({ model: 'x', revision: null, maxInputLength: null, maxBatchSize: 16 });
  });
});
