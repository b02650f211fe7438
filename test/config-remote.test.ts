/** Config keys of remote inference servers: dense `endpoint:` and the `remote` reranker. */
import { describe, expect, it } from 'vitest';
import { configError } from './helpers/cli.js';
import { parseConfig } from '../src/pipeline/config.js';
import { endpointFromConfig } from '../src/pipeline/kind-config/config-parts.js';
import { formatPlan } from '../src/pipeline/plan.js';

const base = (retriever: string, reranker = '{ id: none }') => `name: remote
dataset: { path: ../data/mini }
retrievers:
${retriever}
rerankers:
  - ${reranker}
output: ../results/remote
`;

const dense = (endpoint: string, extra = '') => `  - id: e5
    type: dense
    model: intfloat/e5-large-v2${extra}
    endpoint: ${endpoint}`;

const remoteReranker = (endpoint: string) => `{ id: rr, type: remote, model: BAAI/bge-reranker-v2-m3, depth: 10, endpoint: ${endpoint} }`;

const err = (text: string): string => configError(text);

describe('config: remote endpoints', () => {
  it('accepts a dense endpoint and a remote reranker, keeping the local keys optional', () => {
    const c = parseConfig(
      base(
        dense('{ url: "http://127.0.0.1:8080/v1", api: openai, api_key_env: MY_KEY, timeout_s: 30, max_retries: 2, concurrency: 8, batch_size: 16 }'),
        remoteReranker('{ url: "http://127.0.0.1:8081", api: tei }'),
      ),
      '/cfg/x.yaml',
    );
    const r = c.retrievers[0]!;
    expect(r).toEqual({
      id: 'e5',
      type: 'dense',
      model: 'intfloat/e5-large-v2',
      endpoint: { url: 'http://127.0.0.1:8080/v1', api: 'openai', api_key_env: 'MY_KEY', timeout_s: 30, max_retries: 2, concurrency: 8, batch_size: 16 },
      top_k: 20,
      index: { type: 'exact' },
    });
    expect(c.rerankers[0]).toEqual({ id: 'rr', type: 'remote', model: 'BAAI/bge-reranker-v2-m3', depth: 10, oracle: false, group: 'rr', endpoint: { url: 'http://127.0.0.1:8081', api: 'tei' } });
    if (r.type !== 'dense' || !r.endpoint) throw new Error('unreachable');
    expect(endpointFromConfig(r.endpoint)).toEqual({ url: 'http://127.0.0.1:8080/v1', api: 'openai', apiKeyEnv: 'MY_KEY', timeoutS: 30, maxRetries: 2, concurrency: 8, batchSize: 16 });
    // The model name of a served model is not a path: it stays as written.
    const plan = formatPlan(c, { cacheDir: '/tmp/c', offline: false, useCache: true });
    expect(plan).toContain('dense model=intfloat/e5-large-v2');
    expect(plan).toContain('"url":"http://127.0.0.1:8080/v1"');
    expect(plan).toContain('- rr: remote model=BAAI/bge-reranker-v2-m3 depth=10');
  });

  it('suggests endpoint keys and names the allowed APIs per stage', () => {
    expect(err(base(dense('{ url: "http://h:1", api: tei, apikey_env: K }')))).toBe(
      '/cfg/x.yaml:7: retrievers[0].endpoint.apikey_env: unknown key (did you mean "api_key_env"?)',
    );
    expect(err(base(dense('{ url: "http://h:1", api: tei, key: K }')))).toBe(
      '/cfg/x.yaml:7: retrievers[0].endpoint.key: unknown key (allowed: url, api, api_key_env, timeout_s, idle_timeout_s, max_retries, concurrency, batch_size)',
    );
    expect(err(base(dense('{ url: "http://h:1", api: tei, timout_s: 3 }')))).toMatch(/retrievers\[0\]\.endpoint\.timout_s: unknown key \(did you mean "timeout_s"\?\)/);
    expect(err(base('  - { id: bm25, type: bm25 }', remoteReranker('{ url: "http://h:1", api: cohere, concurency: 2 }')))).toMatch(
      /^\/cfg\/x\.yaml:6: rerankers\[0\]\.endpoint\.concurency: unknown key \(did you mean "concurrency"\?\)$/,
    );
    expect(err(base('  - { id: bm25, type: bm25 }', '{ id: rr, type: remote, model: m, endpiont: { url: "http://h:1", api: tei } }'))).toMatch(
      /rerankers\[0\]\.endpiont: unknown key \(did you mean "endpoint"\?\)/,
    );
    expect(err(base(dense('{ url: "http://h:1", api: cohere }')))).toBe(
      '/cfg/x.yaml:7: retrievers[0].endpoint.api: expected one of "openai", "tei", got "cohere"',
    );
    expect(err(base('  - { id: bm25, type: bm25 }', remoteReranker('{ url: "http://h:1", api: openai }')))).toMatch(
      /rerankers\[0\]\.endpoint\.api: expected one of "tei", "cohere", got "openai"/,
    );
    expect(err(base('  - { id: bm25, type: bm25 }', '{ id: rr, type: remote, model: m }'))).toMatch(/rerankers\[0\]\.endpoint: missing/);
    expect(err(base('  - { id: bm25, type: bm25 }', '{ id: rr, type: remotee, model: m }'))).toMatch(
      /rerankers\[0\]\.type: expected one of none, cross-encoder, qwen3, remote, got "remotee" \(did you mean "remote"\?\)/,
    );
  });

  it('keeps secrets out of configs and messages: no credentials or query in the URL, a variable NAME for the key', () => {
    const m1 = err(base(dense('{ url: "https://user:s3cr3t-pw@gpu.example.com/v1", api: openai }')));
    expect(m1).toMatch(/retrievers\[0\]\.endpoint\.url: must not hold credentials/);
    expect(m1).not.toContain('s3cr3t-pw');
    const m2 = err(base(dense('{ url: "https://gpu.example.com/v1?api_key=s3cr3t-q", api: openai }')));
    expect(m2).toMatch(/endpoint\.url: must not hold a query string/);
    expect(m2).not.toContain('s3cr3t-q');
    const m3 = err(base(dense('{ url: "https://gpu.example.com/v1", api: openai, api_key_env: sk-proj-AbC123xyz }')));
    expect(m3).toMatch(/endpoint\.api_key_env: expected the NAME of an environment variable/);
    expect(m3).not.toContain('AbC123xyz');
    expect(err(base(dense('{ url: "gpu.example.com:8080", api: tei }')))).toMatch(/endpoint\.url: expected an? http/);
    expect(err(base(dense('{ url: "ftp://gpu.example.com", api: tei }')))).toMatch(/endpoint\.url: expected an http or https URL, got a ftp URL/);
    expect(err(base(dense('{ url: "http://h:1", api: tei, timeout_s: 0 }')))).toMatch(/endpoint\.timeout_s: expected number to be >0/);
    expect(err(base(dense('{ url: "http://h:1", api: tei, max_retries: -1 }')))).toMatch(/endpoint\.max_retries: expected number to be >=0/);
    expect(err(base(dense('{ url: "http://h:1", api: tei, batch_size: 0 }')))).toMatch(/endpoint\.batch_size: expected number to be >=1/);
  });

  it('checks a remote reranker depth against every retriever top_k like any reranker', () => {
    expect(err(base('  - { id: bm25, type: bm25, top_k: 5 }', remoteReranker('{ url: "http://h:1", api: tei }')))).toMatch(
      /rerankers\[0\]\.depth: depth 10 exceeds retrievers\[0\] \("bm25"\) top_k 5/,
    );
  });
});
