/**
 * The onnxruntime thread count is not part of the embedding cache key (encode-cached.ts): the
 * vectors must not depend on it. Pinned here bit for bit on the bundled models (USE Lite, a real
 * 2-layer transformer; GloVe static) and the tiny BERT-shaped test encoder, at 1, 2 and 3 intra-op
 * threads (GloVe: 1 and 2), on the fixture's documents and queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Embedder } from '../src/retrieval/dense/embedding/embedder.js';
import { findEmbedderPreset } from '../src/models/embedder-presets.js';
import { resolveModel } from '../src/models/resolve.js';
import { modelsDir } from '../src/util/paths.js';
import { buildTinyEncoder } from './helpers/tiny-models.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-threads-'));
  buildTinyEncoder(join(root, 'enc'), { seed: 11, maxPositions: 512 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const jsonl = (p: string) =>
  readFileSync(join(import.meta.dirname, '..', p), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, string>);
const TEXTS = [
  ...jsonl('data/mini/skills/test.jsonl').map((s) => `${s['name']} | ${s['description']} | ${s['skill_md'] ?? ''}`),
  ...jsonl('data/mini/queries/test.jsonl').map((q) => q['query']!),
];

async function vectors(folder: string, preset: string | null, threads: number): Promise<Float32Array[]> {
  const p = preset ? findEmbedderPreset(preset)! : null;
  const loc = { offline: true, cacheDir: join(root, 'cache'), modelsDir: modelsDir() };
  const e = await Embedder.load(
    resolveModel(folder, loc),
    { queryPrefix: '', docPrefix: '', pooling: p && p.pooling !== 'model' ? p.pooling : 'mean', normalize: p?.normalize !== false, maxTokens: p?.maxTokens ?? null, dtype: 'fp32', batchSize: 8, threads },
    loc,
  );
  try {
    return await e.embed(TEXTS, 'document');
  } finally {
    await e.dispose();
  }
}

function bits(vs: Float32Array[]): Uint32Array[] {
  return vs.map((v) => new Uint32Array(v.buffer, v.byteOffset, v.length));
}

describe('embeddings do not depend on the thread count', () => {
  // GloVe's 321k-word tokenizer is slow to load: 1 and 2 threads only.
  const models: [string, () => string, string | null, number[]][] = [
    ['USE Lite', () => join(modelsDir(), findEmbedderPreset('use-lite-512')!.localFolder!), 'use-lite-512', [2, 3]],
    ['GloVe static', () => join(modelsDir(), findEmbedderPreset('glove-6b-100d-static')!.localFolder!), 'glove-6b-100d-static', [2]],
    ['tiny BERT-shaped encoder', () => join(root, 'enc'), null, [2, 3]],
  ];
  for (const [name, folder, preset, more] of models) {
    it(`${name}: 1 and ${more.join(', ')} threads give the same bits`, async () => {
      const one = bits(await vectors(folder(), preset, 1));
      expect(one).toHaveLength(TEXTS.length);
      expect(one.some((v) => v.some((x) => x !== 0))).toBe(true);
      for (const threads of more) expect(bits(await vectors(folder(), preset, threads))).toEqual(one);
    });
  }
});
