/**
 * `skillret-eval data fetch` against a real HTTP server on 127.0.0.1 (the endpoint option and
 * HF_ENDPOINT): download, SHA-256 report, verification of a pinned release, a second call served
 * from the cache, offline refusal, and option errors.
 */
import { createHash } from 'node:crypto';
import { userError } from './helpers/cli.js';
import { runCli } from './helpers/cli.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dataFetchCommand, type DataFetchOptions } from '../src/commands/data.js';
import type { SkillretRelease } from '../src/data/hub.js';
import { cleanupTemp, jsonl, makeTempDir } from './fixtures/data/make-dataset.js';

const REPO = 'owner/SKILLSET';
const REV = '0123456789abcdef0123456789abcdef01234567';
const FILES: Record<string, string> = {
  skills: jsonl([{ id: 's1', name: 'one', description: 'first', skill_md: 'md one' }]),
  queries: jsonl([{ id: 'q1', query: 'find one', skill_ids: ['s1'] }]),
  qrels: jsonl([{ query_id: 'q1', skill_id: 's1', relevance: 1 }]),
};
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const SHAS = { skills: sha(FILES.skills!), queries: sha(FILES.queries!), qrels: sha(FILES.qrels!) };
const bytes = (s: string) => Buffer.byteLength(s);

/** Serves FILES for any repo and revision under the hub's resolve URL; records every path asked. */
let server: Server;
let base = '';
let hits: string[] = [];
let qrels404 = false;
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? '');
    hits.push(path);
    const m = /^\/datasets\/[^/]+\/[^/]+\/resolve\/[^/]+\/data\/(skills|queries|qrels)\/test\.jsonl$/.exec(path);
    const body = m ? FILES[m[1]!] : undefined;
    if (body === undefined || (m![1] === 'qrels' && qrels404)) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-length': String(bytes(body)) }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  cleanupTemp();
});
afterEach(() => {
  hits = [];
  qrels404 = false;
});

const resolvePath = (repo: string, rev: string, subset: string) => `/datasets/${repo}/resolve/${rev}/data/${subset}/test.jsonl`;

function fetchOpts(cacheDir: string, extra: Partial<DataFetchOptions> = {}): DataFetchOptions {
  return { repo: REPO, revision: REV, cacheDir, endpoint: base, offline: false, ...extra };
}

const cli = runCli;

