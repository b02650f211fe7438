/**
 * Dense first stage through a remote embedding server (TEI, vLLM, Infinity, OpenAI-compatible):
 * no local model file is loaded; texts are encoded by the server through the same
 * content-addressed embedding cache, then searched exactly like local vectors (search.ts).
 *
 * Cache key (cache.ts `remoteEmbeddingConfigKey`): API, model name, the model id and revision
 * the server reports, role, prefix, normalisation, text. The server's identity is remembered
 * as the store's `remote` entry keyed by (api, url, model) (`<cacheDir>/remote/<key>.json`; a
 * damaged one is reported in the store's one line and the server asked): when every text is cached under the
 * remembered identity the run sends no request at all; otherwise the server is asked once
 * (tei: GET /info; openai: a one-text request) and texts missing under its answer are encoded.
 *
 * Prefixes come from the config, else from the preset when `model` names one. Pooling, dtype
 * and max_tokens are the server's business: given, they are ignored with a warning.
 */
import type { Run } from '../../core/types.js';
import type { Doc, DocStore } from '../../core/stages.js';
import { UserError } from '../../core/errors.js';
import type { StageContext } from '../../core/context.js';
import { findEmbedderPreset, type EmbedderPreset } from '../../models/embedder-presets.js';
import { cacheKey } from '../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../cache/kinds.js';
import { CacheStore } from '../../cache/store.js';
import { offlineFromEnv } from '../../util/paths.js';
import { RemoteEmbeddingClient, type ServerIdentity } from '../../remote/embeddings.js';
import { RemoteEncoder } from './embedding/remote-encoder.js';
import { assertAllowedOffline, endpointRecord, publicUrl, resolveEndpoint, type EmbeddingApi, type EndpointConfig, type EndpointRecord } from '../../remote/endpoint.js';
import { EmbeddingCache, remoteEmbeddingConfigKey, textKey } from './embedding/embedding-cache.js';
import type { Role } from './embedding/embedder.js';
import { encodeTextsWithCache, rate, stageCacheInfo, type StageCacheInfo } from './embedding/encode-cached.js';
import { toMatrix } from './indexes/exact.js';
import { searchVectors, type IndexInfo, type IndexSpec } from './indexes/search.js';
import { docStoreOf, textSource, type TextSource } from './embedding/text-source.js';

export interface RemoteDenseSpec {
  id: string;
  /** Model name: sent to openai servers, looked up among the presets (prefixes), part of the cache key. */
  model: string;
  endpoint: EndpointConfig<EmbeddingApi>;
  queryPrefix?: string;
  docPrefix?: string;
  /** true: unit vectors (asked for and applied client-side); false: asked for raw vectors (tei only); unset: the server's default. */
  normalize?: boolean;
  /** Fallback for endpoint.batchSize. */
  batchSize?: number;
  /** Threads of the exact search. */
  threads?: number;
  topK: number;
  index: IndexSpec;
  /** Local-model options a server ignores; each one given gets a warning. */
  pooling?: string;
  dtype?: string;
  maxTokens?: number;
}

export interface RemoteDenseInfo {
  id: string;
  model: {
    ref: string;
    preset: string | null;
    paperModel: string | null;
    /** What the server reported serving (from the request of this run, or remembered from an earlier one). */
    server: { model: string | null; revision: string | null; maxInputLength: number | null };
    identity: 'asked' | 'remembered';
  };
  endpoint: EndpointRecord<EmbeddingApi>;
  options: { queryPrefix: string; docPrefix: string; normalize: boolean | 'server default'; topK: number };
  ignoredOptions: string[];
  dims: number;
  requests: { sent: number; retries: number };
  cache: StageCacheInfo;
  throughput: { docsPerSec: number | null; queriesPerSec: number | null };
  timings: Record<string, number>;
  index: IndexInfo;
}

interface Memo {
  api: string;
  url: string;
  model: string;
  server: ServerIdentity;
}

export const REMOTE_KIND = entryKind(CACHE_KINDS.remote, 'remote-identity-v2');

/** The entry key of what the server at `url` said it serves for `model` over `api`. */
export function remoteMemoKey(api: string, url: string, model: string): string {
  return cacheKey(REMOTE_KIND.name, [REMOTE_KIND.format, { api, url: publicUrl(url), model }]);
}

