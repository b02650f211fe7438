import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';
import { configureTransformersEnv, hubCacheFolder, resolveModel } from '../src/models/resolve.js';
import { Embedder, type EmbedderOptions } from '../src/retrieval/dense/embedding/embedder.js';
import { UserError } from '../src/core/errors.js';
import { env } from '@huggingface/transformers';

let root: string;
let enc: TinyModelInfo;
let server: Server;
let host: string;
const requests: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skr-resolve-'));
  enc = buildTinyEncoder(join(root, 'served'), { seed: 4 });
  // A fake hub: /<org>/<name>/resolve/<revision>/<file> -> the tiny model's files (any org/name/revision).
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(req.url ?? '');
    const file = m ? join(enc.dir, decodeURIComponent(m[4]!)) : '';
    if (!m || m[1] !== 'tiny-org' || !existsSync(file) || relative(enc.dir, file).startsWith('..')) {
      res.writeHead(404).end('not found');
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

const opts: EmbedderOptions = { queryPrefix: '', docPrefix: '', pooling: 'mean', normalize: true, maxTokens: null, dtype: 'fp32', batchSize: 8, threads: 1 };

function userError(f: () => unknown): UserError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error('expected a UserError');
}

describe('resolveModel', () => {
  it('finds local folders (absolute, relative, under the models folder) before hub ids', () => {
    const models = join(root, 'models');
    mkdirSync(join(models, 'org'), { recursive: true });
    const named = buildTinyEncoder(join(models, 'org', 'mine'), { seed: 1 });
    const o = { offline: false, cacheDir: join(root, 'cache'), modelsDir: models };
    expect(resolveModel(enc.dir, o)).toMatchObject({ source: 'local', location: enc.dir, folder: enc.dir });
    expect(resolveModel(relative(process.cwd(), enc.dir), o)).toMatchObject({ source: 'local', location: enc.dir });
    expect(resolveModel('org/mine', o)).toMatchObject({ source: 'local', location: named.dir });
    expect(resolveModel('org/other', o)).toEqual({
      source: 'hub',
      location: 'org/other',
      folder: join(root, 'cache', 'hf', 'org', 'other'),
      ref: 'org/other',
    });
    expect(resolveModel('org/other@v1.2', o)).toMatchObject({ source: 'hub', location: 'org/other', revision: 'v1.2', folder: join(root, 'cache', 'hf', 'org', 'other', 'v1.2') });
    // the loaders point transformers.js at the same folders
    configureTransformersEnv(o, env);
    expect(env.cacheDir).toBe(join(root, 'cache', 'hf'));
    expect(env.allowRemoteModels).toBe(true);
    expect(env.localModelPath).toBe(models);
  });

  it('rejects bad references with one line', () => {
    const o = { offline: false, cacheDir: join(root, 'cache'), modelsDir: join(root, 'models') };
    mkdirSync(join(root, 'empty-folder'), { recursive: true });
    expect(userError(() => resolveModel(join(root, 'empty-folder'), o)).message).toMatch(/has no config\.json$/);
    expect(userError(() => resolveModel('no such thing at all', o)).message).toMatch(/not a hub id/);
    expect(userError(() => resolveModel('  ', o)).message).toBe('model: empty model reference');
  });

  it('offline, a hub model not in the cache is refused, naming the model and the exact folder', () => {
    const o = { offline: true, cacheDir: join(root, 'cache-off'), modelsDir: join(root, 'models') };
    const e = userError(() => resolveModel('BAAI/bge-small-en-v1.5@abc123', o));
    const folder = join(root, 'cache-off', 'hf', 'BAAI', 'bge-small-en-v1.5', 'abc123');
    expect(e.message).toContain('"BAAI/bge-small-en-v1.5@abc123"');
    expect(e.message).toContain(`in ${folder}`);
    expect(e.message).not.toContain('\n');
    configureTransformersEnv(o, env);
    expect(env.allowRemoteModels).toBe(false);
    // The environment forces offline even when the flag is off.
    for (const v of ['SKILLRET_OFFLINE', 'HF_HUB_OFFLINE']) {
      process.env[v] = '1';
      try {
        expect(userError(() => resolveModel('BAAI/bge-small-en-v1.5', { ...o, offline: false })).message).toContain('offline and not in the cache');
      } finally {
        delete process.env[v];
      }
    }
    expect(resolveModel('BAAI/bge-small-en-v1.5', { ...o, offline: false }).source).toBe('hub');
    expect(hubCacheFolder('/c', 'a/b')).toBe('/c/hf/a/b');
    expect(hubCacheFolder('/c', 'a/b', 'main')).toBe('/c/hf/a/b');
  });
});

describe('hub download (local HTTP server standing in for the hub)', () => {
  it('downloads online into <cache>/hf/<org>/<name>, then works offline from the cache; uncached refuses', async () => {
    const cacheDir = join(root, 'hubcache');
    const online = { offline: false, cacheDir, modelsDir: join(root, 'models'), endpoint: host };
    requests.length = 0;
    const e1 = await Embedder.load(resolveModel('tiny-org/tiny-enc', online), opts, online);
    const v1 = await e1.embed(['skill search agent'], 'document');
    await e1.dispose();
    expect(requests).toContain('GET /tiny-org/tiny-enc/resolve/main/onnx/model.onnx');
    expect(requests).toContain('GET /tiny-org/tiny-enc/resolve/main/tokenizer.json');
    const folder = join(cacheDir, 'hf', 'tiny-org', 'tiny-enc');
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']) {
      expect(readFileSync(join(folder, f)).equals(readFileSync(join(enc.dir, f)))).toBe(true);
    }

    // Offline: served from the cache, no request.
    requests.length = 0;
    const offline = { offline: true, cacheDir, modelsDir: join(root, 'models'), endpoint: host };
    const e2 = await Embedder.load(resolveModel('tiny-org/tiny-enc', offline), opts, offline);
    expect(e2.modelFiles).toEqual([join(folder, 'onnx', 'model.onnx')]);
    expect(await e2.embed(['skill search agent'], 'document')).toEqual(v1);
    await e2.dispose();
    expect(requests).toEqual([]);

    // A revision goes into the URL and into its own cache folder.
    const e3 = await Embedder.load(resolveModel('tiny-org/tiny-enc@v2', online), opts, online);
    await e3.dispose();
    expect(requests).toContain('GET /tiny-org/tiny-enc/resolve/v2/config.json');
    expect(existsSync(join(folder, 'v2', 'onnx', 'model.onnx'))).toBe(true);

    // Offline and not cached: refused before any request.
    requests.length = 0;
    expect(() => resolveModel('tiny-org/other', offline)).toThrow(`put its files (config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx) in ${join(cacheDir, 'hf', 'tiny-org', 'other')}`);
    // Offline, config cached but the dtype's ONNX file is not: refused naming the file and folder.
    await expect(Embedder.load(resolveModel('tiny-org/tiny-enc', offline), { ...opts, dtype: 'q8' }, offline)).rejects.toThrow(
      `onnx/model_quantized.onnx not in the cache; put the files in ${folder}`,
    );
    expect(requests).toEqual([]);
  });

  it('an unknown hub model online gives a one-line UserError', async () => {
    const online = { offline: false, cacheDir: join(root, 'hubcache2'), modelsDir: join(root, 'models'), endpoint: host };
    const err = await Embedder.load(resolveModel('other-org/missing', online), opts, online).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/^model "other-org\/missing": cannot load: /);
    expect((err as Error).message).not.toContain('\n');
  });
});
