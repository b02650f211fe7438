/**
 * Remote inference endpoints (TEI, vLLM, Infinity, OpenAI-compatible servers): the settings of
 * one endpoint with their defaults, the URL rules (the API path is appended to `url`; only
 * scheme, host and path are ever recorded or printed) and the offline guard (offline, only a
 * loopback host may be contacted).
 */
import { UserError } from '../core/errors.js';

export type EmbeddingApi = 'openai' | 'tei';
export type RerankApi = 'tei' | 'cohere';
export type RemoteApi = EmbeddingApi | RerankApi;

/** An endpoint as a config gives it (everything but url and api optional). */
export interface EndpointConfig<A extends RemoteApi = RemoteApi> {
  /** Base URL; the API path is appended (openai: /embeddings, cohere: /rerank, tei: /embed, /info, /rerank). */
  url: string;
  api: A;
  /** NAME of the environment variable holding the API key (sent as `Authorization: Bearer <key>`). */
  apiKeyEnv?: string;
  timeoutS?: number;
  /** Longest wait for the next byte of an answer once its headers came (a stalled answer ends there). */
  idleTimeoutS?: number;
  maxRetries?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Texts (embeddings) or documents (rerank) per request. */
  batchSize?: number;
}

/** An endpoint with every default applied. */
export interface Endpoint<A extends RemoteApi = RemoteApi> {
  url: string;
  api: A;
  apiKeyEnv?: string;
  timeoutS: number;
  idleTimeoutS: number;
  maxRetries: number;
  concurrency: number;
  batchSize: number;
}

/** What a manifest records of an endpoint: no query string, no secret, only where the key comes from. */
export interface EndpointRecord<A extends RemoteApi = RemoteApi> {
  url: string;
  api: A;
  auth: string;
  timeoutS: number;
  maxRetries: number;
  concurrency: number;
  batchSize: number;
}

export function endpointRecord<A extends RemoteApi>(e: Endpoint<A>, batchSize = e.batchSize): EndpointRecord<A> {
  return {
    url: publicUrl(e.url),
    api: e.api,
    auth: e.apiKeyEnv !== undefined ? `bearer key from $${e.apiKeyEnv}` : 'none',
    timeoutS: e.timeoutS,
    maxRetries: e.maxRetries,
    concurrency: e.concurrency,
    batchSize,
  };
}

export const ENDPOINT_DEFAULTS = Object.freeze({ timeoutS: 300, idleTimeoutS: 60, maxRetries: 4, concurrency: 4, batchSize: 32 });

/** Config key path of an endpoint setting, for messages (`retrievers.<id>.endpoint.<key>`). */
export type FieldOf = (key: string) => string;

export function resolveEndpoint<A extends RemoteApi>(e: EndpointConfig<A>, field: FieldOf, batchSizeFallback?: number): Endpoint<A> {
  checkUrl(e.url, field('url'));
  const out: Endpoint<A> = {
    url: e.url,
    api: e.api,
    timeoutS: e.timeoutS ?? ENDPOINT_DEFAULTS.timeoutS,
    idleTimeoutS: e.idleTimeoutS ?? ENDPOINT_DEFAULTS.idleTimeoutS,
    maxRetries: e.maxRetries ?? ENDPOINT_DEFAULTS.maxRetries,
    concurrency: e.concurrency ?? ENDPOINT_DEFAULTS.concurrency,
    batchSize: e.batchSize ?? batchSizeFallback ?? ENDPOINT_DEFAULTS.batchSize,
  };
  if (e.apiKeyEnv !== undefined) out.apiKeyEnv = e.apiKeyEnv;
  if (!(out.timeoutS > 0)) throw new UserError(`${field('timeout_s')}: expected a positive number of seconds, got ${out.timeoutS}`);
  if (!(out.idleTimeoutS > 0)) throw new UserError(`${field('idle_timeout_s')}: expected a positive number of seconds, got ${out.idleTimeoutS}`);
  for (const [k, v, min] of [
    ['max_retries', out.maxRetries, 0],
    ['concurrency', out.concurrency, 1],
    ['batch_size', out.batchSize, 1],
  ] as const) {
    if (!Number.isInteger(v) || v < min) throw new UserError(`${field(k)}: expected an integer >= ${min}, got ${v}`);
  }
  return out;
}

/**
 * Why a URL is not acceptable as an endpoint, or null. Credentials, query strings and fragments
 * are refused so that nothing secret can sit in a config, a manifest or a message.
 */
export function urlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'expected an http(s) URL like http://127.0.0.1:8080';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `expected an http or https URL, got a ${u.protocol.replace(/:$/, '')} URL`;
  if (u.username !== '' || u.password !== '') return 'must not hold credentials: put the key in an environment variable and name it in api_key_env';
  if (u.search !== '' || url.includes('?')) return 'must not hold a query string (keys belong in the environment variable named by api_key_env)';
  if (u.hash !== '' || url.includes('#')) return 'must not hold a fragment';
  return null;
}

function checkUrl(url: string, field: string): void {
  const p = urlProblem(url);
  if (p) throw new UserError(`${field}: ${p}`);
}

/** scheme://host[:port]/path of a URL: no credentials, query or fragment (safe to record and print). */
export function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** The endpoint's base URL joined with an API path (`/embed`), without doubling slashes. */
export function apiUrl(base: string, path: string): string {
  const u = new URL(base);
  u.pathname = u.pathname.replace(/\/+$/, '') + path;
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** true for localhost, 127.0.0.0/8 and ::1 (also written [::1] or as an IPv4-mapped address). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.replace(/^::ffff:/, '');
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** Why a server may not be used offline (only a loopback one may), or null. An unparsable URL is urlProblem's to report. */
export function offlineEndpointProblem(url: string, offline: boolean): string | null {
  if (!offline) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null; // reported by resolveEndpoint
  }
  return isLoopbackHost(host) ? null : `offline, and ${publicUrl(url)} is not a loopback address (only localhost/127.0.0.1/::1 servers may be used offline)`;
}

/** Offline (--offline, SKILLRET_OFFLINE=1, HF_HUB_OFFLINE=1), only a loopback server may be used. */
export function assertAllowedOffline(url: string, offline: boolean, field: string): void {
  const p = offlineEndpointProblem(url, offline);
  if (p) throw new UserError(`${field}: ${p}`);
}