describe('data fetch', () => {
  it('downloads, reports bytes and SHA-256 of each file, then serves a second call from the cache', async () => {
    const cache = makeTempDir();
    const dir = join(cache, 'datasets', 'owner', 'SKILLSET', REV);
    const first = await dataFetchCommand(fetchOpts(cache));
    expect(hits).toEqual(['skills', 'queries', 'qrels'].map((s) => resolvePath(REPO, REV, s)));
    const w = String(Math.max(...Object.values(FILES).map(bytes))).length + ' bytes'.length;
    const row = (s: 'skills' | 'queries' | 'qrels', origin: string) =>
      `  ${`${s}/test.jsonl`.padEnd('queries/test.jsonl'.length)}  ${`${bytes(FILES[s]!)} bytes`.padStart(w)}  sha256 ${SHAS[s]}  not pinned  ${origin}`.trimEnd();
    expect(first).toBe(
      [
        `${REPO} @ ${REV}, split test (not a pinned release: SHA-256 not verified)`,
        `folder: ${dir}`,
        row('skills', 'downloaded'),
        row('queries', 'downloaded'),
        row('qrels', 'downloaded'),
        '',
        'Use it in an experiment config:',
        '  dataset:',
        `    hub: { repo: ${REPO}, revision: ${REV}, endpoint: ${base} }`,
        '    split: test',
        `  cache_dir: ${cache}   # or run with --cache-dir ${cache}`,
        'or, as a plain local folder:',
        `  dataset: { path: ${dir}, split: test }`,
        '',
      ].join('\n'),
    );
    hits = [];
    const second = await dataFetchCommand(fetchOpts(cache));
    expect(hits).toEqual([]);
    expect(second).toBe(first.replaceAll(/ downloaded$/gm, ' from the cache').replace(/(not pinned  )downloaded/g, '$1from the cache'));
    expect(second.match(/from the cache$/gm)).toHaveLength(3);
    // Offline, a complete cache is reported the same way.
    expect(await dataFetchCommand(fetchOpts(cache, { offline: true }))).toBe(second);
    expect(hits).toEqual([]);
  });

  it('verifies a pinned release by its SHA-256 and refuses data that does not match the pin', async () => {
    const good: SkillretRelease = { version: 'vt', repo: 'Pin/DATA', revision: REV, files: { test: SHAS }, bytes: { test: { skills: 1, queries: 1, qrels: 1 } } };
    const bad: SkillretRelease = { ...good, version: 'vbad', repo: 'Pin/BAD', files: { test: { ...SHAS, queries: '0'.repeat(64) } } };
    const cache = makeTempDir();
    const out = await dataFetchCommand({ version: 'vt', cacheDir: cache, endpoint: base, releases: [good, bad] });
    expect(out.split('\n')[0]).toBe(`SkillRet vt: Pin/DATA @ ${REV}, split test`);
    expect(out.match(/ verified \(pinned\)  downloaded$/gm)).toHaveLength(3);
    // repo + revision of a pinned release are that release.
    const again = await dataFetchCommand({ repo: 'Pin/DATA', revision: REV, cacheDir: cache, endpoint: base, releases: [good] });
    expect(again.match(/ verified \(pinned\)  from the cache$/gm)).toHaveLength(3);
    const msg = await userError(dataFetchCommand({ version: 'vbad', cacheDir: cache, endpoint: base, releases: [good, bad] }));
    expect(msg).toMatch(/queries\/test\.jsonl: sha256 mismatch: expected 0{64}, got [0-9a-f]{64} \(\d+ bytes from .*\); not kept$/);
  });

  it('offline with an empty cache: refuses, names the folder to fill, touches no network', async () => {
    const cache = makeTempDir();
    const dir = join(cache, 'datasets', 'owner', 'SKILLSET', REV);
    const msg = await userError(dataFetchCommand(fetchOpts(cache, { offline: true })));
    expect(msg).toBe(
      `${join(dir, 'skills', 'test.jsonl')}: missing and offline: fill the folder ${dir} with {skills,queries,qrels}/test.jsonl (qrels optional) from ${REPO} at ${REV}, or run online`,
    );
    expect(hits).toEqual([]);
  });

  it('reports qrels absent on the hub (gold from the queries)', async () => {
    qrels404 = true;
    const cache = makeTempDir();
    const out = await dataFetchCommand(fetchOpts(cache));
    expect(out).toMatch(/^ {2}qrels\/test\.jsonl +– +absent on the hub: gold comes from the queries +asked the hub \(HTTP 404\)$/m);
    const again = await dataFetchCommand(fetchOpts(cache));
    expect(again).toMatch(/^ {2}qrels\/test\.jsonl .*from the cache \(404 remembered\)$/m);
  });

  it('refuses contradictory or incomplete options', async () => {
    const c = makeTempDir();
    expect(await userError(dataFetchCommand({ version: 'v1.1', repo: REPO, revision: REV, cacheDir: c }))).toBe(
      '--version: give either --version or --repo with --revision, not both',
    );
    expect(await userError(dataFetchCommand({ repo: REPO, cacheDir: c }))).toBe('--revision: missing; --repo needs a pinned --revision (a 40-hex commit or a tag)');
    expect(await userError(dataFetchCommand({ revision: REV, cacheDir: c }))).toBe('--repo: missing; --revision needs --repo (owner/name)');
    expect(await userError(dataFetchCommand({ version: 'v1.2', cacheDir: c }))).toBe('--version: unknown release "v1.2" (known: v1.1, v1.0; did you mean "v1.1"?)');
    expect(await userError(dataFetchCommand({ repo: REPO, revision: 'main', cacheDir: c, endpoint: base }))).toMatch(/"main" is a branch head, not a pin/);
    expect(hits).toEqual([]);
  });
});

describe('skillret-eval data fetch (CLI)', () => {
  const saved = process.env['HF_ENDPOINT'];
  afterEach(() => {
    if (saved === undefined) delete process.env['HF_ENDPOINT'];
    else process.env['HF_ENDPOINT'] = saved;
  });

  it('--version selects the pinned release (not the program version), downloads from HF_ENDPOINT and verifies it', async () => {
    process.env['HF_ENDPOINT'] = base;
    const cache = makeTempDir();
    const r = await cli(['data', 'fetch', '--version', 'v1.0', '--cache-dir', cache]);
    // The fake hub does not serve the real v1.0 bytes: the pinned SHA-256 refuses them.
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^skillret-eval: .*skills\/test\.jsonl: sha256 mismatch: expected 4b3db14f528b288077b77207343211dede58f11c15b95a4ced7f6e0f01cbcea9, got /m);
    expect(hits[0]).toBe(resolvePath('ThakiCloud/SKILLRET', '7cae7cfbad2b0e1ebc9170892f568993aae543b0', 'skills'));
  });

  it('--repo/--revision with --endpoint: prints the report; --offline then serves the cache', async () => {
    const cache = makeTempDir();
    const r = await cli(['data', 'fetch', '--repo', REPO, '--revision', REV, '--endpoint', base, '--cache-dir', cache]);
    expect(r.code).toBe(0);
    expect(r.out.match(/ downloaded$/gm)).toHaveLength(3);
    expect(r.err).toContain(`downloading ${base}`);
    const o = await cli(['data', 'fetch', '--repo', REPO, '--revision', REV, '--endpoint', base, '--cache-dir', cache, '--offline']);
    expect(o.code).toBe(0);
    expect(o.out.match(/ from the cache$/gm)).toHaveLength(3);
    const bad = await cli(['data', 'fetch', '--version', 'v2']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/option '--version <version>' argument 'v2' is invalid\. Allowed choices are v1\.1, v1\.0\./);
  });
});
