import { PROTOCOL_DOC } from './helpers/shared.js';
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';
import { denseRetrieve, type DenseSpec } from '../src/retrieval/dense/retriever.js';
import { EMBEDDER_PRESETS, findEmbedderPreset, SKILL_INSTRUCTION, BGE_QUERY_PREFIX } from '../src/models/embedder-presets.js';
import { silentProgress } from '../src/util/progress.js';
import type { StageContext } from '../src/core/context.js';
import { compareIdBytes } from '../src/retrieval/dense/indexes/exact.js';

let root: string;
let enc: TinyModelInfo;

const WORDS = ['skill', 'search', 'agent', 'code', 'data', 'file', 'test', 'user', 'deploy', 'review', 'git', 'docker', 'python', 'api'];
const DOCS = Array.from({ length: 60 }, (_, i) => ({
  id: `skill-${String(i).padStart(2, '0')}`,
  text: Array.from({ length: 3 + (i % 9) }, (_, j) => WORDS[(i * 3 + j * 5) % WORDS.length]).join(' '),
}));
DOCS.push({ id: 'skill-dup', text: DOCS[0]!.text }); // same vector as skill-00: an exact score tie
const QUERIES = Array.from({ length: 8 }, (_, i) => ({ id: `q-${i}`, text: `${WORDS[i]} ${WORDS[(i + 4) % WORDS.length]}` }));
QUERIES.push({ id: 'q-tie', text: DOCS[0]!.text });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-dense-'));
  process.env.SKILLRET_MODELS_DIR = join(root, 'models');
  enc = buildTinyEncoder(join(root, 'enc'), { seed: 12 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function ctx(cacheDir: string, logs: string[], over: Partial<StageContext> = {}): StageContext {
  return { cacheDir, useCache: true, offline: true, progress: silentProgress, log: (l) => logs.push(l), ...over };
}

const base = (over: Partial<DenseSpec> = {}): DenseSpec => ({
  id: 'tiny',
  model: enc.dir,
  pooling: 'mean',
  normalize: true,
  batchSize: 8,
  threads: 1,
  topK: 5,
  index: { type: 'exact' },
  ...over,
});

describe('denseRetrieve', () => {
  it('exact: top-k in trec order with float32 scores, full info; second run is all cache hits', async () => {
    const cacheDir = join(root, 'c1');
    const logs: string[] = [];
    const a = await denseRetrieve(ctx(cacheDir, logs), base({ maxTokens: 8 }), DOCS, QUERIES);
    expect([...a.run.keys()]).toEqual(QUERIES.map((q) => q.id));
    for (const list of a.run.values()) {
      expect(list).toHaveLength(5);
      for (let i = 0; i + 1 < list.length; i++) {
        const x = list[i]!;
        const y = list[i + 1]!;
        expect(x.score > y.score || (x.score === y.score && compareIdBytes(x.docId, y.docId) > 0)).toBe(true);
      }
      for (const d of list) expect(Math.fround(d.score)).toBe(d.score);
    }
    // The tie: a query equal to skill-00's text finds skill-00 and skill-dup with one score, 'skill-dup' first.
    const tie = a.run.get('q-tie')!;
    expect(tie[0]!.docId).toBe('skill-dup');
    expect(tie[1]!.docId).toBe('skill-00');
    expect(tie[0]!.score).toBe(tie[1]!.score);
    expect(a.exactRun).toBeUndefined();

    const longDocs = DOCS.filter((d) => d.text.split(' ').length + 2 > 8);
    expect(a.info).toMatchObject({
      id: 'tiny',
      model: { source: 'local', location: enc.dir, preset: null, warning: null, revision: null },
      options: { queryPrefix: '', docPrefix: '', pooling: 'mean', normalize: true, maxTokens: 8, effectiveMaxTokens: 8, modelMaxTokens: 64, dtype: 'fp32', batchSize: 8, threads: 1, topK: 5 },
      dims: 16,
      cache: { enabled: true, hits: 0, misses: DOCS.length + QUERIES.length, corruptChunks: 0 },
      index: { type: 'exact' },
    });
    expect(a.info.truncation).toEqual({ documentsTruncated: longDocs.length, documentsTotal: DOCS.length, queriesTruncated: 0 });
    expect(a.info.modelSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(a.info.modelFiles).toEqual([{ name: 'model.onnx', sha256: a.info.modelSha256 }]);
    expect(a.info.throughput.docsPerSec).toBeGreaterThan(0);
    expect(a.info.throughput.tokensPerSec).toBeGreaterThan(0);

    const b = await denseRetrieve(ctx(cacheDir, logs), base({ maxTokens: 8 }), DOCS, QUERIES);
    expect(b.info.cache).toMatchObject({ hits: DOCS.length + QUERIES.length, misses: 0 });
    expect(b.info.throughput).toEqual({ docsPerSec: null, tokensPerSec: null, queriesPerSec: null });
    expect(b.info.truncation).toEqual(a.info.truncation);
    expect(b.run).toEqual(a.run);
    expect(logs).toEqual([]);
  });

  it('hnsw: returns the exact run too (for the pipeline audit), and reuses the stored index', async () => {
    const cacheDir = join(root, 'c2');
    const logs: string[] = [];
    const spec = base({ index: { type: 'hnsw', M: 16, efConstruction: 100, efSearch: 50, seed: 1 } });
    const a = await denseRetrieve(ctx(cacheDir, logs), spec, DOCS, QUERIES);
    expect(a.exactRun).toBeDefined();
    expect(a.info).not.toHaveProperty('overlap'); // one audit: the pipeline's (approximation in metrics.json)
    expect(a.run).toEqual(a.exactRun); // 61 documents: the graph search is exhaustive
    expect(a.info.index).toMatchObject({ type: 'hnsw', M: 16, efConstruction: 100, efSearch: 50, seed: 1, reused: false });
    const b = await denseRetrieve(ctx(cacheDir, logs), spec, DOCS, QUERIES);
    expect(b.info.index).toMatchObject({ reused: true });
    expect(b.run).toEqual(a.run);
    const exact = await denseRetrieve(ctx(cacheDir, logs), base(), DOCS, QUERIES);
    expect(exact.run).toEqual(a.exactRun);
  });

  it('a hub model without preset runs with a warning; a paper model id maps to its preset and ONNX export', async () => {
    const cacheDir = join(root, 'c3');
    cpSync(enc.dir, join(cacheDir, 'hf', 'someone', 'tiny'), { recursive: true });
    const logs: string[] = [];
    const a = await denseRetrieve(ctx(cacheDir, logs), base({ model: 'someone/tiny' }), DOCS.slice(0, 10), QUERIES.slice(0, 2));
    expect(a.info.model).toMatchObject({ source: 'hub', location: 'someone/tiny', preset: null });
    expect(a.info.model.warning).toContain('prompt may not match the paper');
    expect(logs).toEqual([`dense tiny: ${a.info.model.warning}`]);

    // The paper's id -> the preset's hub export (here filled by hand in the cache); offline refusal names that folder.
    const refusal = await denseRetrieve(ctx(cacheDir, logs), { id: 'bge', model: 'BAAI/bge-small-en-v1.5', topK: 3, index: { type: 'exact' } }, DOCS, QUERIES).catch((e: unknown) => e);
    expect((refusal as Error).message).toContain(join(cacheDir, 'hf', 'Xenova', 'bge-small-en-v1.5'));
    cpSync(enc.dir, join(cacheDir, 'hf', 'Xenova', 'bge-small-en-v1.5'), { recursive: true });
    const b = await denseRetrieve(ctx(cacheDir, logs), { id: 'bge', model: 'BAAI/bge-small-en-v1.5', topK: 3, index: { type: 'exact' } }, DOCS.slice(0, 10), QUERIES.slice(0, 2));
    expect(b.info.model).toMatchObject({ source: 'hub', location: 'Xenova/bge-small-en-v1.5', preset: 'bge-small-en-v1.5', paperModel: 'BAAI/bge-small-en-v1.5', warning: null });
    expect(b.info.options).toMatchObject({ queryPrefix: BGE_QUERY_PREFIX, docPrefix: '', pooling: 'cls', normalize: true, maxTokens: 512, effectiveMaxTokens: 64 });
    // A revision of the paper's repo cannot be carried over to the export repo.
    const pinned = await denseRetrieve(ctx(cacheDir, logs), { id: 'bge', model: 'BAAI/bge-small-en-v1.5@abc', topK: 3, index: { type: 'exact' } }, DOCS, QUERIES).catch((e: unknown) => e);
    expect((pinned as Error).message).toBe(
      'retrievers.bge.model: "BAAI/bge-small-en-v1.5@abc" pins a revision of BAAI/bge-small-en-v1.5, but the preset loads the ONNX export Xenova/bge-small-en-v1.5; write Xenova/bge-small-en-v1.5@<revision>',
    );
    // Explicit options override the preset.
    const c = await denseRetrieve(ctx(cacheDir, logs), { id: 'bge', model: 'bge-small-en-v1.5', queryPrefix: 'x ', pooling: 'mean', topK: 3, index: { type: 'exact' } }, DOCS.slice(0, 10), QUERIES.slice(0, 2));
    expect(c.info.options).toMatchObject({ queryPrefix: 'x ', pooling: 'mean' });
  });

  it('--no-cache: writes nothing under the cache folder', async () => {
    const cacheDir = join(root, 'c4');
    const logs: string[] = [];
    await denseRetrieve(ctx(cacheDir, logs, { useCache: false }), base({ index: { type: 'hnsw', M: 8, efConstruction: 50, efSearch: 20, seed: 1 } }), DOCS, QUERIES);
    expect(existsSync(cacheDir)).toBe(false);
  });
});

const PROTOCOL = PROTOCOL_DOC;
const haveProtocol = existsSync(PROTOCOL);
if (!haveProtocol) console.log(`skipping protocol-text prompt check: ${PROTOCOL} not found`);

describe('embedder presets', () => {
  it('carry the protocol prompts byte for byte', () => {
    const p = (n: string) => findEmbedderPreset(n)!;
    expect(SKILL_INSTRUCTION).toBe('Instruct: Given a skill search query, retrieve relevant skills that match the query\nQuery: ');
    expect(SKILL_INSTRUCTION.endsWith(' ')).toBe(true);
    // Documents (and bge/e5 queries) go through sentence-transformers' encode_document / encode_query
    // in the official code: the model's role prompt, if it defines one, then the benchmark's prefix.
    expect(p('Qwen/Qwen3-Embedding-0.6B')).toMatchObject({ queryPrefix: SKILL_INSTRUCTION, docPrefix: { roleDefault: true }, pooling: 'last_token', maxTokens: 32768, hubId: 'onnx-community/Qwen3-Embedding-0.6B-ONNX' });
    for (const n of ['BAAI/bge-small-en-v1.5', 'BAAI/bge-large-en-v1.5']) {
      expect(p(n)).toMatchObject({ queryPrefix: { roleDefault: true, prefix: 'Represent this sentence for searching relevant passages: ' }, docPrefix: { roleDefault: true }, pooling: 'cls', maxTokens: 512, normalize: true });
    }
    expect(p('Snowflake/snowflake-arctic-embed-s')).toMatchObject({ queryPrefix: { ownPrompt: 'query', fallback: 'Represent this sentence for searching relevant passages: ' }, docPrefix: { roleDefault: true }, pooling: 'cls', maxTokens: 512, normalize: true });
    for (const n of ['intfloat/e5-small-v2', 'intfloat/e5-large-v2']) {
      expect(p(n)).toMatchObject({ queryPrefix: { roleDefault: true, prefix: 'query: ' }, docPrefix: { roleDefault: true, prefix: 'passage: ' }, pooling: 'mean', maxTokens: 512 });
    }
    expect(p('glove-6b-100d-static')).toMatchObject({ hubId: null, localFolder: 'glove-6b-100d-static', pooling: 'mean', normalize: true });
    expect(findEmbedderPreset('bge-small')).toBeUndefined(); // no substring matching
    expect(findEmbedderPreset('xenova/BGE-SMALL-EN-V1.5@abc')?.name).toBe('bge-small-en-v1.5');
    expect(new Set(EMBEDDER_PRESETS.map((x) => x.name)).size).toBe(EMBEDDER_PRESETS.length);
  });

  it.skipIf(!haveProtocol)('S matches the JSON literal in the protocol text', () => {
    const text = readFileSync(PROTOCOL, 'utf8');
    const m = /^S = `("Instruct:[^`]*")`/m.exec(text);
    expect(m).not.toBeNull();
    expect(JSON.parse(m![1]!)).toBe(SKILL_INSTRUCTION);
    const bge = /\| BAAI\/bge-small-en-v1\.5, BAAI\/bge-large-en-v1\.5 \| `("[^`]*")`/.exec(text);
    expect(JSON.parse(bge![1]!)).toBe(BGE_QUERY_PREFIX);
  });
});