/** The remembered identity of a memo entry's JSON; throws when it holds none. */
export function memoIdentity(v: unknown): ServerIdentity {
  const s = (v as Partial<Memo> | null)?.server;
  if (!s || typeof s !== 'object') throw new Error('no server identity');
  const str = (x: unknown) => (typeof x === 'string' ? x : null);
  const int = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) ? x : null);
  return { model: str(s.model), revision: str(s.revision), maxInputLength: int(s.maxInputLength), maxBatchSize: int(s.maxBatchSize) };
}

/**
 * A preset's prefix for a served model: its own string; its prefix alone ("" without one) where the
 * protocol leaves the role's prompt to the model (the server applies the model's own default
 * prompt, if it is configured so); where the protocol names one of the model's own prompts, which
 * a server does not expose, the text that prompt holds in the official checkpoint, or a refusal
 * when the preset does not know it.
 */
function remotePrefix(id: string, preset: EmbedderPreset | null, role: 'query' | 'document'): string {
  const setting = preset ? (role === 'query' ? preset.queryPrefix : preset.docPrefix) : '';
  if (typeof setting === 'string') return setting;
  if ('ownPrompt' in setting) {
    if (setting.fallback !== undefined) return setting.fallback;
    const key = role === 'query' ? 'query_prefix' : 'doc_prefix';
    throw new UserError(
      `retrievers.${id}.${key}: preset ${preset!.name} uses the model's own "${setting.ownPrompt}" prompt, which a remote server does not expose; set ${key} to that prompt's text (config_sentence_transformers.json of the model)`,
    );
  }
  return setting.prefix ?? '';
}

