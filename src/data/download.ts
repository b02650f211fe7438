/**
 * One resumable download into the cache: `<target>.part` grows across attempts and processes, and
 * becomes `<target>` only after its size and SHA-256 check out.
 *
 * - A dropped connection, a timeout (no data for `idleTimeoutMs`), HTTP 408/429/5xx are retried
 *   with exponential backoff (`retries` times, Retry-After honoured up to the cap). A host name that
 *   does not resolve (DNS ENOTFOUND, or EAI_AGAIN: no name server answered) fails at once in one line
 *   naming the host: that is not transient. Each retry asks
 *   for the rest only (`Range: bytes=<have>-`), with `If-Range` set to the ETag (or Last-Modified)
 *   the partial file came from, so a file changed on the server restarts from zero instead of
 *   splicing two versions. A 206 answer is checked (start offset, total size, ETag) before a byte is
 *   appended; a 200 answer rewrites the partial file from the start.
 * - What the partial file is (URL, ETag, Last-Modified, total size) is kept in `<target>.part.json`,
 *   so a later run resumes where a killed one stopped. A lock file (`<target>.lock`) keeps two
 *   processes from writing one partial file.
 * - The token goes only to the endpoint's origin: redirects are followed by hand and a redirect to
 *   another host (a CDN) gets no Authorization header. Messages never hold the token.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, ftruncateSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError, where } from '../core/errors.js';
import { writeJsonAtomic } from '../util/atomic.js';
import { makeDirs } from '../util/dirs.js';
import { acquireLock } from '../util/folder-lock.js';
import { sha256File } from '../util/hash.js';
import { maskSecrets } from '../util/secrets.js';
import { plural } from '../util/plural.js';

export interface RetryPolicy {
  /** Retries after the first attempt (default 5). */
  retries: number;
  /** First wait in ms; doubles on every retry (default 1000). */
  baseMs: number;
  /** Cap of one wait (default 30 s). */
  maxMs: number;
  /** No byte for this long aborts the attempt (default 60 s). */
  idleTimeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseMs: 1000, maxMs: 30_000, idleTimeoutMs: 60_000 };

