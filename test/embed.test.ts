/**
 * The embedder through the real transformers.js + onnxruntime path, on tiny random-weight
 * models whose maths `referenceForward` recomputes in plain JS.
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { buildTinyDecoder, buildTinyEncoder, seededUniform, type TinyModelInfo } from './helpers/tiny-models.js';
import { Embedder, type EmbedderOptions } from '../src/retrieval/dense/embedding/embedder.js';
import { resolveModel } from '../src/models/resolve.js';
import { bucketWidth } from '../src/util/length-buckets.js';
import { frameAndTruncate, learnFrame } from '../src/retrieval/dense/tokenizers/token-frame.js';
import { poolBatch } from '../src/retrieval/dense/embedding/pooling.js';

let root: string;
let enc: TinyModelInfo;
let dec: TinyModelInfo;
let decKv: TinyModelInfo;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-embed-'));
  enc = buildTinyEncoder(join(root, 'enc'), { seed: 5, maxPositions: 64 });
  dec = buildTinyDecoder(join(root, 'dec'), { seed: 6, appendEos: true, maxPositions: 128 });
  decKv = buildTinyDecoder(join(root, 'dec-kv'), { seed: 6, appendEos: true, maxPositions: 128, withCache: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const loc = () => ({ offline: true, cacheDir: join(root, 'cache'), modelsDir: join(root, 'models') });

async function load(dir: string, o: Partial<EmbedderOptions>): Promise<Embedder> {
  const opts: EmbedderOptions = {
    queryPrefix: '',
    docPrefix: '',
    pooling: 'mean',
    normalize: false,
    maxTokens: null,
    dtype: 'fp32',
    batchSize: 4,
    threads: 1,
    ...o,
  };
  return Embedder.load(resolveModel(dir, loc()), opts, loc());
}

/** Tokens of one text through the model's own tokenizer (ids of the vocabulary, lower-cased words). */
function wordIds(m: TinyModelInfo, text: string): number[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => m.ids[w] ?? m.ids['[UNK]'] ?? m.ids['<unk>']!);
}

function pool(hidden: number[][], how: 'cls' | 'mean' | 'last', normalize: boolean): number[] {
  const H = hidden[0]!.length;
  let v: number[];
  if (how === 'cls') v = hidden[0]!.slice();
  else if (how === 'last') v = hidden[hidden.length - 1]!.slice();
  else v = Array.from({ length: H }, (_, j) => hidden.reduce((s, row) => s + row[j]!, 0) / hidden.length);
  if (normalize) {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    v = v.map((x) => x / n);
  }
  return v;
}

function expectClose(a: ArrayLike<number>, b: ArrayLike<number>, tol = 2e-5): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThanOrEqual(tol);
}

const TEXTS = [
  'search the database for a backup',
  'deploy',
  'write a python script to review code and run tests on github with a ci pipeline',
  'kubernetes cluster monitoring alert',
  'create new skill',
];

describe('encoder (BERT-shaped) pooling against hand-computed pooling of last_hidden_state', () => {
  for (const [pooling, how] of [
    ['cls', 'cls'],
    ['mean', 'mean'],
    ['last_token', 'last'],
  ] as const) {
    it(`${pooling}, normalised and not`, async () => {
      for (const normalize of [false, true]) {
        const e = await load(enc.dir, { pooling, normalize });
        const got = await e.embed(TEXTS, 'document');
        TEXTS.forEach((t, i) => {
          const ids = [enc.ids['[CLS]']!, ...wordIds(enc, t), enc.ids['[SEP]']!];
          const want = pool(enc.referenceForward(ids).hidden, how, normalize);
          expectClose(got[i]!, want);
        });
        expect(got.every((v) => v instanceof Float32Array)).toBe(true);
        await e.dispose();
      }
    });
  }
});

describe('against the raw ONNX output (onnxruntime directly, one unpadded sequence at a time)', () => {
  it('cls / mean pooling of last_hidden_state equal the embedder (which pads in batches)', async () => {
    const session = await ort.InferenceSession.create(join(enc.dir, 'onnx', 'model.onnx'));
    const raw = async (ids: number[]): Promise<number[][]> => {
      const t = (v: number[]) => new ort.Tensor('int64', BigInt64Array.from(v.map(BigInt)), [1, v.length]);
      const out = await session.run({ input_ids: t(ids), attention_mask: t(ids.map(() => 1)), token_type_ids: t(ids.map(() => 0)) });
      const h = out['last_hidden_state']!;
      const H = h.dims[2]!;
      const data = h.data as Float32Array;
      return ids.map((_, i) => Array.from(data.subarray(i * H, (i + 1) * H)));
    };
    for (const [pooling, how] of [
      ['cls', 'cls'],
      ['mean', 'mean'],
    ] as const) {
      const e = await load(enc.dir, { pooling, normalize: true, batchSize: 5 });
      const got = await e.embed(TEXTS, 'query');
      for (let i = 0; i < TEXTS.length; i++) {
        const ids = e.tokenize([TEXTS[i]!], 'query')[0]!.ids;
        expectClose(got[i]!, pool(await raw(ids), how, true));
      }
      await e.dispose();
    }
    await session.release();
  });
});

