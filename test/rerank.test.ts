/**
 * Second stage, pure parts: pair truncation (HF longest_first), the Qwen3-Reranker template
 * strings and P(yes), presets and spec resolution, the pool rule of rerankRun, the score cache and
 * the windowed wrapper (dedup, cache, windows). No models here (see rerank-models.test.ts); batch planning
 * and padding: batch-plan.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUserError } from '../src/core/errors.js';
import type { Run } from '../src/core/types.js';
import { findRerankerPreset, RERANKER_PRESETS } from '../src/models/reranker-presets.js';
import type { StageContext } from '../src/core/context.js';
import { WindowedReranker } from '../src/rerank/windowed-reranker.js';
import { lookupPairs } from '../src/rerank/unique-pairs.js';
import { requiredFiles, scoreDefiningFiles } from '../src/rerank/model-files.js';
import { modelFingerprint } from '../src/rerank/model-fingerprint.js';
import { clearFileHashMemo } from '../src/cache/file-sha256.js';
import { CacheStore } from '../src/cache/store.js';
import { openScores, scoreChunkDir } from './helpers/cache-damage.js';
import { sha256File, sha256Hex, stableStringify } from '../src/util/hash.js';
import { halfToFloat } from '../src/rerank/logits.js';
import { pYes, QWEN3_PREFIX, QWEN3_SUFFIX, qwen3Body, SKILL_INSTRUCTION, SKILLROUTER_INSTRUCTION } from '../src/models/qwen3-template.js';
import { rerankPool, rerankRun } from '../src/rerank/rerank.js';
import { pairKey } from '../src/rerank/score-cache.js';
import { resolveRerankerSpec } from '../src/rerank/spec.js';
import { crossEncoderScorer } from '../src/pipeline/rerankers/cross-encoder.js';
import { qwen3Scorer, qwen3Settings } from '../src/pipeline/rerankers/qwen3.js';
import { bodyBudget, longestFirst } from '../src/rerank/truncation.js';
import type { RerankPair, Reranker, RerankerSpec } from '../src/rerank/types.js';
import { silentProgress } from '../src/util/progress.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-rerank-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function userErrorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(isUserError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('longestFirst (HF tokenizers LongestFirst)', () => {
  it('leaves a fitting pair alone', () => {
    expect(longestFirst(10, 20, 30)).toEqual([10, 20]);
    expect(longestFirst(0, 0, 5)).toEqual([0, 0]);
  });
  it('cuts only the longer side when the shorter fits in what remains', () => {
    expect(longestFirst(10, 100, 50)).toEqual([10, 40]);
    expect(longestFirst(100, 10, 50)).toEqual([40, 10]);
    expect(longestFirst(24, 100, 50)).toEqual([24, 26]);
  });
  it('halves the budget when both are long, the odd token to the longer side', () => {
    expect(longestFirst(30, 40, 50)).toEqual([25, 25]);
    expect(longestFirst(30, 40, 51)).toEqual([25, 26]);
    expect(longestFirst(40, 30, 51)).toEqual([26, 25]);
    expect(longestFirst(70, 60, 51)).toEqual([26, 25]);
    expect(longestFirst(60, 60, 51)).toEqual([25, 26]);
  });
  it('never lengthens a side', () => {
    // short side 26 > 25: halves are 25/26, the shorter (26) is cut to 25, the longer to 26.
    expect(longestFirst(26, 30, 51)).toEqual([25, 26]);
  });
  it('never keeps more than the budget of either side (so a memo may keep only that head)', () => {
    for (let b = 0; b <= 9; b++) {
      for (let n1 = 0; n1 <= 14; n1++) {
        for (let n2 = 0; n2 <= 14; n2++) {
          const [k1, k2] = longestFirst(n1, n2, b);
          expect(k1 + k2).toBe(Math.min(n1 + n2, b));
          expect(k1 <= Math.min(n1, b) && k2 <= Math.min(n2, b)).toBe(true);
        }
      }
    }
  });
  it('body budget = max - prefix - suffix, and refuses a budget without room', () => {
    expect(bodyBudget(32768, 30, 12)).toBe(32726);
    expect(() => bodyBudget(42, 30, 12)).toThrow(/no room/);
  });
});

describe('Qwen3-Reranker template and P(yes)', () => {
  it('has the protocol strings byte for byte', () => {
    expect(QWEN3_PREFIX).toBe(
      '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. ' +
        'Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n',
    );
    expect(QWEN3_SUFFIX).toBe('<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
    expect(SKILL_INSTRUCTION).toBe('Given a skill search query, judge whether the skill document is relevant and useful for the query');
    expect(SKILLROUTER_INSTRUCTION).toBe('Given a task description, judge whether the skill document is relevant and useful for completing the task');
    expect(qwen3Body('qwen3', 'I', 'q', 'd')).toBe('<Instruct>: I\n<Query>: q\n<Document>: d');
    expect(qwen3Body('skillrouter', 'I', 'q', 'd')).toBe('<Instruct>: I\n\n<Query>: q\n\n<Document>: d');
  });
  it('P(yes) = softmax([yes, no])[0], stable for large logits', () => {
    expect(pYes(2, 1)).toBeCloseTo(1 / (1 + Math.exp(-1)), 15);
    expect(pYes(0, 0)).toBe(0.5);
    const naive = Math.exp(3.5) / (Math.exp(3.5) + Math.exp(-1.25));
    expect(pYes(3.5, -1.25)).toBeCloseTo(naive, 14);
    expect(pYes(-1.25, 3.5)).toBeCloseTo(1 - naive, 14);
    expect(pYes(1000, 0)).toBe(1);
    expect(pYes(0, 1000)).toBe(0);
    expect(Number.isFinite(pYes(-800, -801))).toBe(true);
  });
  it('reads float16 words', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x3555)).toBeCloseTo(0.33325, 5);
    expect(halfToFloat(0x0001)).toBe(2 ** -24);
  });
});

describe('presets and spec resolution', () => {
  const spec = (o: Partial<RerankerSpec>): RerankerSpec => ({ id: 'r', type: 'qwen3', model: 'qwen3-reranker-0.6b', depth: 20, ...o });
  /** Resolution with the defaults of the spec's kind (its scorer, declared in the kind's file). */
  const resolve = (s: RerankerSpec) => resolveRerankerSpec(s, s.type === 'qwen3' ? qwen3Scorer({}) : crossEncoderScorer);
  /** The qwen3 settings of an entry with `o`, resolved against the preset its spec names. */
  const qwen3Of = (o: Partial<RerankerSpec> & { template?: 'qwen3' | 'skillrouter'; instruction?: string }) => qwen3Settings(o, resolve(spec(o)).preset);

  it('finds presets by name, original id or export id, never by substring', () => {
    expect(findRerankerPreset('qwen3-reranker-0.6b')?.hubId).toBe('onnx-community/Qwen3-Reranker-0.6B-ONNX');
    expect(findRerankerPreset('Qwen/Qwen3-Reranker-0.6B')?.name).toBe('qwen3-reranker-0.6b');
    expect(findRerankerPreset('onnx-community/Qwen3-Reranker-0.6B-ONNX')?.name).toBe('qwen3-reranker-0.6b');
    expect(findRerankerPreset('Qwen3-Reranker-0.6B')).toBeUndefined();
    expect(findRerankerPreset('anonymous/SKILLRET-Reranker-0.6B')).toBeUndefined();
    expect(findRerankerPreset('jinaai/jina-reranker-v2-base-multilingual')?.maxTokens).toBe(1024);
    for (const p of RERANKER_PRESETS) expect(p.maxTokens).toBe(p.type === 'qwen3' ? 32768 : p.local ? 512 : 1024);
  });

  it('a qwen3 preset gives its export, dtype, template, instruction and 32,768 tokens', () => {
    const r = resolve(spec({}));
    expect(r).toMatchObject({ modelRef: 'onnx-community/Qwen3-Reranker-0.6B-ONNX', dtype: 'q8', maxTokens: 32768, depth: 20 });
    expect(qwen3Of({})).toEqual({ template: 'qwen3', instruction: SKILL_INSTRUCTION });
    const sr = resolve(spec({ model: 'some/export', preset: 'skillrouter-reranker-0.6b' }));
    expect(sr).toMatchObject({ modelRef: 'some/export' });
    expect(qwen3Of({ model: 'some/export', preset: 'skillrouter-reranker-0.6b' })).toEqual({ template: 'skillrouter', instruction: SKILLROUTER_INSTRUCTION });
    expect(sr.dtype).toBeUndefined();
    // A folder without a preset: the template's own default instruction; 32,768 tokens is the qwen3 kind's default.
    expect(resolve(spec({ model: '/m' })).maxTokens).toBe(32768);
    expect(qwen3Of({ model: '/m', template: 'skillrouter' }).instruction).toBe(SKILLROUTER_INSTRUCTION);
    expect(qwen3Of({ model: '/m' }).instruction).toBe(SKILL_INSTRUCTION);
    expect(qwen3Of({ model: '/m', instruction: 'X' }).instruction).toBe('X');
  });

  it('a preset without an ONNX export is a clear one-line error', () => {
    const msg = userErrorOf(() => resolve(spec({ model: 'ThakiCloud/SKILLRET-Reranker-0.6B' })));
    expect(msg).toMatch(/^reranker "r": model: no ONNX export of ThakiCloud\/SKILLRET-Reranker-0\.6B .*optimum-cli export onnx/);
    expect(msg).not.toContain('\n');
    expect(userErrorOf(() => resolve(spec({ model: 'qwen3-reranker-8b' })))).toMatch(/Qwen3-Reranker-8B/);
  });

  it('rejects a type that contradicts the preset, unknown presets and bad numbers', () => {
    expect(userErrorOf(() => resolve(spec({ type: 'cross-encoder' })))).toMatch(/type: "cross-encoder" but qwen3-reranker-0\.6b is a qwen3 reranker/);
    expect(userErrorOf(() => resolve(spec({ preset: 'nope' })))).toMatch(/preset: unknown preset "nope"/);
    expect(userErrorOf(() => resolve(spec({ batchSize: 0 })))).toMatch(/batch_size/);
    expect(userErrorOf(() => resolve(spec({ depth: 0 })))).toMatch(/depth/);
  });

  it('jina and the bundled GloVe scorer are cross-encoders', () => {
    expect(resolve(spec({ type: 'cross-encoder', model: 'jina-reranker-v2-base-multilingual' }))).toMatchObject({
      modelRef: 'jinaai/jina-reranker-v2-base-multilingual',
      maxTokens: 1024,
      dtype: 'fp32',
    });
    const g = resolve(spec({ type: 'cross-encoder', model: 'glove-6b-100d-maxsim' }));
    expect(g).toMatchObject({ local: 'glove-6b-100d-maxsim', modelRef: 'glove-6b-100d-maxsim' });
    expect(g.preset?.note).toMatch(/untrained GloVe MaxSim scorer, not a trained reranker/);
  });
});

