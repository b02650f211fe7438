/**
 * Second stage through the real library path (transformers.js + onnxruntime-node) on the tiny
 * random-weight models of test/helpers/tiny-models.ts:
 *  - cross-encoder: (query, document) order and special tokens, longest_first truncation (the
 *    query survives, truncated pairs counted), score = the raw logit, batch-size invariance;
 *  - qwen3: ids = prefix + body + suffix exactly (decoded text equals the template), body cut to
 *    the budget, left padding, P(yes) = softmax of the yes/no logits of an independent forward
 *    pass, batch-size invariance, SkillRouter template, the padding check;
 *  - createReranker + rerankRun end to end on local folders, with the score cache.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env, Tensor } from '@huggingface/transformers';
import type { Run } from '../src/core/types.js';
import { configureTransformersEnv } from '../src/models/resolve.js';
import type { StageContext } from '../src/core/context.js';
import { loadCrossEncoder, type CrossEncoderOptions, type CrossEncoderReranker } from '../src/rerank/cross-encoder.js';
import { loadQwen3, type Qwen3Options, type Qwen3Reranker } from '../src/rerank/qwen3.js';
import { QWEN3_PREFIX, QWEN3_SUFFIX, qwen3Body, SKILL_INSTRUCTION, SKILLROUTER_INSTRUCTION } from '../src/models/qwen3-template.js';
import { rerankRun } from '../src/rerank/rerank.js';
import { createReranker } from './helpers/rerankers.js';
import { silentProgress } from '../src/util/progress.js';
import { buildTinyCrossEncoder, buildTinyDecoder, QWEN_ADDED, TINY_WORDS, type TinyModelInfo } from './helpers/tiny-models.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-rerank-models-'));
  configureTransformersEnv({ offline: true, cacheDir: join(root, 'cache'), modelsDir: join(root, 'models') }, env);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const W = TINY_WORDS.filter((w) => /^[a-z]+$/.test(w));
/** `n` in-vocabulary words, deterministic. */
function words(n: number, offset = 0): string {
  return Array.from({ length: n }, (_, i) => W[(i * 7 + offset) % W.length]).join(' ');
}

function ceOpts(dir: string, o: Partial<CrossEncoderOptions> = {}): CrossEncoderOptions {
  return { id: 'ce', location: dir, dtype: 'fp32', threads: 1, batchSize: 8, concurrency: 1, ...o };
}