export interface DownloadOptions {
  url: string;
  target: string;
  /** Origin that may receive the token. */
  origin: string;
  token: string | undefined;
  expectedSha256?: string;
  expectedBytes?: number;
  fetchFn: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Waits between attempts (tests pass one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}

export type DownloadResult =
  | { kind: 'done'; sha256: string; bytes: number; attempts: number; resumedFrom: number[] }
  /** A status the caller decides about (404, 401, 403, other 4xx): nothing kept. */
  | { kind: 'status'; status: number };

interface PartMeta {
  url: string;
  etag: string | null;
  lastModified: string | null;
  total: number | null;
}

const MAX_REDIRECTS = 10;
const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

class Retryable extends Error {}

function readMeta(path: string): PartMeta | null {
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as PartMeta;
    return typeof m.url === 'string' ? m : null;
  } catch {
    return null;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** `bytes a-b/total` → [a, total]; null when malformed. */
function parseContentRange(v: string | null): { start: number; total: number | null } | null {
  const m = v === null ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(v.trim());
  if (!m) return null;
  return { start: Number(m[1]), total: m[3] === '*' ? null : Number(m[3]) };
}

function retryAfterMs(v: string | null): number | undefined {
  if (v === null) return undefined;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

export async function downloadResumable(o: DownloadOptions): Promise<DownloadResult> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...(o.retry ?? {}) };
  const sleep = o.sleep ?? realSleep;
  const log = o.log ?? (() => undefined);
  const safe = (s: string) => maskSecrets(s, [o.token]);
  const part = `${o.target}.part`;
  const metaPath = `${o.target}.part.json`;
  makeDirs(dirname(o.target));
  const lock = acquireLock(`${o.target}.lock`, `download ${o.url}`);
  if (!lock.ok) {
    const h = lock.holder;
    throw new UserError(`${where(o.target)}another process is downloading this file (${h ? `pid ${h.pid} on ${h.host} since ${h.started_at}` : 'unknown holder'}); wait for it, or remove ${o.target}.lock if it is gone`);
  }
  try {
    let meta = readMeta(metaPath);
    if (meta === null || meta.url !== o.url) {
      rmSync(part, { force: true });
      meta = { url: o.url, etag: null, lastModified: null, total: null };
    }
    const resumedFrom: number[] = [];
    let lastProblem = '';
    for (let attempt = 0; attempt <= policy.retries; attempt++) {
      if (attempt > 0) {
        const wait = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
        log(`${safe(o.url)}: ${lastProblem}; retry ${attempt}/${policy.retries} in ${(wait / 1000).toFixed(1)} s`);
        await sleep(wait);
      }
      const have = existsSync(part) ? sizeOf(part) : 0;
      if (meta.total !== null && have === meta.total) break; // complete from an earlier attempt
      const headers: Record<string, string> = { 'Accept-Encoding': 'identity', 'User-Agent': 'skillret-eval' };
      if (have > 0) {
        headers['Range'] = `bytes=${have}-`;
        const validator = meta.etag !== null && !meta.etag.startsWith('W/') ? meta.etag : meta.lastModified;
        if (validator !== null) headers['If-Range'] = validator;
        resumedFrom.push(have);
      }
      try {
        const res = await get(o, headers);
        if (res.status === 416 && have > 0) {
          await res.body?.cancel();
          // Nothing after `have`: complete if the server's total says so, else start over.
          const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
          const total = m ? Number(m[1]) : null;
          if (total !== null && total === have) {
            meta.total = total;
            break;
          }
          rmSync(part, { force: true });
          lastProblem = 'the server refused the resume range';
          throw new Retryable(lastProblem);
        }
        if (res.status === 408 || res.status === 429 || res.status >= 500) {
          await res.body?.cancel();
          lastProblem = `HTTP ${res.status}`;
          const ra = retryAfterMs(res.headers.get('retry-after'));
          if (ra !== undefined && attempt < policy.retries) await sleep(Math.min(ra, policy.maxMs * 10));
          throw new Retryable(lastProblem);
        }
        if (res.status !== 200 && res.status !== 206) {
          await res.body?.cancel();
          return { kind: 'status', status: res.status };
        }
        let offset = 0;
        const etag = res.headers.get('etag');
        const lastModified = res.headers.get('last-modified');
        if (res.status === 206) {
          const cr = parseContentRange(res.headers.get('content-range'));
          const changed = (meta.etag !== null && etag !== null && etag !== meta.etag) || (cr?.total != null && meta.total !== null && cr.total !== meta.total);
          if (cr === null || cr.start !== have || changed) {
            await res.body?.cancel();
            rmSync(part, { force: true });
            meta = { url: o.url, etag: null, lastModified: null, total: null };
            lastProblem = cr === null || cr.start !== have ? 'the server answered another range than asked' : 'the file changed on the server';
            throw new Retryable(lastProblem);
          }
          offset = have;
          if (cr.total !== null) meta.total = cr.total;
        } else {
          // 200: the whole file (no range asked, or the server ignored / refused it).
          const len = res.headers.get('content-length');
          const enc = res.headers.get('content-encoding');
          meta.total = len !== null && (enc === null || enc === 'identity') ? Number(len) : null;
        }
        meta.etag = etag ?? meta.etag;
        meta.lastModified = lastModified ?? meta.lastModified;
        writeJsonAtomic(metaPath, meta);
        await appendBody(res, part, offset, policy.idleTimeoutMs);
        const now = sizeOf(part);
        if (meta.total !== null && now < meta.total) {
          lastProblem = `connection closed after ${now} of ${meta.total} bytes`;
          throw new Retryable(lastProblem);
        }
        if (meta.total !== null && now > meta.total) {
          rmSync(part, { force: true });
          lastProblem = `got ${now} bytes, more than the ${meta.total} announced`;
          throw new Retryable(lastProblem);
        }
        if (meta.total === null) meta.total = now;
        break;
      } catch (e) {
        if (e instanceof UserError) throw new UserError(safe(e.message));
        const dns = e instanceof Retryable ? undefined : dnsFailure(e);
        if (dns !== undefined) {
          const kept = sizeOf(part);
          const what = dns.code === 'ENOTFOUND' ? 'does not resolve (DNS ENOTFOUND)' : 'could not be resolved (DNS EAI_AGAIN: no name server answered; offline?)';
          throw new UserError(
            `${where(safe(o.url))}host ${safe(dns.host ?? new URL(o.url).hostname)} ${what}; check the host name and the network (not retried)` +
              (kept > 0 ? `; the ${kept} bytes received before are kept in ${part}` : ''),
          );
        }
        if (!(e instanceof Retryable)) lastProblem = safe(networkReason(e));
        if (attempt === policy.retries) {
          throw new UserError(`${where(safe(o.url))}download failed after ${plural(policy.retries + 1, 'attempt')} (${lastProblem}); the ${sizeOf(part)} bytes received are kept in ${part} and the next run resumes there`);
        }
      }
    }
    const bytes = sizeOf(part);
    if (o.expectedBytes !== undefined && bytes !== o.expectedBytes) {
      rmSync(part, { force: true });
      rmSync(metaPath, { force: true });
      throw new UserError(`${where(o.target)}download has ${bytes} bytes, the pinned file ${o.expectedBytes}; not kept`);
    }
    const sha256 = await sha256File(part);
    if (o.expectedSha256 !== undefined && sha256 !== o.expectedSha256.toLowerCase()) {
      rmSync(part, { force: true });
      rmSync(metaPath, { force: true });
      throw new UserError(`${where(o.target)}sha256 mismatch: expected ${o.expectedSha256.toLowerCase()}, got ${sha256} (${bytes} bytes from ${safe(o.url)}); not kept`);
    }
    renameSync(part, o.target);
    rmSync(metaPath, { force: true });
    return { kind: 'done', sha256, bytes, attempts: resumedFrom.length + 1, resumedFrom };
  } finally {
    lock.release();
  }
}

/**
 * The DNS failure behind a fetch error, if that is what it is: getaddrinfo's ENOTFOUND (the name
 * does not exist) or EAI_AGAIN (no name server answered: typically no network). Neither is retried:
 * a name that does not resolve will not resolve in 31 s either, and without a name server every
 * retry fails the same way. (Node's fetch throws TypeError('fetch failed') with the DNS error as its
 * `cause`; the chain is searched a few levels deep.)
 */
function dnsFailure(e: unknown): { code: 'ENOTFOUND' | 'EAI_AGAIN'; host: string | undefined } | undefined {
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && cur !== null && typeof cur === 'object'; depth++) {
    const x = cur as { code?: unknown; hostname?: unknown; cause?: unknown };
    if (x.code === 'ENOTFOUND' || x.code === 'EAI_AGAIN') return { code: x.code, host: typeof x.hostname === 'string' ? x.hostname : undefined };
    cur = x.cause;
  }
  return undefined;
}