/** A fake reranker: score = a hash-free function of the texts; records what it was asked. */
class FakeReranker implements Reranker {
  calls: RerankPair[][] = [];
  describe() {
    return { scorer: 'fake' };
  }
  async score(pairs: RerankPair[], onProgress?: (n: number) => void): Promise<number[]> {
    this.calls.push(pairs);
    onProgress?.(pairs.length);
    return pairs.map((p) => p.doc.length * 1000 + p.query.length + 0.25);
  }
}

const ctx = (): StageContext => ({ cacheDir: root, useCache: false, offline: true, progress: silentProgress, log: () => {} });

describe('rerank pool and rerankRun', () => {
  const docs = new Map([
    ['a', 'alpha'],
    ['b', 'bravo!'],
    ['c', 'charlie'],
    ['d', 'd'],
  ]);

  it("pool = first depth by score, ties in the first stage's own order (Python's stable sorted), then unknown ids dropped", () => {
    const cands = [
      { docId: 'a', score: 1 },
      { docId: 'zz', score: 3 },
      { docId: 'b', score: 2 },
      { docId: 'c', score: 2 },
      { docId: 'd', score: 0.5 },
    ];
    // by score, ties as given: zz(3), b(2), c(2), a(1), d(0.5) (trec order would put c before b)
    expect(rerankPool(cands, 3, docs)).toEqual({ pool: ['b', 'c'], skipped: 1 });
    expect(rerankPool(cands, 20, docs)).toEqual({ pool: ['b', 'c', 'a', 'd'], skipped: 1 });
    expect(rerankPool([], 20, docs)).toEqual({ pool: [], skipped: 0 });
    // A tie straddling the depth: the official pool takes the tied candidate listed first (b), where
    // trec order (id descending) would take c.
    expect(rerankPool(cands, 2, docs)).toEqual({ pool: ['b'], skipped: 1 });
    expect(rerankPool([{ docId: 'a', score: 1 }, { docId: 'c', score: 1 }, { docId: 'b', score: 1 }], 2, docs).pool).toEqual(['a', 'c']);
  });

  it('scores (query, doc) pairs of all queries in one call; the reranker score replaces the first-stage one', async () => {
    const first: Run = new Map([
      ['q1', [{ docId: 'a', score: 0.9 }, { docId: 'b', score: 0.8 }, { docId: 'c', score: 0.1 }]],
      ['q2', [{ docId: 'x', score: 5 }, { docId: 'd', score: 4 }]],
      ['q3', []],
      ['q4', [{ docId: 'nope', score: 1 }]],
    ]);
    const queries = new Map([
      ['q1', 'first query'],
      ['q2', 'q2'],
      ['q3', 'empty'],
      ['q4', 'all unknown'],
    ]);
    const fake = new FakeReranker();
    let progressed = 0;
    const c = { ...ctx(), progress: () => ({ increment: (n = 1) => (progressed += n), stop() {} }) };
    const { run, info } = await rerankRun(c, fake, first, queries, docs, 2);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toEqual([
      { query: 'first query', doc: 'alpha' },
      { query: 'first query', doc: 'bravo!' },
      { query: 'q2', doc: 'd' },
    ]);
    expect(run.get('q1')).toEqual([
      { docId: 'a', score: 5011.25 },
      { docId: 'b', score: 6011.25 },
    ]);
    // depth 2 takes x and d; x is not in the corpus.
    expect(run.get('q2')).toEqual([{ docId: 'd', score: 1002.25 }]);
    expect(run.get('q3')).toEqual([]);
    expect(run.get('q4')).toEqual([]);
    expect([...run.keys()]).toEqual(['q1', 'q2', 'q3', 'q4']);
    expect(info).toMatchObject({ pairs: 3, skippedUnknownDocs: 2, truncatedPairs: 0, cachedPairs: 0 });
    expect(progressed).toBe(3);
  });

  it('makes no model call when no query has candidates', async () => {
    const fake = new FakeReranker();
    const { run, info } = await rerankRun(ctx(), fake, new Map([['q', []]]), new Map([['q', 't']]), docs, 20);
    expect(fake.calls).toHaveLength(0);
    expect(run.get('q')).toEqual([]);
    expect(info.pairs).toBe(0);
  });
});