describe('cross-encoder (tiny BERT pair classifier)', () => {
  let info: TinyModelInfo;
  let ce: CrossEncoderReranker;
  beforeAll(async () => {
    info = buildTinyCrossEncoder(join(root, 'ce'));
    ce = await loadCrossEncoder(ceOpts(info.dir));
  });

  it('encodes [CLS] query [SEP] doc [SEP] with token types 0/1, like the library for a short pair', async () => {
    const e = ce.encodePair('search the code', 'fix a bug');
    const { ids } = info;
    expect(e.ids).toEqual([ids['[CLS]'], ids['search'], ids['the'], ids['code'], ids['[SEP]'], ids['fix'], ids['a'], ids['[UNK]'], ids['[SEP]']]);
    expect(e.typeIds).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(e.truncated).toBe(false);
    const lib = ce.tokenizer('search the code', { text_pair: 'fix a bug', return_tensor: false }) as unknown as { input_ids: number[]; token_type_ids: number[] };
    expect(e.ids).toEqual(lib.input_ids);
    expect(e.typeIds).toEqual(lib.token_type_ids);
  });

  it('scores the raw logit of the encoded (query, doc) input', async () => {
    const pairs = [
      { query: 'search the code', doc: 'git commit hook' },
      { query: 'deploy to aws', doc: 'write python scripts for data' },
    ];
    const scores = await ce.score(pairs);
    for (const [i, p] of pairs.entries()) {
      const e = ce.encodePair(p.query, p.doc);
      const ref = info.referenceForward(e.ids, e.typeIds).logits as number[];
      expect(scores[i]).toBeCloseTo(ref[0]!, 5);
    }
    expect(Math.abs(scores[0]! - scores[1]!)).toBeGreaterThan(1e-4);
  });

  it('cuts a long document to the model limit (longest_first), keeps the query and the closing [SEP], counts it', async () => {
    expect(ce.maxTokens).toBe(64); // the tokenizer's model_max_length
    const query = 'search the code';
    const doc = words(100);
    const before = ce.stats().truncatedPairs;
    const e = ce.encodePair(query, doc);
    expect(e.ids).toHaveLength(64);
    expect(e.truncated).toBe(true);
    const { ids } = info;
    expect(e.ids.slice(0, 5)).toEqual([ids['[CLS]'], ids['search'], ids['the'], ids['code'], ids['[SEP]']]);
    expect(e.ids.at(-1)).toBe(ids['[SEP]']);
    // 64 - 3 specials = 61 content tokens: query 3, document 58 (its head).
    const docIds = ce.tokenizer._tokenizer.encode(doc, { add_special_tokens: false }).ids;
    expect(e.ids.slice(5, 63)).toEqual(docIds.slice(0, 58));
    // Both long: 30 + 31 (the longer side gets the odd token).
    const both = ce.encodePair(words(40, 1), words(50, 2));
    expect(both.ids).toHaveLength(64);
    expect(both.typeIds!.filter((t) => t === 0)).toHaveLength(1 + 30 + 1);
    // Scoring works (an untruncated 100-word pair would make the model throw) and is counted.
    const s = await ce.score([{ query, doc }, { query, doc: 'short' }, { query: words(40, 1), doc: words(50, 2) }]);
    expect(s.every(Number.isFinite)).toBe(true);
    expect(ce.stats().truncatedPairs - before).toBe(2);
  });

  it('loads a config without model_type (custom-code models like jina v2) and refuses max_tokens past the positions', async () => {
    const dir = buildTinyCrossEncoder(join(root, 'ce-no-type')).dir;
    const cfgPath = join(dir, 'config.json');
    const cfg = JSON.parse(readFileSync(cfgPath, 'utf8')) as Record<string, unknown>;
    delete cfg.model_type;
    writeFileSync(cfgPath, JSON.stringify(cfg));
    const r = await loadCrossEncoder(ceOpts(dir));
    const pair = { query: 'search the code', doc: 'git commit hook' };
    expect((await r.score([pair]))[0]).toBeCloseTo((await ce.score([pair]))[0]!, 6);
    await expect(loadCrossEncoder(ceOpts(dir, { maxTokens: 65 }))).rejects.toThrow(/max_tokens 65 exceeds the model's 64 positions/);
  });

  it('gives the same scores with batch size 1 and 8 (length sorting restores order)', async () => {
    const pairs = Array.from({ length: 13 }, (_, i) => ({ query: words(1 + (i % 4), i), doc: words(3 + ((i * 5) % 17), i + 3) }));
    const one = await (await loadCrossEncoder(ceOpts(info.dir, { batchSize: 1 }))).score(pairs);
    const eight = await ce.score(pairs);
    const two = await (await loadCrossEncoder(ceOpts(info.dir, { batchSize: 2, concurrency: 3 }))).score(pairs);
    eight.forEach((s, i) => {
      expect(s).toBeCloseTo(one[i]!, 5);
      expect(two[i]).toBeCloseTo(one[i]!, 5);
    });
  });
});

/** GPT-2 byte → printable character map (ByteLevel pre-tokenizer alphabet). */
function byteChars(): string[] {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const out = new Array<string>(256);
  bs.forEach((b, i) => (out[b] = String.fromCharCode(cs[i]!)));
  return out;
}

/**
 * Replaces the tiny decoder's word-level tokenizer by a byte-level BPE without merges (one token
 * per UTF-8 byte, like Qwen's alphabet): decoding is then exact, so the template text can be
 * compared byte for byte. "yes", "no" and the chat tokens keep their ids.
 */
function makeByteLevel(info: TinyModelInfo): void {
  const path = join(info.dir, 'tokenizer.json');
  const tj = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const reserved = new Set([info.ids['yes']!, info.ids['no']!, ...QWEN_ADDED.map((t) => info.ids[t]!)]);
  const free = Array.from({ length: info.vocab.length }, (_, i) => i).filter((i) => !reserved.has(i));
  if (free.length < 256) throw new Error(`tiny decoder vocabulary too small (${info.vocab.length})`);
  const vocab: Record<string, number> = { yes: info.ids['yes']!, no: info.ids['no']! };
  byteChars().forEach((c, i) => (vocab[c] = free[i]!));
  tj.normalizer = null;
  tj.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  tj.decoder = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  tj.model = { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges: [] };
  writeFileSync(path, JSON.stringify(tj));
}

function q3Opts(dir: string, o: Partial<Qwen3Options> = {}): Qwen3Options {
  return { id: 'q3', location: dir, dtype: 'fp32', threads: 1, maxTokens: 32768, batchSize: 8, concurrency: 1, template: 'qwen3', instruction: SKILL_INSTRUCTION, ...o };
}

const decodeExact = (r: Qwen3Reranker, ids: number[]) => r.tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });

