/**
 * Class 10 of issue 28 (smaller gaps) not covered elsewhere: a leading `~/`, `$HOME` or `${HOME}` in
 * path-valued config keys and path flags is the home folder, as a shell would expand it (never a
 * folder named `~` beside the config); a hub endpoint that is not http(s) (`file://`) fails at once
 * in one line, with no download attempt and no retry, whether it comes from the config (found by
 * `--dry-run`, with its key path), from HF_ENDPOINT or from `--endpoint`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { refusedInOneLine } from '../helpers/fault-suite.js';
import { userError } from '../helpers/cli.js';
import { ensureHubDataset } from '../../src/data/hub.js';
import { expandHome } from '../../src/util/paths.js';

const REPO = resolve(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'fault-gaps-'));
const savedHome = process.env.HOME;
const savedEndpoint = process.env.HF_ENDPOINT;
afterEach(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  if (savedEndpoint === undefined) delete process.env.HF_ENDPOINT;
  else process.env.HF_ENDPOINT = savedEndpoint;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('~ and $HOME in paths', () => {
  it('expandHome: a leading ~, ~/, $HOME or ${HOME} only', () => {
    const env = { HOME: '/h' };
    expect(['~', '~/a', '$HOME', '$HOME/a', '${HOME}/a/b'].map((p) => expandHome(p, env))).toEqual(['/h', '/h/a', '/h', '/h/a', '/h/a/b']);
    expect(['~user/a', 'a/~/b', '$HOMEX/a', './~', '$USER/a', '~a'].map((p) => expandHome(p, env))).toEqual(['~user/a', 'a/~/b', '$HOMEX/a', './~', '$USER/a', '~a']);
  });

  it('config output, cache_dir and dataset.path, and report arguments and --out, written under the home folder', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    cpSync(join(REPO, 'data', 'mini'), join(home, 'mini'), { recursive: true });
    const cfgDir = join(dir, 'configs');
    mkdirSync(cfgDir);
    const cfg = join(cfgDir, 'home.yaml');
    writeFileSync(
      cfg,
      ['name: home', 'dataset: { path: "${HOME}/mini", split: test }', 'retrievers:', '  - { id: bm25, type: bm25, top_k: 20 }', 'stats: { iterations: 200 }', 'output: ~/results', 'cache_dir: $HOME/cache', ''].join('\n'),
    );
    process.env.HOME = home;
    const r = await runCli(['run', cfg, '--offline', '-q']);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(join(home, 'results', 'manifest.json'))).toBe(true);
    expect(existsSync(join(home, 'cache', 'bm25'))).toBe(true);
    expect(readdirSync(cfgDir)).toEqual(['home.yaml']); // no folder named ~ or $HOME beside the config
    const rep = await runCli(['report', '~/results', '--out', '$HOME/r.html', '--iterations', '100']);
    expect(rep.code, rep.err).toBe(0);
    expect(existsSync(join(home, 'r.html'))).toBe(true);
    // The history the run recorded in the cache under the home folder.
    const board = await runCli(['leaderboard', '--cache-dir', '~/cache', '--out', '~/board.md']);
    expect(board.code, board.err).toBe(0);
    expect(existsSync(join(home, 'board.md'))).toBe(true);
  }, 60_000);
});

describe('a file:// hub endpoint fails at once', () => {
  it('in the config: --dry-run names dataset.hub.endpoint, nothing written', async () => {
    const cfg = join(dir, 'file-endpoint.yaml');
    const cache = join(dir, 'cache-file');
    writeFileSync(
      cfg,
      [
        'name: hub',
        'dataset:',
        '  hub: { repo: someone/data, revision: 0123456789abcdef0123456789abcdef01234567, endpoint: "file:///srv/hub" }',
        'retrievers:',
        '  - { id: bm25, type: bm25, top_k: 20 }',
        `output: ${JSON.stringify(join(dir, 'out-file'))}`,
        '',
      ].join('\n'),
    );
    await refusedInOneLine(
      ['run', cfg, '--dry-run', '--cache-dir', cache],
      new RegExp(`^${cfg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: dataset\\.hub\\.endpoint: "file:///srv/hub" is a file: URL; a hub endpoint is an http or https URL`),
      { same: [join(dir, 'out-file'), cache] },
    );
  });

  it('from HF_ENDPOINT or --endpoint: one line, no download attempted, no wait', async () => {
    let fetches = 0;
    let sleeps = 0;
    const fetchImpl = (async () => {
      fetches++;
      throw new TypeError('fetch failed', { cause: new Error('not implemented... yet...') });
    }) as unknown as typeof fetch;
    const sleep = async () => void sleeps++;
    const cacheDir = join(dir, 'cache-hub');
    process.env.HF_ENDPOINT = 'file:///srv/hub';
    const m = await userError(ensureHubDataset({ repo: 'someone/data', revision: '0123456789abcdef0123456789abcdef01234567', split: 'test', cacheDir, offline: false, fetchImpl, sleep }));
    expect(m).toBe('HF_ENDPOINT: "file:///srv/hub" is a file: URL; a hub endpoint is an http or https URL like https://huggingface.co (nothing downloaded, not retried)');
    delete process.env.HF_ENDPOINT;
    const m2 = await userError(
      ensureHubDataset({ repo: 'someone/data', revision: '0123456789abcdef0123456789abcdef01234567', split: 'test', cacheDir, offline: false, fetchImpl, sleep, endpoint: 'file:///srv/hub', endpointLabel: '--endpoint' }),
    );
    expect(m2).toMatch(/^--endpoint: "file:\/\/\/srv\/hub" is a file: URL/);
    expect({ fetches, sleeps }).toEqual({ fetches: 0, sleeps: 0 });
    expect(existsSync(cacheDir)).toBe(false);
  });
});
