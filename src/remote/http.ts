/**
 * JSON over HTTP for remote inference servers: one request with a timeout (AbortController),
 * retried with exponential backoff on 408/429/5xx, timeouts and network errors, honouring
 * Retry-After, for a bounded number of attempts. An answer is bounded in size (MAX_ANSWER_BYTES) and
 * in stalls: once its headers came, no byte for `idleTimeoutS` (endpoint.idle_timeout_s, default
 * 60 s) ends the attempt (retried like a timeout) instead of waiting out the whole `timeout_s`. The API key is read from the environment
 * variable the config names, at call time, and sent as `Authorization: Bearer <key>`.
 *
 * Every failure becomes one UserError line naming the method, the URL (scheme, host and path
 * only), the HTTP status and a short body excerpt. The key never appears in a message: it is
 * not part of any URL, and a server that echoes it gets it replaced by `***`.
 */
import { UserError } from '../core/errors.js';
import { publicUrl } from './endpoint.js';
import { maskSecrets } from '../util/secrets.js';

export interface Backoff {
  /** First wait; doubles on every retry. */
  baseMs: number;
  /** Cap of the exponential wait. */
  maxMs: number;
  /** Cap of a server's Retry-After. */
  maxRetryAfterMs: number;
  /** How to wait (tests record the waits instead of sleeping). */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1) (tests pass a constant). */
  random?: () => number;
}

const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000, maxRetryAfterMs: 300_000 };
let backoffOverride: Partial<Backoff> | null = null;

/** Test hook: shorter waits (null restores the defaults). */
export function setBackoffForTesting(b: Partial<Backoff> | null): void {
  backoffOverride = b;
}

function backoff(): Backoff {
  return { ...DEFAULT_BACKOFF, ...(backoffOverride ?? {}) };
}

export interface HttpTarget {
  /** Start of every message, e.g. `retrievers.e5.endpoint`. */
  label: string;
  timeoutS: number;
  /** Longest wait for the next byte of an answer after its headers (default 60 s). */
  idleTimeoutS?: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** NAME of the environment variable holding the API key. */
  apiKeyEnv?: string;
  /** Added to a 404 message (e.g. what the URL should look like). */
  notFoundHint?: string;
}

/** The HTTP target of a resolved endpoint (`label` = its config key path, for messages). */
export function httpTarget(e: { timeoutS: number; idleTimeoutS?: number; maxRetries: number; apiKeyEnv?: string }, label: string, notFoundHint: string): HttpTarget {
  return {
    label,
    timeoutS: e.timeoutS,
    ...(e.idleTimeoutS !== undefined ? { idleTimeoutS: e.idleTimeoutS } : {}),
    maxRetries: e.maxRetries,
    ...(e.apiKeyEnv !== undefined ? { apiKeyEnv: e.apiKeyEnv } : {}),
    notFoundHint,
  };
}

/** Counters over every request of a client. */
export interface HttpStats {
  /** HTTP requests sent (retries included). */
  requests: number;
  /** Of which retries. */
  retries: number;
}

export function newHttpStats(): HttpStats {
  return { requests: 0, retries: 0 };
}

/** The API key from `process.env[apiKeyEnv]`, or undefined without api_key_env. */
export function readApiKey(t: Pick<HttpTarget, 'label' | 'apiKeyEnv'>): string | undefined {
  if (t.apiKeyEnv === undefined) return undefined;
  const v = process.env[t.apiKeyEnv]?.trim();
  if (v === undefined || v === '') {
    throw new UserError(`${t.label}.api_key_env: environment variable ${t.apiKeyEnv} is not set or empty (it must hold the API key)`);
  }
  return v;
}

/** Replaces the secret and every 6+ character piece of it (a server may echo a prefix) with `***`. */
export function redact(text: string, secret: string | undefined): string {
  return maskSecrets(text, [secret]);
}

/** One line of at most `max` characters: whitespace collapsed, key redacted. */
export function excerpt(text: string, secret: string | undefined, max = 200): string {
  const one = redact(text, secret).replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** Retry-After (seconds or an HTTP date) in milliseconds, or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Failure =
  | { kind: 'http'; status: number; statusText: string; body: string; retryAfterMs?: number }
  | { kind: 'timeout' }
  | { kind: 'stall' }
  | { kind: 'network'; reason: string };

function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const r = cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
  return String(r).replace(/\s+/g, ' ').trim();
}