describe('decoder (Qwen3-shaped, left padding) last-token pooling', () => {
  it('takes the last non-pad token (the appended <|endoftext|>) whatever the padding', async () => {
    for (const dir of [dec.dir, decKv.dir]) {
      const e = await load(dir, { pooling: 'last_token', normalize: true });
      expect(e.paddingSide).toBe('left');
      const got = await e.embed(TEXTS, 'document');
      TEXTS.forEach((t, i) => {
        const ids = [...wordIds(dec, t), dec.ids['<|endoftext|>']!];
        expectClose(got[i]!, pool(dec.referenceForward(ids).hidden, 'last', true));
      });
      await e.dispose();
    }
  });

  it('keeps <|endoftext|> when truncating (transformers.js alone would cut it off)', async () => {
    const e = await load(dec.dir, { pooling: 'last_token', normalize: false, maxTokens: 4 });
    const [v] = await e.embed([TEXTS[2]!], 'document');
    const ids = [...wordIds(dec, TEXTS[2]!).slice(0, 3), dec.ids['<|endoftext|>']!];
    expectClose(v!, pool(dec.referenceForward(ids).hidden, 'last', false));
    expect(e.lastRun).toMatchObject({ truncatedTexts: 1 });
    expect(e.lastRun).not.toHaveProperty('tokensDropped');
    await e.dispose();
  });
});

describe('prefixes, truncation, batching', () => {
  it('puts the query prefix in front of queries and the document prefix in front of documents', async () => {
    const e = await load(enc.dir, { pooling: 'mean', queryPrefix: 'query ', docPrefix: 'document ' });
    const plain = await load(enc.dir, { pooling: 'mean' });
    const [q] = await e.embed(['skill search'], 'query');
    const [d] = await e.embed(['skill search'], 'document');
    const [q2, d2] = await plain.embed(['query skill search', 'document skill search'], 'document');
    expectClose(q!, q2!, 0);
    expectClose(d!, d2!, 0);
    expect(Math.abs(q![0]! - d![0]!)).toBeGreaterThan(1e-6);
    await e.dispose();
    await plain.dispose();
  });

  it('cuts at min(maxTokens, model max), keeps [CLS] … [SEP], and says exactly which texts it cut', async () => {
    const long = Array.from({ length: 100 }, (_, i) => TINY_LOOP[i % TINY_LOOP.length]).join(' '); // 102 tokens with specials
    const e = await load(enc.dir, { pooling: 'cls', maxTokens: 1000 });
    expect(e.modelMaxLength).toBe(64);
    expect(e.maxLength).toBe(64); // the model's 64 wins over 1000 (the ONNX model fails beyond 64)
    const [v] = await e.embed([long, 'deploy'], 'document');
    const ids = [enc.ids['[CLS]']!, ...wordIds(enc, long).slice(0, 62), enc.ids['[SEP]']!];
    expectClose(v!, pool(enc.referenceForward(ids).hidden, 'cls', false));
    expect(e.lastRun).toMatchObject({ texts: 2, truncatedTexts: 1, tokens: 64 + 3 });

    const e8 = await load(enc.dir, { pooling: 'mean', maxTokens: 8 });
    expect(e8.maxLength).toBe(8);
    const tok = e8.tokenize([long], 'document')[0]!;
    expect(tok.ids).toEqual([enc.ids['[CLS]']!, ...wordIds(enc, long).slice(0, 6), enc.ids['[SEP]']!]);
    expect(tok.truncated).toBe(true);
    // At the edge: 6 words + [CLS] [SEP] fit 8 tokens exactly, 7 words do not.
    const [fits, over] = e8.tokenize([TINY_LOOP.slice(0, 6).join(' '), TINY_LOOP.slice(0, 7).join(' ')], 'document');
    expect(fits).toEqual({ ids: [enc.ids['[CLS]']!, ...wordIds(enc, TINY_LOOP.slice(0, 6).join(' ')), enc.ids['[SEP]']!], truncated: false });
    expect(over!.truncated).toBe(true);
    expect(over!.ids).toHaveLength(8);
    await e.dispose();
    await e8.dispose();
  });

  it('length batching restores input order and gives the vectors of batch size 1', async () => {
    const texts = [...TEXTS, ...TEXTS.map((t) => `${t} ${t}`), 'a', 'the the the'];
    const batched = await load(enc.dir, { pooling: 'mean', normalize: true, batchSize: 3 });
    const single = await load(enc.dir, { pooling: 'mean', normalize: true, batchSize: 1 });
    const seen: number[][] = [];
    const a = await batched.embed(texts, 'document', (b) => void seen.push(b.indices));
    const b = await single.embed(texts, 'document');
    texts.forEach((_, i) => expectClose(a[i]!, b[i]!, 1e-6));
    // Batches went widest bucket first, each batch within one bucket, and every text came once.
    expect(seen.flat().sort((x, y) => x - y)).toEqual(texts.map((_, i) => i));
    const lens = batched.tokenize(texts, 'document').map((t) => t.ids.length);
    const widths = seen.map((batch) => new Set(batch.map((i) => bucketWidth(lens[i]!, batched.maxLength))));
    expect(widths.every((w) => w.size === 1)).toBe(true);
    const order = widths.map((w) => [...w][0]!);
    expect(order).toEqual([...order].sort((x, y) => y - x));
    expect(batched.lastRun!.paddedTokens).toBeGreaterThanOrEqual(batched.lastRun!.tokens);
    await batched.dispose();
    await single.dispose();
  });
});