describe('qwen3 yes/no reranker (tiny Qwen3-shaped decoder)', () => {
  let info: TinyModelInfo;
  let q3: Qwen3Reranker;
  beforeAll(async () => {
    info = buildTinyDecoder(join(root, 'dec'), { extraWords: Array.from({ length: 80 }, (_, i) => `w${i}`) });
    makeByteLevel(info);
    q3 = await loadQwen3(q3Opts(info.dir));
  });

  it('builds prefix + body + suffix ids; the decoded input is the template text byte for byte', () => {
    const query = 'Find a skill: "PDF → text"?';
    const doc = 'pdf-tools | Extract text\nfrom PDFs | # Usage\n\n  run it';
    const e = q3.encodePair(query, doc);
    const enc = (t: string) => q3.tokenizer._tokenizer.encode(t, { add_special_tokens: false }).ids;
    expect(e.ids).toEqual([...enc(QWEN3_PREFIX), ...enc(qwen3Body('qwen3', SKILL_INSTRUCTION, query, doc)), ...enc(QWEN3_SUFFIX)]);
    expect(decodeExact(q3, e.ids)).toBe(
      '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. ' +
        'Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n' +
        '<Instruct>: Given a skill search query, judge whether the skill document is relevant and useful for the query\n' +
        `<Query>: ${query}\n<Document>: ${doc}` +
        '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
    );
    expect(q3.prefixIds[0]).toBe(info.ids['<|im_start|>']);
    expect(q3.suffixIds.slice(-6, -4)).toEqual([info.ids['<think>'], enc('\n')[0]]);
    expect(e.truncated).toBe(false);
    expect([q3.yesId, q3.noId]).toEqual([info.ids['yes'], info.ids['no']]);
  });

  it('cuts the body tail to max_tokens - prefix - suffix', async () => {
    const fixed = q3.prefixIds.length + q3.suffixIds.length;
    const r = await loadQwen3(q3Opts(info.dir, { maxTokens: fixed + 200 }));
    const body = qwen3Body('qwen3', SKILL_INSTRUCTION, 'q', 'a long document '.repeat(20));
    const e = r.encodePair('q', 'a long document '.repeat(20));
    expect(e.truncated).toBe(true);
    expect(e.ids).toHaveLength(fixed + 200);
    // Byte-level: 200 body tokens = the first 200 bytes of the (ASCII) body.
    expect(body.length).toBeGreaterThan(300);
    expect(decodeExact(r, e.ids)).toBe(QWEN3_PREFIX + body.slice(0, 200) + QWEN3_SUFFIX);
    expect(r.encodePair('q', 'd').truncated).toBe(false);
    await r.score([{ query: 'q', doc: 'a long document '.repeat(20) }, { query: 'q', doc: 'd' }]);
    expect(r.stats().truncatedPairs).toBe(1);
    await expect(loadQwen3(q3Opts(info.dir, { maxTokens: fixed }))).rejects.toThrow(/max_tokens/);
  });

  it("keeps the special tokens the tokenizer's post-processor adds to the body, as the official call does, and names them at load", async () => {
    // A fine-tuned checkpoint whose post-processor appends an end token to every sequence.
    const dir = join(root, 'dec-eos');
    cpSync(info.dir, dir, { recursive: true });
    const path = join(dir, 'tokenizer.json');
    const tj = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const eos = '<|endoftext|>';
    tj.post_processor = {
      type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: eos, type_id: 0 } }],
      special_tokens: { [eos]: { id: eos, ids: [info.ids[eos]], tokens: [eos] } },
    };
    writeFileSync(path, JSON.stringify(tj));
    const lines: string[] = [];
    const r = await loadQwen3(q3Opts(dir, { log: (l) => lines.push(l) }));
    expect(lines.filter((l) => l.includes('adds'))).toEqual([`reranker "q3": the tokenizer adds "${eos}" to the body, as the official tokenizer call does (special tokens on)`]);
    expect(r.describe().bodySpecialTokens).toEqual([eos]);
    const enc = (t: string) => r.tokenizer._tokenizer.encode(t, { add_special_tokens: false }).ids;
    const body = qwen3Body('qwen3', SKILL_INSTRUCTION, 'q', 'd');
    expect(r.encodePair('q', 'd').ids).toEqual([...enc(QWEN3_PREFIX), ...enc(body), info.ids[eos], ...enc(QWEN3_SUFFIX)]);
    // The body's max_length counts the special token: 200 tokens = 199 of content + the end token.
    const fixed = r.prefixIds.length + r.suffixIds.length;
    const cut = await loadQwen3(q3Opts(dir, { maxTokens: fixed + 200 }));
    const long = cut.encodePair('q', 'a long document '.repeat(20));
    expect(long.truncated).toBe(true);
    expect(long.ids).toHaveLength(fixed + 200);
    expect(decodeExact(cut, long.ids)).toBe(QWEN3_PREFIX + qwen3Body('qwen3', SKILL_INSTRUCTION, 'q', 'a long document '.repeat(20)).slice(0, 199) + eos + QWEN3_SUFFIX);
    // Qwen3's own tokenizer adds none: the body is its plain tokens (the test above), and no line.
    expect(q3.bodySpecials).toEqual({ before: [], after: [], tokens: [] });
  });

  it('P(yes) = softmax of the raw yes/no logits of an independent forward pass', async () => {
    const pairs = [
      { query: 'fix my git hooks', doc: 'git-hooks | Manage hooks | run pre-commit' },
      { query: 'deploy to aws', doc: 'short' },
      { query: 'write a report', doc: 'report-writer | Writes reports | ' + 'lorem ipsum '.repeat(12) },
    ];
    const scores = await q3.score(pairs);
    pairs.forEach((p, i) => {
      const ids = q3.encodePair(p.query, p.doc).ids;
      const logits = info.referenceForward(ids).logits as number[][];
      const last = logits[ids.length - 1]!;
      const y = last[info.ids['yes']!]!;
      const n = last[info.ids['no']!]!;
      const expected = Math.exp(y) / (Math.exp(y) + Math.exp(n));
      expect(scores[i]).toBeCloseTo(expected, 6);
    });
    expect(new Set(scores.map((s) => s.toFixed(6))).size).toBe(3);
  });

  it('left-pads batches with an attention mask; batch size 1 and 8 agree', async () => {
    const seen: { ids: bigint[]; mask: bigint[]; dims: number[] }[] = [];
    const model = q3.model as unknown as { forward: (x: Record<string, Tensor>) => Promise<unknown> };
    const orig = model.forward.bind(model);
    model.forward = async (x) => {
      seen.push({ ids: [...(x.input_ids!.data as BigInt64Array)], mask: [...(x.attention_mask!.data as BigInt64Array)], dims: x.input_ids!.dims });
      return orig(x);
    };
    try {
      const short = q3.encodePair('a', 'b');
      const long = q3.encodePair('a longer query', 'a longer document');
      const [alone] = await q3.yesNoLogits([short]);
      const [, inBatch] = await q3.yesNoLogits([long, short]);
      expect(inBatch!.yes).toBeCloseTo(alone!.yes, 5);
      expect(inBatch!.no).toBeCloseTo(alone!.no, 5);
      const b = seen[1]!;
      const pad = long.ids.length - short.ids.length;
      expect(b.dims).toEqual([2, long.ids.length]);
      expect(b.mask.slice(long.ids.length, long.ids.length + pad).every((m) => m === 0n)).toBe(true);
      expect(b.mask.slice(long.ids.length + pad).every((m) => m === 1n)).toBe(true);
      expect(b.ids.slice(long.ids.length + pad).map(Number)).toEqual(short.ids);
      expect(b.ids[long.ids.length]).toBe(BigInt(q3.tokenizer.pad_token_id));
    } finally {
      model.forward = orig;
    }
    const pairs = Array.from({ length: 11 }, (_, i) => ({ query: words(1 + (i % 3), i), doc: words(2 + ((i * 3) % 13), i + 1) }));
    const one = await (await loadQwen3(q3Opts(info.dir, { batchSize: 1 }))).score(pairs);
    const eight = await q3.score(pairs);
    eight.forEach((s, i) => expect(s).toBeCloseTo(one[i]!, 6));
    expect(q3.padding).toBe(true);
  });

  it('SkillRouter template: "\\n\\n" between fields and its own instruction', async () => {
    const r = await loadQwen3(q3Opts(info.dir, { template: 'skillrouter', instruction: SKILLROUTER_INSTRUCTION }));
    const text = decodeExact(r, r.encodePair('route this task', 'skill doc').ids);
    expect(text).toBe(
      QWEN3_PREFIX +
        '<Instruct>: Given a task description, judge whether the skill document is relevant and useful for completing the task\n\n' +
        '<Query>: route this task\n\n<Document>: skill doc' +
        QWEN3_SUFFIX,
    );
    expect(r.describe()).toMatchObject({ template: 'skillrouter', instruction: SKILLROUTER_INSTRUCTION });
  });

  it('runs exports that declare an empty key/value cache or no position_ids (no generation, same scores)', async () => {
    const pairs = [
      { query: 'fix my git hooks', doc: 'git hooks and scripts' },
      { query: 'deploy', doc: 'docker images on aws' },
    ];
    const plain = buildTinyDecoder(join(root, 'dec-plain'));
    const kv = buildTinyDecoder(join(root, 'dec-kv'), { withCache: true });
    const nopos = buildTinyDecoder(join(root, 'dec-nopos'), { positionIds: false });
    const ref = await (await loadQwen3(q3Opts(plain.dir))).score(pairs);
    const withKv = await (await loadQwen3(q3Opts(kv.dir))).score(pairs);
    const noPos = await (await loadQwen3(q3Opts(nopos.dir))).score(pairs);
    ref.forEach((s, i) => {
      expect(withKv[i]).toBeCloseTo(s, 6);
      expect(noPos[i]).toBeCloseTo(s, 6);
    });
  });

  it('detects an export that ignores the padding mask and then runs equal-length batches only', async () => {
    const r = await loadQwen3(q3Opts(info.dir, { skipPaddingCheck: true }));
    const model = r.model as unknown as { forward: (x: Record<string, Tensor>) => Promise<unknown> };
    const orig = model.forward.bind(model);
    // Simulate a broken export: the mask is replaced by ones (pads are attended to).
    model.forward = (x) => orig({ ...x, attention_mask: new Tensor('int64', new BigInt64Array(x.attention_mask!.data.length).fill(1n), x.attention_mask!.dims) });
    expect(await r.paddingCheck()).toBe(false);
    r.padding = false;
    const pairs = Array.from({ length: 6 }, (_, i) => ({ query: words(1 + (i % 2), i), doc: words(2 + i, i) }));
    const got = await r.score(pairs);
    const ref = await (await loadQwen3(q3Opts(info.dir, { batchSize: 1 }))).score(pairs);
    got.forEach((s, i) => expect(s).toBeCloseTo(ref[i]!, 6));
    expect(r.describe().padding).toMatch(/^none/);
  });
});

