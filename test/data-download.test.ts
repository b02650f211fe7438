/**
 * Resumable downloads against a server on 127.0.0.1 that drops the connection part-way: retries
 * with backoff (waits injected, no timing), HTTP Range resumes into `<file>.part` validated by ETag
 * and size, the SHA-256 checked at the end; a file changed on the server restarts from zero; a
 * partial file left by an earlier process is resumed; `data fetch` completes through two drops.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { downloadResumable } from '../src/data/download.js';
import { runCli } from './helpers/cli.js';
import { dataFetchCommand } from '../src/commands/data.js';
import type { SkillretRelease } from '../src/data/hub.js';

/** Deterministic bytes (a 3 MiB "file"), JSONL-shaped so data fetch can take it. */
function fileBytes(n: number, seed: string): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (let i = 0; size < n; i++) {
    const line = Buffer.from(JSON.stringify({ id: `${seed}-${i}`, text: createHash('sha256').update(`${seed}${i}`).digest('hex').repeat(4) }) + '\n');
    parts.push(line);
    size += line.length;
  }
  return Buffer.concat(parts);
}

interface Served {
  body: Buffer;
  etag: string;
  /** Drop the connection after this many body bytes, for the first `drops` GETs. */
  dropAfter: number;
  drops: number;
}