const TINY_LOOP = ['skill', 'search', 'agent', 'code', 'data', 'file', 'test', 'user'];

describe('pure parts', () => {
  it('poolBatch reads number and bigint masks alike, either padding side, and pools only the rows asked for', () => {
    // [B=3, T=3, H=2]: row 0 right-padded (2 real), row 1 left-padded (2 real), row 2 a filler copy.
    const data = Float32Array.from([1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 9, 1, 2, 3, 4, 0, 0]);
    const numbers = [1, 1, 0, 0, 1, 1, 1, 1, 0];
    const bigints = BigInt64Array.from(numbers.map(BigInt));
    const h = { data, batch: 3, tokens: 3, hidden: 2 };
    for (const mask of [numbers, bigints]) {
      expect(poolBatch(h, mask, 'cls', false, 2).map((v) => Array.from(v))).toEqual([[1, 2], [5, 6]]);
      expect(poolBatch(h, mask, 'last_token', false, 2).map((v) => Array.from(v))).toEqual([[3, 4], [7, 9]]);
      expect(poolBatch(h, mask, 'mean', false, 2).map((v) => Array.from(v))).toEqual([[2, 3], [6, 7.5]]);
      expect(poolBatch(h, mask, 'mean', false)).toHaveLength(3);
    }
    expect(() => poolBatch(h, numbers, 'cls', false, 4)).toThrow('pooling: 4 rows asked of a batch of 3');
    expect(() => poolBatch(h, [0, 0, 0, 1, 1, 1, 1, 1, 1], 'cls', false)).toThrow('pooling: text 0 of the batch has no real token');
  });

  it('mean pooling gives the plain masked mean bit for bit: row by row additions in double, whatever H, T and mask', () => {
    const u = seededUniform(11);
    /** The definition: per component, the real tokens added in order into a double, divided by their count. */
    const plain = (data: Float32Array, mask: number[], B: number, T: number, H: number, rows: number): Float32Array[] =>
      Array.from({ length: rows }, (_, b) => {
        const acc = new Float64Array(H);
        let count = 0;
        for (let t = 0; t < T; t++) {
          if (mask[b * T + t] === 0) continue;
          count++;
          for (let j = 0; j < H; j++) acc[j]! += data[(b * T + t) * H + j]!;
        }
        return Float32Array.from(acc, (x) => x / count);
      });
    let checked = 0;
    for (const [B, T, H] of [[1, 1, 1], [2, 3, 7], [3, 5, 8], [2, 64, 13], [3, 65, 16], [2, 200, 24], [4, 130, 512]] as const) {
      const data = Float32Array.from({ length: B * T * H }, () => {
        const r = u();
        // magnitudes apart, so the order of the additions shows in the low bits; -0 and exact zeros too
        return r > 0.9 ? -0 : r > 0.8 ? 0 : Math.fround(r * 10 ** Math.floor((u() + 1) * 4));
      });
      const mask = Array.from({ length: B * T }, (_, i) => (i % T === 0 || u() > -0.6 ? 1 : 0)); // holes anywhere, a real first token
      const rows = Math.max(1, B - 1);
      const got = poolBatch({ data, batch: B, tokens: T, hidden: H }, mask, 'mean', false, rows);
      const want = plain(data, mask, B, T, H, rows);
      got.forEach((v, b) => v.forEach((x, j) => expect(Object.is(x, want[b]![j]!), `B${B} T${T} H${H} row ${b} component ${j}`).toBe(true)));
      checked += rows * H;
    }
    expect(checked).toBeGreaterThan(1500);
  });

  it('frameAndTruncate keeps the special-token frame', () => {
    const frame = learnFrame((t, s) => {
      const ids = t.split(' ').map((w) => w.length);
      return s ? [101, ...ids, 102] : ids;
    });
    expect(frame).toEqual({ prefix: [101], suffix: [102] });
    expect(frameAndTruncate([1, 2, 3, 4, 5], frame, 4)).toEqual({ ids: [101, 1, 2, 102], truncated: true });
    expect(frameAndTruncate([1, 2, 3], frame, 4)).toEqual({ ids: [101, 1, 2, 102], truncated: true });
    expect(frameAndTruncate([1, 2], frame, 4)).toEqual({ ids: [101, 1, 2, 102], truncated: false });
  });
});