describe('bundled GloVe MaxSim scorer (built offline under the models folder)', () => {
  it('loads as a cross-encoder preset and scores word overlap above unrelated text', async () => {
    const c: StageContext = { cacheDir: join(root, 'cache'), useCache: false, offline: true, progress: silentProgress, log: () => {} };
    const r = await createReranker(c, { id: 'glove', type: 'cross-encoder', model: 'glove-6b-100d-maxsim', depth: 20, threads: 1 });
    expect(r.describe()).toMatchObject({ preset: 'glove-6b-100d-maxsim', source: 'local', maxTokens: 512 });
    expect(String(r.describe().note)).toMatch(/untrained GloVe MaxSim scorer, not a trained reranker/);
    const [same, related, unrelated] = await r.score([
      { query: 'backup the database', doc: 'db-backup | Backup the database | nightly dumps' },
      { query: 'backup the database', doc: 'restore | Restore sql tables | recovery of postgres data' },
      { query: 'backup the database', doc: 'paint | Watercolor painting lessons | brushes and paper' },
    ]);
    expect(same).toBeCloseTo(1, 4); // every query word occurs in the document (float16 unit vectors)
    expect(related!).toBeGreaterThan(unrelated!);
    expect(related!).toBeLessThan(same!);
    const long = await r.score([{ query: 'backup the database', doc: 'backup the database '.repeat(400) }]);
    expect(long[0]).toBeCloseTo(1, 4);
    expect(r.stats?.().truncatedPairs).toBe(1);
  }, 300_000);
});