describe('score cache and windowed reranker', () => {
  it('round-trips scores exactly through chunk files and compacts many chunks', () => {
    const dir = join(root, 'cache1');
    const c = openScores(dir, { v: 1 });
    const vals = [0.1 + 0.2, -1e-300, 123456.789, 2 / 3];
    vals.forEach((v, i) => {
      c.put(pairKey(`q${i}`, 'd'), v);
      c.flush();
    });
    c.put(pairKey('nan', 'd'), NaN);
    c.flush();
    const again = openScores(dir);
    expect(again.size).toBe(4);
    vals.forEach((v, i) => expect(again.get(pairKey(`q${i}`, 'd'))).toBe(v));
    expect(again.get(pairKey('nan', 'd'))).toBeUndefined();
    expect(readdirSync(scoreChunkDir(dir)).filter((f) => f.endsWith('.jsonl'))).toHaveLength(4);
    expect(JSON.parse(readFileSync(join(scoreChunkDir(dir), 'key.json'), 'utf8'))).toEqual({ v: 1 });
    const compacted = openScores(dir, undefined, 2);
    expect(compacted.size).toBe(4);
    expect(readdirSync(scoreChunkDir(dir)).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
    expect(openScores(dir).get(pairKey('q3', 'd'))).toBe(2 / 3);
    expect(pairKey('a', 'bc')).not.toBe(pairKey('ab', 'c'));
  });

  it('scores duplicates once, serves cached pairs without the model, windows the rest', async () => {
    const dir = join(root, 'cache2');
    const fake = new FakeReranker();
    const d = new WindowedReranker(fake, { cache: openScores(dir), window: 2 });
    const pairs = [
      { query: 'q', doc: 'x' },
      { query: 'q', doc: 'yyy' },
      { query: 'q', doc: 'x' },
      { query: 'qq', doc: 'zz' },
    ];
    let progress = 0;
    const s1 = await d.score(pairs, (n) => (progress += n));
    expect(s1).toEqual([1001.25, 3001.25, 1001.25, 2002.25]);
    expect(progress).toBe(4);
    // 3 unique pairs, longest text first, windows of 2.
    expect(fake.calls).toEqual([
      [
        { query: 'q', doc: 'yyy' },
        { query: 'qq', doc: 'zz' },
      ],
      [{ query: 'q', doc: 'x' }],
    ]);
    const fake2 = new FakeReranker();
    const d2 = new WindowedReranker(fake2, { cache: openScores(dir) });
    expect(await d2.score([...pairs, { query: 'new', doc: 'w' }])).toEqual([...s1, 1003.25]);
    expect(fake2.calls).toEqual([[{ query: 'new', doc: 'w' }]]);
    expect(d2.stats().cachedPairs).toBe(4);
  });
});

describe('unique pairs', () => {
  const pairs = [
    { query: 'q', doc: 'x' },
    { query: 'q', doc: 'yyy' },
    { query: 'q', doc: 'x' },
    { query: 'qq', doc: 'zz' },
    { query: 'c', doc: 'cached' },
  ];
  const cache = { get: (key: string) => (key === pairKey('c', 'cached') ? 0.5 : undefined) };
  it('answers cached pairs, gathers identical pairs, orders the rest longest text first (ties by position)', () => {
    const l = lookupPairs(pairs, cache, false);
    expect(l.hits).toBe(1);
    expect(l.scores).toEqual([NaN, NaN, NaN, NaN, 0.5]);
    expect(l.unique).toEqual([
      { key: pairKey('q', 'yyy'), idx: [1] },
      { key: pairKey('qq', 'zz'), idx: [3] },
      { key: pairKey('q', 'x'), idx: [0, 2] },
    ]);
  });
  it('keeps input order when asked, and with no cache scores everything', () => {
    expect(lookupPairs(pairs, cache, true).unique.map((u) => u.idx)).toEqual([[0, 2], [1], [3]]);
    const l = lookupPairs(pairs, undefined, true);
    expect(l.hits).toBe(0);
    expect(l.unique.map((u) => u.idx)).toEqual([[0, 2], [1], [3], [4]]);
  });
});

describe('model files and fingerprint', () => {
  /** A reranker folder with the fp32 ONNX file, its external data and a q8 file. */
  function modelFolder(): string {
    const dir = mkdtempSync(join(root, 'model-'));
    mkdirSync(join(dir, 'onnx'));
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) writeFileSync(join(dir, f), `{"${f}":1}`);
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'graph');
    writeFileSync(join(dir, 'onnx', 'model.onnx_data'), 'weights');
    writeFileSync(join(dir, 'onnx', 'model_quantized.onnx'), 'q8 graph');
    return dir;
  }

  it('lists the files a dtype needs and the files that define its scores (external data included)', () => {
    expect(requiredFiles('q8')).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
    const dir = modelFolder();
    expect(scoreDefiningFiles(dir, 'fp32')).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model.onnx_data']);
    expect(scoreDefiningFiles(dir, 'q8')).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
    expect(scoreDefiningFiles(dir, 'fp16')).toBeUndefined();
    rmSync(join(dir, 'tokenizer.json'));
    expect(scoreDefiningFiles(dir, 'fp32')).toBeUndefined();
  });

  it('fingerprints sha256 of {path: file sha256}, the file hashes kept in the shared memo', async () => {
    const dir = modelFolder();
    const memoDir = CacheStore.of({ cacheDir: join(root, 'fingerprint-memo'), useCache: true, log: () => {} });
    const files = scoreDefiningFiles(dir, 'fp32')!;
    const parts: Record<string, string> = {};
    for (const f of files) parts[f] = await sha256File(join(dir, f));
    const expected = sha256Hex(stableStringify(parts));
    clearFileHashMemo();
    expect(await modelFingerprint(dir, 'fp32', memoDir)).toBe(expected);
    const memo = readdirSync(join(memoDir.root, 'file-sha256')).map((f) => readFileSync(join(memoDir.root, 'file-sha256', f), 'utf8').split('\n')[1]);
    expect(memo.sort()).toEqual(Object.values(parts).sort());
    // A changed weight file changes the fingerprint.
    writeFileSync(join(dir, 'onnx', 'model.onnx_data'), 'other weights');
    expect(await modelFingerprint(dir, 'fp32', memoDir)).not.toBe(expected);
    expect(await modelFingerprint(dir, 'fp16', memoDir)).toBeUndefined();
  });
});
