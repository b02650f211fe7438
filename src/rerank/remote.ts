/**
 * A reranking server (TEI /rerank, or Cohere/Jina/vLLM/Infinity-style /rerank) as a `Reranker`:
 * pairs are grouped by query (one request scores one query against up to `batch_size`
 * documents), `concurrency` requests in flight, behind the same windowed wrapper
 * (windowed-reranker.ts) and on-disk score cache as local rerankers. The score cache key covers the API, the model name and (per pair) the
 * query and document text; not the URL, so a moved server keeps its cache.
 */
import pLimit from 'p-limit';
import { UserError } from '../core/errors.js';
import type { StageContext } from '../core/context.js';
import { assertAllowedOffline, endpointRecord, publicUrl, resolveEndpoint } from '../remote/endpoint.js';
import { RemoteRerankClient } from '../remote/rerank.js';
import { offlineFromEnv } from '../util/paths.js';
import { WindowedReranker } from './windowed-reranker.js';
import { ScoreCache, scorerKey } from './score-cache.js';
import { CacheStore } from '../cache/store.js';
import { withScorePrecision } from './rerank.js';
import type { RemoteRerankerSpec, RerankPair, Reranker, RerankStats } from './types.js';

/** Bump when a change alters remote scores for the same server and model (invalidates their cache). */
const REMOTE_SCORER_VERSION = 1;

/** Requests of one query's documents: its pair indices in chunks of `batchSize`, queries in first-appearance order. */
export function groupByQuery(pairs: readonly RerankPair[], batchSize: number): { query: string; idx: number[] }[] {
  const groups = new Map<string, number[]>();
  pairs.forEach((p, i) => {
    const g = groups.get(p.query);
    if (g) g.push(i);
    else groups.set(p.query, [i]);
  });
  const out: { query: string; idx: number[] }[] = [];
  for (const [query, idx] of groups) for (let s = 0; s < idx.length; s += batchSize) out.push({ query, idx: idx.slice(s, s + batchSize) });
  return out;
}

class RemoteScorer implements Reranker {
  private scored = 0;

  constructor(
    private readonly client: RemoteRerankClient,
    private readonly batchSize: number,
    private readonly concurrency: number,
  ) {}

  describe(): Record<string, unknown> {
    return {};
  }

  stats(): RerankStats {
    return { pairs: this.scored, truncatedPairs: 0, cachedPairs: 0 };
  }

  async score(pairs: RerankPair[], onProgress?: (n: number) => void): Promise<number[]> {
    const scores = new Array<number>(pairs.length).fill(NaN);
    const limit = pLimit(this.concurrency);
    let failure: { error: unknown } | undefined;
    await Promise.all(
      groupByQuery(pairs, this.batchSize).map((job) =>
        limit(async () => {
          if (failure) return;
          try {
            const got = await this.client.score(
              job.query,
              job.idx.map((i) => pairs[i]!.doc),
            );
            job.idx.forEach((i, r) => (scores[i] = got[r]!));
            this.scored += job.idx.length;
            onProgress?.(job.idx.length);
          } catch (error) {
            failure ??= { error };
          }
        }),
      ),
    );
    if (failure) throw failure.error;
    return scores;
  }
}

/** A client of the reranking server a spec names, through the score cache (with `ctx.useCache`). */
export async function createRemoteReranker(ctx: StageContext, spec: RemoteRerankerSpec): Promise<Reranker> {
  const label = `rerankers.${spec.id}.endpoint`;
  if (!Number.isInteger(spec.depth) || spec.depth < 1) throw new UserError(`rerankers.${spec.id}.depth: expected a positive integer, got ${spec.depth}`);
  if (spec.model.trim() === '') throw new UserError(`rerankers.${spec.id}.model: empty`);
  const endpoint = resolveEndpoint(spec.endpoint, (k) => `${label}.${k}`);
  assertAllowedOffline(endpoint.url, ctx.offline || offlineFromEnv(), `${label}.url`);
  const client = new RemoteRerankClient(endpoint, spec.model, label);
  const inner = new RemoteScorer(client, endpoint.batchSize, endpoint.concurrency);
  ctx.log(`reranker ${spec.id}: ${endpoint.api} server at ${publicUrl(endpoint.url)} (model ${spec.model})`);

  const identity: Record<string, unknown> = {
    id: spec.id,
    type: 'remote',
    model: spec.model,
    endpoint: endpointRecord(endpoint),
    scores: endpoint.api === 'tei' ? 'raw scores (raw_scores: true, inputs truncated by the server)' : 'relevance_score as the server returns it',
  };

  let cache: ScoreCache | undefined;
  if (ctx.useCache) {
    const key = { v: REMOTE_SCORER_VERSION, remote: endpoint.api, model: spec.model, ...(endpoint.api === 'tei' ? { rawScores: true } : {}) };
    cache = ScoreCache.open(CacheStore.of(ctx), scorerKey(key), key);
  }
  const windowed = new WindowedReranker(inner, { ...(cache ? { cache } : {}), keepOrder: true });
  const reranker: Reranker = {
    describe: () => ({ ...identity, requests: { sent: client.stats.requests, retries: client.stats.retries } }),
    score: (pairs, onProgress) => windowed.score(pairs, onProgress),
    stats: () => windowed.stats(),
    dispose: () => windowed.dispose(),
  };
  // A server's scores are used as it sends them unless the config asks for a precision.
  return spec.scorePrecision !== undefined ? withScorePrecision(reranker, spec.scorePrecision, 'logit') : reranker;
}