export async function remoteDenseRetrieve(
  ctx: StageContext,
  spec: RemoteDenseSpec,
  docs: readonly Doc[] | DocStore,
  queries: { id: string; text: string }[],
): Promise<{ run: Run; exactRun?: Run; info: RemoteDenseInfo }> {
  if (!Number.isInteger(spec.topK) || spec.topK < 1) throw new UserError(`retrievers.${spec.id}.top_k: must be a positive integer`);
  const label = `retrievers.${spec.id}.endpoint`;
  const endpoint = resolveEndpoint(spec.endpoint, (k) => `${label}.${k}`, spec.batchSize);
  assertAllowedOffline(endpoint.url, ctx.offline || offlineFromEnv(), `${label}.url`);
  const timings: Record<string, number> = {};

  const ignoredOptions = (
    [
      ['pooling', spec.pooling],
      ['dtype', spec.dtype],
      ['max_tokens', spec.maxTokens],
    ] as const
  )
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  for (const k of ignoredOptions) ctx.log(`dense ${spec.id}: ${k} is ignored with a remote endpoint (the server decides it)`);

  const preset = findEmbedderPreset(spec.model) ?? null;
  const queryPrefix = spec.queryPrefix ?? remotePrefix(spec.id, preset, 'query');
  const docPrefix = spec.docPrefix ?? remotePrefix(spec.id, preset, 'document');
  const normalize = spec.normalize ?? null;
  if (normalize === false && endpoint.api === 'openai') {
    ctx.log(`dense ${spec.id}: normalize: false cannot be asked of an openai endpoint; vectors are used as the server returns them`);
  }
  const client = new RemoteEmbeddingClient(endpoint, spec.model, label);
  ctx.log(`dense ${spec.id}: ${endpoint.api} server at ${publicUrl(endpoint.url)} (model ${spec.model})`);
  const keyOf = (server: ServerIdentity, role: Role) =>
    remoteEmbeddingConfigKey({
      api: endpoint.api,
      model: spec.model,
      serverModel: server.model,
      serverRevision: server.revision,
      role,
      prefix: role === 'query' ? queryPrefix : docPrefix,
      normalize,
    });
  const cacheOpts = { cacheDir: ctx.cacheDir, useCache: ctx.useCache, log: ctx.log };
  const docTexts = docStoreOf(docs); // streamed from the store, never held
  const queryTexts = queries.map((x) => x.text);

  // The remembered identity is used without asking the server only when it answers every text.
  const t = performance.now();
  const memos = CacheStore.of(ctx);
  const memoKey = remoteMemoKey(endpoint.api, endpoint.url, spec.model);
  const memo = memos.readJson(REMOTE_KIND, memoKey, memoIdentity) ?? null;
  let remembered: ServerIdentity | null = null;
  let memoCaches: { document: EmbeddingCache; query: EmbeddingCache } | null = null;
  if (memo) {
    memoCaches = { document: new EmbeddingCache(cacheOpts, keyOf(memo, 'document')), query: new EmbeddingCache(cacheOpts, keyOf(memo, 'query')) };
    const all = (c: EmbeddingCache, texts: TextSource) => {
      for (const x of texts.texts()) if (!c.has(textKey(c.configKey, x))) return false;
      return true;
    };
    if (all(memoCaches.document, docTexts) && all(memoCaches.query, textSource(queryTexts))) remembered = memo;
  }
  const identity: 'asked' | 'remembered' = remembered ? 'remembered' : 'asked';
  const server: ServerIdentity = remembered ?? (await client.identify());
  if (!remembered) memos.write(REMOTE_KIND, memoKey, JSON.stringify({ api: endpoint.api, url: publicUrl(endpoint.url), model: spec.model, server } satisfies Memo, null, 2) + '\n');
  timings['identify'] = (performance.now() - t) / 1000;

  const batchSize = server.maxBatchSize !== null ? Math.min(endpoint.batchSize, server.maxBatchSize) : endpoint.batchSize;
  if (batchSize < endpoint.batchSize) ctx.log(`dense ${spec.id}: batch size ${endpoint.batchSize} lowered to the server's max_client_batch_size ${batchSize}`);
  const encoder = new RemoteEncoder(client, { queryPrefix, docPrefix, normalize, batchSize, concurrency: endpoint.concurrency, label });

  const encode = (texts: TextSource, role: Role) =>
    encodeTextsWithCache(encoder, texts, role, {
      cache: cacheOpts,
      configKey: keyOf(server, role),
      ...(memoCaches ? { opened: memoCaches[role] } : {}),
      progress: ctx.progress,
      progressLabel: `${spec.id}: encode ${role === 'query' ? 'queries' : 'documents'}`,
    });
  const d = await encode(docTexts, 'document');
  timings['encodeDocuments'] = d.stats.seconds;
  const q = await encode(textSource(queryTexts), 'query');
  timings['encodeQueries'] = q.stats.seconds;

  const dim = d.vectors[0]?.length ?? q.vectors[0]?.length ?? 0;
  const badDoc = d.vectors.findIndex((v) => v.length !== dim);
  const badQuery = q.vectors.findIndex((v) => v.length !== dim);
  if (badDoc >= 0 || badQuery >= 0) {
    const got = badDoc >= 0 ? d.vectors[badDoc]!.length : q.vectors[badQuery]!.length;
    throw new UserError(`${label}: vectors of dimension ${dim} and ${got} (the server's model changed between runs? rerun with --no-cache)`);
  }
  const docIds = [...docTexts.ids];
  const queryIds = queries.map((x) => x.id);
  const found = await searchVectors(
    ctx,
    { topK: spec.topK, index: spec.index, ...(spec.threads !== undefined ? { threads: spec.threads } : {}) },
    toMatrix(d.vectors, dim),
    docIds,
    toMatrix(q.vectors, dim),
    queryIds,
  );
  Object.assign(timings, found.timings);

  const info: RemoteDenseInfo = {
    id: spec.id,
    model: {
      ref: spec.model,
      preset: preset?.name ?? null,
      paperModel: preset?.paperModel ?? null,
      server: { model: server.model, revision: server.revision, maxInputLength: server.maxInputLength },
      identity,
    },
    endpoint: endpointRecord(endpoint, batchSize),
    options: { queryPrefix, docPrefix, normalize: normalize ?? 'server default', topK: spec.topK },
    ignoredOptions,
    dims: dim,
    requests: { sent: client.stats.requests, retries: client.stats.retries },
    cache: stageCacheInfo(ctx.useCache, d.stats, q.stats),
    throughput: {
      docsPerSec: rate(d.stats.encoded, d.stats.run?.encodeSeconds),
      queriesPerSec: rate(q.stats.encoded, q.stats.run?.encodeSeconds),
    },
    timings,
    index: found.index,
  };
  return found.exactRun ? { run: found.run, exactRun: found.exactRun, info } : { run: found.run, info };
}