let server: Server;
let base: string;
let root: string;
const files = new Map<string, Served>();
const log: { path: string; range: string | undefined; ifRange: string | undefined; sent: number }[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  const f = files.get(req.url ?? '');
  const entry = { path: req.url ?? '', range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined, sent: 0 };
  log.push(entry);
  if (!f) {
    res.writeHead(404).end();
    return;
  }
  let start = 0;
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const rangeOk = m && (entry.ifRange === undefined || entry.ifRange === f.etag);
  if (m && rangeOk) start = Number(m[1]);
  if (start >= f.body.length && m) {
    res.writeHead(416, { 'Content-Range': `bytes */${f.body.length}` }).end();
    return;
  }
  const rest = f.body.subarray(start);
  const headers: Record<string, string | number> = { ETag: f.etag, 'Content-Length': rest.length, 'Accept-Ranges': 'bytes' };
  if (start > 0) headers['Content-Range'] = `bytes ${start}-${f.body.length - 1}/${f.body.length}`;
  res.writeHead(start > 0 ? 206 : 200, headers);
  if (f.drops > 0) {
    f.drops--;
    const piece = rest.subarray(0, f.dropAfter);
    entry.sent = piece.length;
    res.write(piece, () => setImmediate(() => res.socket?.destroy()));
    return;
  }
  entry.sent = rest.length;
  res.end(rest);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skillret-download-'));
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const noWait = async () => undefined;

describe('downloadResumable', () => {
  it('completes through two dropped connections with Range requests, never starting over', async () => {
    const body = fileBytes(3 * 1024 * 1024, 'a');
    files.set('/big.jsonl', { body, etag: '"v1"', dropAfter: 1024 * 1024, drops: 2 });
    log.length = 0;
    const target = join(root, 'big.jsonl');
    const waits: number[] = [];
    const got = await downloadResumable({
      url: `${base}/big.jsonl`,
      target,
      origin: base,
      token: undefined,
      expectedSha256: sha(body),
      fetchFn: fetch,
      retry: { baseMs: 100 },
      sleep: async (ms) => void waits.push(ms),
    });
    expect(got).toMatchObject({ kind: 'done', sha256: sha(body), bytes: body.length, attempts: 3 });
    expect(readFileSync(target).equals(body)).toBe(true);
    expect(log.map((l) => l.range)).toEqual([undefined, `bytes=${log[0]!.sent}-`, `bytes=${log[0]!.sent + log[1]!.sent}-`]);
    expect(log.slice(1).every((l) => l.ifRange === '"v1"')).toBe(true);
    expect(log.reduce((n, l) => n + l.sent, 0)).toBe(body.length); // every byte sent once
    expect(waits).toEqual([100, 200]); // exponential backoff
    expect(existsSync(`${target}.part`) || existsSync(`${target}.part.json`) || existsSync(`${target}.lock`)).toBe(false);
  });

  it('a file changed on the server (other ETag) restarts from zero instead of splicing two versions', async () => {
    const v1 = fileBytes(1024 * 1024, 'b1');
    const v2 = fileBytes(1024 * 1024, 'b2');
    files.set('/changing.jsonl', { body: v1, etag: '"one"', dropAfter: 300 * 1024, drops: 1 });
    const target = join(root, 'changing.jsonl');
    await expect(
      downloadResumable({ url: `${base}/changing.jsonl`, target, origin: base, token: undefined, fetchFn: fetch, retry: { retries: 0 }, sleep: noWait }),
    ).rejects.toThrow(/next run resumes there/);
    expect(readFileSync(`${target}.part`).length).toBeGreaterThan(0);
    files.set('/changing.jsonl', { body: v2, etag: '"two"', dropAfter: 0, drops: 0 });
    log.length = 0;
    const got = await downloadResumable({ url: `${base}/changing.jsonl`, target, origin: base, token: undefined, expectedSha256: sha(v2), fetchFn: fetch, sleep: noWait });
    expect(got).toMatchObject({ kind: 'done', sha256: sha(v2) });
    expect(log[0]!.ifRange).toBe('"one"'); // asked to resume, the server said the file changed (200)
    expect(readFileSync(target).equals(v2)).toBe(true);
  });

  it('a SHA-256 mismatch keeps nothing; an HTTP 404 is handed back', async () => {
    const body = fileBytes(64 * 1024, 'c');
    files.set('/bad.jsonl', { body, etag: '"c"', dropAfter: 0, drops: 0 });
    const target = join(root, 'bad.jsonl');
    await expect(downloadResumable({ url: `${base}/bad.jsonl`, target, origin: base, token: undefined, expectedSha256: '0'.repeat(64), fetchFn: fetch, sleep: noWait })).rejects.toThrow(
      /sha256 mismatch.*not kept/,
    );
    expect(existsSync(target) || existsSync(`${target}.part`)).toBe(false);
    expect(await downloadResumable({ url: `${base}/missing`, target: join(root, 'm'), origin: base, token: undefined, fetchFn: fetch, sleep: noWait })).toEqual({ kind: 'status', status: 404 });
  });
});

/** A fetch that fails as Node's (undici's) does when getaddrinfo fails: TypeError('fetch failed') caused by the DNS error. */
function failingFetch(code: string, calls: string[]): typeof fetch {
  return async (input) => {
    const url = new URL(String(input));
    calls.push(url.href);
    const cause = Object.assign(new Error(`getaddrinfo ${code} ${url.hostname}`), { code, errno: -3008, syscall: 'getaddrinfo', hostname: url.hostname });
    throw new TypeError('fetch failed', { cause });
  };
}

describe('a DNS failure is not retried; transient failures still are', () => {
  it.each([
    ['ENOTFOUND', 'does not resolve (DNS ENOTFOUND)'],
    ['EAI_AGAIN', 'could not be resolved (DNS EAI_AGAIN: no name server answered; offline?)'],
  ])('%s: fails at once, in one line naming the host', async (code, what) => {
    const calls: string[] = [];
    const waits: number[] = [];
    const target = join(root, `dns-${code}.jsonl`);
    const url = 'https://hub.nonexistent.invalid/datasets/x/resolve/abc/data/skills/test.jsonl';
    const err = await downloadResumable({ url, target, origin: 'https://hub.nonexistent.invalid', token: undefined, fetchFn: failingFetch(code, calls), sleep: async (ms) => void waits.push(ms) }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(`${url}: host hub.nonexistent.invalid ${what}; check the host name and the network (not retried)`);
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('ECONNRESET is still retried (5 times by default), then fails naming the attempts', async () => {
    const calls: string[] = [];
    const waits: number[] = [];
    const reset: typeof fetch = async (input) => {
      calls.push(String(input));
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }) });
    };
    const err = await downloadResumable({ url: `${base}/reset.jsonl`, target: join(root, 'reset.jsonl'), origin: base, token: undefined, fetchFn: reset, sleep: async (ms) => void waits.push(ms) }).catch((e: Error) => e.message);
    expect(err).toMatch(/download failed after 6 attempts \(fetch failed: read ECONNRESET\)/);
    expect(calls).toHaveLength(6);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('data fetch with an endpoint whose host does not resolve: one line, exit 2, no retry (real fetch, no network needed)', async () => {
    const t0 = performance.now();
    const r = await runCli(['data', 'fetch', '--version', 'v1.1', '--endpoint', 'http://nonexistent.invalid', '--cache-dir', join(root, 'dns-cache')]);
    const seconds = (performance.now() - t0) / 1000;
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const lines = r.err.trim().split('\n').filter((l) => l.startsWith('skillret-eval: '));
    expect(lines).toEqual([expect.stringMatching(/^skillret-eval: http:\/\/nonexistent\.invalid\/datasets\/\S+: host nonexistent\.invalid (does not resolve|could not be resolved) \(DNS (ENOTFOUND|EAI_AGAIN)[^)]*\); check the host name and the network \(not retried\)$/)]);
    expect(r.err).not.toContain('retry');
    expect(seconds).toBeLessThan(20); // five retries wait 1 + 2 + 4 + 8 + 16 = 31 s
  });
});

describe('data fetch through a server that drops the connection twice', () => {
  it('completes with Range requests and the pinned SHA-256', async () => {
    const repo = 'test/drops';
    const revision = 'a'.repeat(40);
    const skills = fileBytes(2 * 1024 * 1024, 's');
    const queries = fileBytes(50 * 1024, 'q');
    const qrels = Buffer.from('{"query_id": "q", "skill_id": "s", "score": 1}\n');
    const url = (subset: string) => `/datasets/${repo}/resolve/${revision}/data/${subset}/test.jsonl`;
    files.set(url('skills'), { body: skills, etag: '"s"', dropAfter: 512 * 1024, drops: 2 });
    files.set(url('queries'), { body: queries, etag: '"q"', dropAfter: 0, drops: 0 });
    files.set(url('qrels'), { body: qrels, etag: '"r"', dropAfter: 0, drops: 0 });
    const release: SkillretRelease = {
      version: 'vtest',
      repo,
      revision,
      files: { test: { skills: sha(skills), queries: sha(queries), qrels: sha(qrels) } },
      bytes: { test: { skills: skills.length, queries: queries.length, qrels: qrels.length } },
    };
    log.length = 0;
    const out = await dataFetchCommand({ version: 'vtest', releases: [release], endpoint: base, cacheDir: join(root, 'cache'), offline: false, sleep: noWait });
    expect(out).toContain(`sha256 ${sha(skills)}  verified (pinned)  downloaded`);
    const skillGets = log.filter((l) => l.path === url('skills'));
    expect(skillGets.map((l) => l.range === undefined)).toEqual([true, false, false]);
    expect(skillGets.reduce((n, l) => n + l.sent, 0)).toBe(skills.length);
  });
});

describe('credentials in hub endpoints', () => {
  it('are refused in one line naming the flag or variable, never echoing the secret', async () => {
    const secret = 'hunter2-very-secret';
    const m = await dataFetchCommand({ version: 'v1.1', endpoint: `http://user:${secret}@127.0.0.1:1`, cacheDir: join(root, 'c2'), offline: false }).catch((e: Error) => e.message);
    expect(m).toBe('--endpoint: must not hold credentials (user:password@host); give the bare hub URL and put a token in HF_TOKEN');
    const saved = process.env.HF_ENDPOINT;
    process.env.HF_ENDPOINT = `https://127.0.0.1:1/?token=${secret}`;
    try {
      const n = await dataFetchCommand({ version: 'v1.1', cacheDir: join(root, 'c3'), offline: false }).catch((e: Error) => e.message);
      expect(n).toBe('HF_ENDPOINT: must not hold a query string; give the bare hub URL and put a token in HF_TOKEN');
      expect(n).not.toContain(secret);
    } finally {
      if (saved === undefined) delete process.env.HF_ENDPOINT;
      else process.env.HF_ENDPOINT = saved;
    }
  });
});