describe('createReranker + rerankRun on local folders, with the score cache', () => {
  let ceDir: string;
  let decDir: string;
  beforeAll(() => {
    ceDir = buildTinyCrossEncoder(join(root, 'e2e-ce')).dir;
    decDir = buildTinyDecoder(join(root, 'e2e-dec')).dir;
  });
  const ctx = (useCache: boolean, logs: string[] = []): StageContext => ({ cacheDir: join(root, 'cache'), useCache, offline: true, progress: silentProgress, log: (l) => logs.push(l) });
  const docs = new Map([
    ['s1', 'git-hooks | Manage git hooks | pre commit checks'],
    ['s2', 'pdf | Read pdf files | extract text'],
    ['s3', 'deploy | Deploy to aws | docker images'],
  ]);
  const queries = new Map([
    ['q1', 'set up git hooks'],
    ['q2', 'read a pdf'],
  ]);
  const first: Run = new Map([
    ['q1', [{ docId: 's1', score: 0.5 }, { docId: 's2', score: 0.4 }, { docId: 'gone', score: 0.3 }]],
    ['q2', [{ docId: 's2', score: 0.9 }, { docId: 's3', score: 0.1 }]],
  ]);

  for (const type of ['cross-encoder', 'qwen3'] as const) {
    it(`${type}: re-run served from the cache with identical scores`, async () => {
      const spec = { id: `t-${type}`, type, model: type === 'qwen3' ? decDir : ceDir, depth: 3, threads: 1 };
      const r1 = await createReranker(ctx(true), spec);
      const out1 = await rerankRun(ctx(true), r1, first, queries, docs, 3);
      expect(out1.info).toMatchObject({ pairs: 4, skippedUnknownDocs: 1, cachedPairs: 0 });
      expect(out1.run.get('q1')!.map((d) => d.docId)).toEqual(['s1', 's2']);
      const logs: string[] = [];
      const r2 = await createReranker(ctx(true, logs), spec);
      const out2 = await rerankRun(ctx(true), r2, first, queries, docs, 3);
      expect(out2.info.cachedPairs).toBe(4);
      expect(out2.run).toEqual(out1.run);
      const r3 = await createReranker(ctx(false), spec);
      const out3 = await rerankRun(ctx(false), r3, first, queries, docs, 3);
      expect(out3.info.cachedPairs).toBe(0);
      out3.run.get('q2')!.forEach((d, i) => expect(d.score).toBeCloseTo(out1.run.get('q2')![i]!.score, 6));
      expect(r1.describe()).toMatchObject({ id: `t-${type}`, type, source: 'local', dtype: 'fp32' });
    });
  }

  it('offline, a hub preset that is not cached names the folder to fill', async () => {
    const err = await createReranker(ctx(false), { id: 'j', type: 'cross-encoder', model: 'jina-reranker-v2-base-multilingual', depth: 20 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^reranker "j": model "jinaai\/jina-reranker-v2-base-multilingual": offline and not in the cache; .* in .*jinaai[/\\]jina-reranker-v2-base-multilingual$/);
  });

  it('a missing model folder or a bad dtype is a one-line UserError', async () => {
    await expect(createReranker(ctx(false), { id: 'x', type: 'cross-encoder', model: join(root, 'nothing-here'), depth: 20 })).rejects.toThrow(/^reranker "x": model/);
    await expect(createReranker(ctx(false), { id: 'x', type: 'cross-encoder', model: ceDir, depth: 20, dtype: 'q8' })).rejects.toThrow(/onnx\/model_quantized\.onnx missing/);
    await expect(createReranker(ctx(false), { id: 'x', type: 'cross-encoder', model: ceDir, depth: 20, dtype: 'f32' })).rejects.toThrow(/unknown dtype "f32"/);
  });
});