function networkReason(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${e.message}${cause}`;
}

/** GET with redirects followed by hand (the token only to the origin; Range headers kept). */
async function get(o: DownloadOptions, base: Record<string, string>): Promise<Response> {
  let current = o.url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers = { ...base };
    if (o.token !== undefined && new URL(current).origin === o.origin) headers['Authorization'] = `Bearer ${o.token}`;
    const res = await o.fetchFn(current, { headers, redirect: 'manual' });
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      const loc = res.headers.get('location');
      await res.body?.cancel();
      if (loc === null) throw new UserError(`${where(maskSecrets(o.url, [o.token]))}HTTP ${res.status} redirect without a Location`);
      current = new URL(loc, current).toString();
      continue;
    }
    return res;
  }
  throw new UserError(`${where(maskSecrets(o.url, [o.token]))}more than ${MAX_REDIRECTS} redirects`);
}

/** Writes the body at `offset` of `path` (truncating there), fsyncs; aborts when idle too long. */
async function appendBody(res: Response, path: string, offset: number, idleMs: number): Promise<void> {
  if (res.body === null) return;
  const fd = openSync(path, offset === 0 ? 'w' : 'r+');
  let pos = offset;
  const reader = res.body.getReader();
  try {
    ftruncateSync(fd, offset);
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no data for ${Math.round(idleMs / 1000)} s`)), idleMs);
      });
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await Promise.race([reader.read(), idle]);
      } finally {
        clearTimeout(timer);
      }
      if (chunk.done) break;
      const buf = chunk.value;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, pos + off);
      pos += buf.length;
    }
  } finally {
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await reader.cancel().catch(() => undefined);
  }
}
