import { PROTOCOL_DOC } from './helpers/shared.js';
import { userError } from './helpers/cli.js';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../src/data/dataset.js';
import { ensureHubDataset, findRelease, hubFileUrl, SKILLRET_RELEASES, type HubDatasetOptions } from '../src/data/hub.js';
import { cleanupTemp, jsonl, makeTempDir } from './fixtures/data/make-dataset.js';

const REPO = 'owner/SKILLSET';
const REV = 'a050ad233a504a43135bafe8cdf45574052b5729';
const TOKEN = 'hf_SECRETtoken0123456789';

const FILES = {
  skills: jsonl([
    { id: 's1', name: 'one', description: 'first', skill_md: 'md one' },
    { id: 's2', name: 'two', description: 'second', skill_md: '' },
  ]),
  queries: jsonl([{ id: 'q1', query: 'find one', skill_ids: ['s1'] }]),
  qrels: jsonl([{ query_id: 'q1', skill_id: 's1', relevance: 2 }]),
};
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const SHAS = { skills: sha(FILES.skills), queries: sha(FILES.queries), qrels: sha(FILES.qrels) };

interface Hit {
  path: string;
  auth: string | undefined;
}

/** A tiny hub: serves FILES under the resolve URL; behaviour switches per test. */
class FakeHub {
  server!: Server;
  base = '';
  hits: Hit[] = [];
  qrels404 = false;
  corrupt = false;
  requireAuth = false;
  truncate = false;
  /** Redirect the skills file to this absolute base (e.g. another origin) or a same-origin path. */
  redirectSkillsTo: string | undefined;

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.hits = [];
    this.qrels404 = false;
    this.corrupt = false;
    this.requireAuth = false;
    this.truncate = false;
    this.redirectSkillsTo = undefined;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = decodeURIComponent(req.url ?? '');
    this.hits.push({ path, auth: req.headers.authorization });
    if (this.requireAuth && req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const m = /^\/(?:cdn|datasets\/([^/]+\/[^/]+)\/resolve\/([^/]+))\/data\/(skills|queries|qrels)\/([^/]+)\.jsonl$/.exec(path);
    if (m === null) {
      res.writeHead(404).end('no route');
      return;
    }
    const subset = m[3] as keyof typeof FILES;
    const viaCdn = path.startsWith('/cdn/');
    if (!viaCdn && (m[1] !== REPO || m[2] !== REV || m[4] !== 'test')) {
      res.writeHead(404).end('not found');
      return;
    }
    if (subset === 'qrels' && this.qrels404) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    if (subset === 'skills' && !viaCdn && this.redirectSkillsTo !== undefined) {
      res.writeHead(302, { location: `${this.redirectSkillsTo}/cdn/data/skills/test.jsonl` }).end();
      return;
    }
    let body = FILES[subset];
    if (this.corrupt && subset === 'queries') body = body.replace('find', 'fond');
    if (this.truncate && subset === 'skills') {
      res.writeHead(200, { 'content-length': String(Buffer.byteLength(body)) });
      res.write(body.slice(0, 20));
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(Buffer.byteLength(body)) }).end(body);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const hub = new FakeHub();
const other = new FakeHub(); // a second origin (a "CDN")
const savedToken = process.env['HF_TOKEN'];
const savedToken2 = process.env['HUGGINGFACE_TOKEN'];

beforeAll(async () => {
  await hub.start();
  await other.start();
});
afterAll(async () => {
  await hub.stop();
  await other.stop();
  cleanupTemp();
});
afterEach(() => {
  hub.reset();
  other.reset();
  if (savedToken === undefined) delete process.env['HF_TOKEN'];
  else process.env['HF_TOKEN'] = savedToken;
  if (savedToken2 === undefined) delete process.env['HUGGINGFACE_TOKEN'];
  else process.env['HUGGINGFACE_TOKEN'] = savedToken2;
});

function opts(cacheDir: string, extra: Partial<HubDatasetOptions> = {}): HubDatasetOptions {
  return { repo: REPO, revision: REV, split: 'test', endpoint: hub.base, cacheDir, offline: false, retry: { retries: 2 }, sleep: async () => undefined, ...extra };
}

/** Every file under a folder, recursively (relative paths). */
function listAll(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

const resolvePath = (subset: string) => `/datasets/${REPO}/resolve/${REV}/data/${subset}/test.jsonl`;

describe('ensureHubDataset', () => {
  it('downloads skills, queries and qrels into <cache>/datasets/<repo>/<revision>, verified, loadable', async () => {
    delete process.env['HF_TOKEN'];
    delete process.env['HUGGINGFACE_TOKEN'];
    const cache = makeTempDir();
    const lines: string[] = [];
    const dir = await ensureHubDataset(opts(cache, { expectedSha256: SHAS, log: (l) => lines.push(l) }));
    expect(dir).toBe(join(cache, 'datasets', 'owner', 'SKILLSET', REV));
    expect(listAll(dir)).toEqual(['qrels/test.jsonl', 'queries/test.jsonl', 'skills/test.jsonl']);
    for (const s of ['skills', 'queries', 'qrels'] as const) expect(readFileSync(join(dir, s, 'test.jsonl'), 'utf8')).toBe(FILES[s]);
    expect(hub.hits.map((h) => h.path)).toEqual([resolvePath('skills'), resolvePath('queries'), resolvePath('qrels')]);
    expect(hub.hits.every((h) => h.auth === undefined)).toBe(true);
    expect(lines.some((l) => l.includes(SHAS.skills))).toBe(true);
    const ds = await loadDataset({ path: dir, split: 'test' });
    expect(ds.goldSource).toBe('qrels');
    expect(ds.files.map((f) => f.sha256)).toEqual([SHAS.skills, SHAS.queries, SHAS.qrels]);
  });

  it('does not download a complete file again (with and without expected hashes)', async () => {
    const cache = makeTempDir();
    await ensureHubDataset(opts(cache));
    expect(hub.hits).toHaveLength(3);
    hub.hits = [];
    await ensureHubDataset(opts(cache));
    await ensureHubDataset(opts(cache, { expectedSha256: SHAS }));
    expect(hub.hits).toEqual([]);
  });

  it('treats a qrels 404 as absent, remembers it, and the dataset falls back to the queries', async () => {
    const cache = makeTempDir();
    hub.qrels404 = true;
    const dir = await ensureHubDataset(opts(cache));
    expect(listAll(dir)).toEqual(['qrels/test.jsonl.absent', 'queries/test.jsonl', 'skills/test.jsonl']);
    hub.hits = [];
    await ensureHubDataset(opts(cache));
    expect(hub.hits).toEqual([]);
    const ds = await loadDataset({ path: dir, split: 'test' });
    expect(ds.goldSource).toBe('queries');
    // offline is fine too: qrels is optional
    await ensureHubDataset(opts(cache, { offline: true }));
  });

  it('a 404 for qrels is an error when a qrels hash is expected; 404 for skills always is', async () => {
    hub.qrels404 = true;
    let msg = await userError(ensureHubDataset(opts(makeTempDir(), { expectedSha256: SHAS })));
    expect(msg).toBe(`${hub.base}${resolvePath('qrels')}: HTTP 404; check repo, revision and split`);
    msg = await userError(ensureHubDataset(opts(makeTempDir(), { split: 'dev' })));
    expect(msg).toBe(`${hub.base}/datasets/${REPO}/resolve/${REV}/data/skills/dev.jsonl: HTTP 404; check repo, revision and split`);
  });

  it('refuses a SHA-256 mismatch naming the file, expected and actual, and keeps nothing in place', async () => {
    const cache = makeTempDir();
    hub.corrupt = true;
    const msg = await userError(ensureHubDataset(opts(cache, { expectedSha256: SHAS })));
    const dir = join(cache, 'datasets', 'owner', 'SKILLSET', REV);
    const bad = FILES.queries.replace('find', 'fond');
    expect(msg).toBe(
      `${join(dir, 'queries', 'test.jsonl')}: sha256 mismatch: expected ${SHAS.queries}, got ${sha(bad)} (${Buffer.byteLength(bad)} bytes from ${hub.base}${resolvePath('queries')}); not kept`,
    );
    expect(listAll(dir)).toEqual(['skills/test.jsonl']); // no queries file, no temp file
    // next run: good data now, only the missing file is fetched
    hub.corrupt = false;
    hub.hits = [];
    await ensureHubDataset(opts(cache, { expectedSha256: SHAS }));
    expect(hub.hits.map((h) => h.path)).toEqual([resolvePath('queries'), resolvePath('qrels')]);
  });

  it('replaces a cached file that does not match its pin when online', async () => {
    const cache = makeTempDir();
    hub.corrupt = true;
    await ensureHubDataset(opts(cache)); // no pins: the bad queries file is accepted
    hub.corrupt = false;
    hub.hits = [];
    const lines: string[] = [];
    const dir = await ensureHubDataset(opts(cache, { expectedSha256: SHAS, log: (l) => lines.push(l) }));
    expect(hub.hits.map((h) => h.path)).toEqual([resolvePath('queries')]);
    expect(readFileSync(join(dir, 'queries', 'test.jsonl'), 'utf8')).toBe(FILES.queries);
    expect(lines[0]).toMatch(/is not the pinned .*; downloading again$/);
  });

  it('refuses a download that stays truncated after the retries: nothing in place, the partial file kept for the next run', async () => {
    const cache = makeTempDir();
    hub.truncate = true;
    const msg = await userError(ensureHubDataset(opts(cache)));
    expect(msg).toMatch(new RegExp(`^${hub.base.replace(/[.]/g, '\\.')}${resolvePath('skills')}: download failed after 3 attempts \\(.*\\); the \\d+ bytes received are kept in .*test\\.jsonl\\.part and the next run resumes there$`));
    const files = listAll(cache);
    expect(files.some((f) => f.endsWith('skills/test.jsonl'))).toBe(false);
    expect(files.filter((f) => f.includes('skills/')).map((f) => f.replace(/^.*skills\//, ''))).toEqual(['test.jsonl.part', 'test.jsonl.part.json']);
  });

  it('sends HF_TOKEN as a Bearer token to the endpoint only, and never puts it in a message', async () => {
    process.env['HF_TOKEN'] = TOKEN;
    const cache = makeTempDir();
    hub.requireAuth = true;
    await ensureHubDataset(opts(cache));
    expect(hub.hits.map((h) => h.auth)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);

    // redirect to another origin (a CDN): no token there; same-origin redirect keeps it
    hub.reset();
    hub.redirectSkillsTo = other.base;
    const cache2 = makeTempDir();
    const dir2 = await ensureHubDataset(opts(cache2));
    expect(readFileSync(join(dir2, 'skills', 'test.jsonl'), 'utf8')).toBe(FILES.skills);
    expect(hub.hits[0]!.auth).toBe(`Bearer ${TOKEN}`);
    expect(other.hits).toEqual([{ path: '/cdn/data/skills/test.jsonl', auth: undefined }]);
    hub.reset();
    hub.redirectSkillsTo = hub.base;
    await ensureHubDataset(opts(makeTempDir()));
    expect(hub.hits.slice(0, 2)).toEqual([
      { path: resolvePath('skills'), auth: `Bearer ${TOKEN}` },
      { path: '/cdn/data/skills/test.jsonl', auth: `Bearer ${TOKEN}` },
    ]);

    // a refused token: the message says so without the token
    process.env['HF_TOKEN'] = 'hf_wrongTOKENvalue';
    hub.reset();
    hub.requireAuth = true;
    const msg = await userError(ensureHubDataset(opts(makeTempDir())));
    expect(msg).toBe(`${hub.base}${resolvePath('skills')}: HTTP 401; access denied: set HF_TOKEN to a token that can read ${REPO} (the one set was refused)`);
    expect(msg).not.toContain('hf_wrongTOKENvalue');
    expect(msg.toLowerCase()).not.toContain('bearer');

    // a network failure with the token set: still no token, no headers
    process.env['HF_TOKEN'] = TOKEN;
    const dead = 'http://127.0.0.1:1';
    const msg2 = await userError(ensureHubDataset(opts(makeTempDir(), { endpoint: dead })));
    expect(msg2.startsWith(`${dead}/datasets/${REPO}/resolve/${REV}/data/skills/test.jsonl: download failed after 3 attempts (`)).toBe(true);
    expect(msg2).not.toContain(TOKEN);
    expect(msg2.toLowerCase()).not.toContain('authorization');
    // nothing was written with the token in it
    for (const c of [cache, cache2]) {
      for (const f of listAll(c)) expect(readFileSync(join(c, f), 'utf8')).not.toContain(TOKEN);
    }
  });

  it('offline: names the folder to fill when files are missing, and uses the cache when complete', async () => {
    const cache = makeTempDir();
    const dir = join(cache, 'datasets', 'owner', 'SKILLSET', REV);
    const msg = await userError(ensureHubDataset(opts(cache, { offline: true })));
    expect(msg).toBe(
      `${join(dir, 'skills', 'test.jsonl')}: missing and offline: fill the folder ${dir} with {skills,queries,qrels}/test.jsonl (qrels optional) from ${REPO} at ${REV}, or run online`,
    );
    expect(hub.hits).toEqual([]);
    await ensureHubDataset(opts(cache));
    hub.hits = [];
    expect(await ensureHubDataset(opts(cache, { offline: true, expectedSha256: SHAS }))).toBe(dir);
    expect(hub.hits).toEqual([]);
    const wrong = { ...SHAS, skills: '0'.repeat(64) };
    expect(await userError(ensureHubDataset(opts(cache, { offline: true, expectedSha256: wrong })))).toBe(
      `${join(dir, 'skills', 'test.jsonl')}: sha256 mismatch: expected ${'0'.repeat(64)}, got ${SHAS.skills}; replace the file (offline)`,
    );
  });

  it('requires a pinned revision and a valid repo id', async () => {
    const c = makeTempDir();
    expect(await userError(ensureHubDataset(opts(c, { revision: '' })))).toBe('dataset: revision: missing; pin a 40-hex commit or a tag (the hub head is mutable)');
    expect(await userError(ensureHubDataset(opts(c, { revision: 'main' })))).toMatch(/^dataset: revision: "main" is a branch head, not a pin/);
    expect(await userError(ensureHubDataset(opts(c, { revision: 'a050ad2' })))).toMatch(/looks like a short commit; give all 40 hex digits$/);
    expect(await userError(ensureHubDataset(opts(c, { revision: '../../x' })))).toMatch(/is neither a 40-hex commit nor a tag name$/);
    expect(await userError(ensureHubDataset(opts(c, { repo: 'noslash' })))).toMatch(/^dataset: repo: "noslash" is not an "owner\/name" repository id$/);
    expect(hub.hits).toEqual([]);
    // a tag is a pin
    expect(hubFileUrl('https://hf.example/', 'a/b', 'v1.1-review', 'qrels', 'test')).toBe('https://hf.example/datasets/a/b/resolve/v1.1-review/data/qrels/test.jsonl');
  });
});

describe('SKILLRET_RELEASES', () => {
  it('pins v1.1 and v1.0 of ThakiCloud/SKILLRET', () => {
    expect(SKILLRET_RELEASES.map((r) => [r.version, r.repo, r.revision])).toEqual([
      ['v1.1', 'ThakiCloud/SKILLRET', 'a050ad233a504a43135bafe8cdf45574052b5729'],
      ['v1.0', 'ThakiCloud/SKILLRET', '7cae7cfbad2b0e1ebc9170892f568993aae543b0'],
    ]);
    expect(findRelease('ThakiCloud/SKILLRET', 'a050ad233a504a43135bafe8cdf45574052b5729')?.version).toBe('v1.1');
    expect(findRelease('v1.0')?.bytes['test']?.skills).toBe(127_443_784);
    expect(findRelease('ThakiCloud/SKILLRET', 'main')).toBeUndefined();
  });

  const protocol = PROTOCOL_DOC;
  it.skipIf(!existsSync(protocol))('matches every size and SHA-256 written in the protocol', () => {
    const text = readFileSync(protocol, 'utf8');
    for (const r of SKILLRET_RELEASES) {
      const section = text.slice(text.indexOf(`${r.version}, revision \`${r.revision}\``));
      for (const s of ['skills', 'queries', 'qrels'] as const) {
        const line = `\`data/${s}/test.jsonl\` ${r.bytes['test']![s].toLocaleString('en-US')} \`${r.files['test']![s]}\``;
        expect(section.split('\n').slice(0, 5).join('\n')).toContain(line);
      }
    }
    expect(text).toContain(`\`data/taxonomy.json\` 5,372 \`${SKILLRET_RELEASES[0]!.taxonomy!.sha256}\``);
  });
});