function describeFailure(f: Failure, t: HttpTarget, key: string | undefined): string {
  switch (f.kind) {
    case 'timeout':
      return `no response within ${t.timeoutS} s (endpoint.timeout_s)`;
    case 'stall':
      return `the answer stalled: no byte for ${idleS(t)} s after its headers (endpoint.idle_timeout_s)`;
    case 'network':
      return `cannot reach the server: ${excerpt(f.reason, key, 120)}`;
    case 'http': {
      const body = excerpt(f.body, key);
      let s = `HTTP ${f.status}${f.statusText ? ` ${f.statusText}` : ''}${body ? `: ${body}` : ''}`;
      if (f.status === 401 || f.status === 403) {
        s += t.apiKeyEnv !== undefined ? ` (check the key in $${t.apiKeyEnv})` : ' (the server may want a key: set endpoint.api_key_env)';
      }
      if (f.status === 404 && t.notFoundHint) s += ` (${t.notFoundHint})`;
      return s;
    }
  }
}

/** Largest answer read from a server (bytes): a batch of embeddings or scores is a few MB. */
export const MAX_ANSWER_BYTES = 64 << 20;

/** The stall cap of answers when the endpoint sets none (seconds). */
export const DEFAULT_IDLE_TIMEOUT_S = 60;

const idleS = (t: HttpTarget): number => t.idleTimeoutS ?? DEFAULT_IDLE_TIMEOUT_S;

class AnswerTooLarge extends Error {}

/**
 * The body as text, read up to `max` bytes; a longer one is cut off (the request aborted) and
 * refused. No byte for `idleMs` aborts the request too (`onStall` is told first).
 */
async function boundedText(res: Response, max: number, ac: AbortController, idleMs: number, onStall: () => void): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      onStall();
      ac.abort();
    }, idleMs);
  };
  arm();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      arm();
      total += chunk.byteLength;
      if (total > max) {
        ac.abort();
        throw new AnswerTooLarge(`the answer is more than ${max} bytes (a server that never ends its answer?)`);
      }
      chunks.push(chunk);
    }
  } finally {
    clearTimeout(idle);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Sends one JSON request (body = undefined sends no body) and returns the parsed JSON answer.
 * `stats` (optional) counts requests and retries.
 */
export async function requestJson(t: HttpTarget, method: 'GET' | 'POST', url: string, body?: unknown, stats?: HttpStats): Promise<unknown> {
  const key = readApiKey(t);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
  const payload = body !== undefined ? JSON.stringify(body) : undefined;
  const where = `${t.label}: ${method} ${publicUrl(url)}`;
  const b = backoff();
  const attempts = t.maxRetries + 1;

  let last: Failure = { kind: 'network', reason: 'no attempt' };
  let made = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    made = attempt;
    if (attempt > 1 && stats) stats.retries++;
    if (stats) stats.requests++;
    const ac = new AbortController();
    let timedOut = false;
    let stalled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, t.timeoutS * 1000);
    let failure: Failure | undefined;
    let text = '';
    try {
      const res = await fetch(url, { method, headers, ...(payload !== undefined ? { body: payload } : {}), signal: ac.signal });
      text = await boundedText(res, MAX_ANSWER_BYTES, ac, idleS(t) * 1000, () => (stalled = true));
      if (!res.ok) {
        const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        failure = { kind: 'http', status: res.status, statusText: res.statusText, body: text, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
      }
    } catch (e) {
      if (e instanceof AnswerTooLarge) {
        clearTimeout(timer);
        throw new UserError(`${where}: ${e.message}`);
      }
      failure = timedOut ? { kind: 'timeout' } : stalled ? { kind: 'stall' } : { kind: 'network', reason: networkReason(e) };
    } finally {
      clearTimeout(timer);
    }
    if (!failure) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new UserError(`${where}: the answer is not JSON: ${excerpt(text, key, 120) || '(empty)'}`);
      }
    }
    last = failure;
    const retryable = failure.kind !== 'http' || isRetryableStatus(failure.status);
    if (!retryable || attempt === attempts) break;
    const exp = Math.min(b.maxMs, b.baseMs * 2 ** (attempt - 1));
    const wait =
      failure.kind === 'http' && failure.retryAfterMs !== undefined
        ? Math.min(b.maxRetryAfterMs, failure.retryAfterMs)
        : exp * (0.5 + (b.random ?? Math.random)() * 0.5);
    await (b.sleep ?? sleep)(wait);
  }
  const tries = made > 1 ? ` (after ${made} attempts)` : '';
  throw new UserError(`${where}: ${describeFailure(last, t, key)}${tries}`);
}
