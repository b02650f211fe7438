/**
 * The tiny test models (test/helpers/tiny-models.ts) load and run through @huggingface/transformers (local
 * folder, no network), give outputs of the right shapes, equal the plain-JS reference maths, are deterministic,
 * and padding never changes an item's output on its real tokens.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AutoModel,
  AutoModelForCausalLM,
  AutoModelForSequenceClassification,
  AutoTokenizer,
  env,
  LogLevel,
  type Tensor,
} from '@huggingface/transformers';
import { buildTinyCrossEncoder, buildTinyDecoder, buildTinyEncoder, type TinyModelInfo } from './helpers/tiny-models.js';

env.allowRemoteModels = false;
env.allowLocalModels = true;

const LOAD = { local_files_only: true, dtype: 'fp32' as const, device: 'cpu' as const };

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-tiny-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Row `b`, positions [from, to) of a [B, S, H] tensor, as plain arrays. */
function rows(t: Tensor, b: number, from: number, to: number): number[][] {
  const [, S, H] = t.dims as [number, number, number];
  const data = t.data as Float32Array;
  const out: number[][] = [];
  for (let s = from; s < to; s++) out.push(Array.from(data.subarray((b * S + s) * H, (b * S + s + 1) * H)));
  return out;
}

/** ids (possibly undefined in the type system) → bigint, as tokenizer tensors hold them. */
const big = (xs: readonly (number | undefined)[]) => xs.map((x) => BigInt(x!));

function expectClose(a: number[][], b: number[][], tol = 1e-5): void {
  expect(a.length).toBe(b.length);
  a.forEach((r, i) => r.forEach((x, k) => expect(Math.abs(x - b[i]![k]!)).toBeLessThan(tol)));
}

describe('tiny encoder (BERT-shaped)', () => {
  let info: TinyModelInfo;
  beforeAll(() => {
    info = buildTinyEncoder(join(root, 'enc'));
  });

  it('tokenises BERT-style and runs through AutoModel with the right shape', async () => {
    const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
    const enc = tok(['Search the code!', 'zzzunknown words'], { padding: true, truncation: true });
    const { ids } = info;
    expect(enc.input_ids.tolist()).toEqual([
      big([ids['[CLS]'], ids['search'], ids['the'], ids['code'], ids['!'], ids['[SEP]']]),
      big([ids['[CLS]'], ids['[UNK]'], ids['[UNK]'], ids['[SEP]'], ids['[PAD]'], ids['[PAD]']]),
    ]);
    expect(enc.token_type_ids!.dims).toEqual([2, 6]);
    expect(tok.model_max_length).toBe(64);

    const m = await AutoModel.from_pretrained(info.dir, LOAD);
    const out = await m(enc);
    expect(out.last_hidden_state.dims).toEqual([2, 6, 16]);
    // equals the plain-JS reference maths on the real tokens
    const ref = info.referenceForward([2, ids['search']!, ids['the']!, ids['code']!, ids['!']!, 3]);
    expectClose(rows(out.last_hidden_state, 0, 0, 6), ref.hidden);
    // depends on token identity and position: no two real positions are equal
    const h = rows(out.last_hidden_state, 0, 0, 6);
    for (let i = 0; i < h.length; i++) for (let j = i + 1; j < h.length; j++) expect(h[i]).not.toEqual(h[j]);
    await m.dispose();
  });

  it('padding does not change an item (alone vs batched with a longer text); deterministic', async () => {
    const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
    const m = await AutoModel.from_pretrained(info.dir, LOAD);
    const alone = await m(tok(['fix the test'], { padding: true, truncation: true }));
    const batch = await m(tok(['review our database backup and restore script for errors', 'fix the test'], { padding: true, truncation: true }));
    expect(batch.last_hidden_state.dims[1]).toBeGreaterThan(alone.last_hidden_state.dims[1]);
    expectClose(rows(batch.last_hidden_state, 1, 0, 5), rows(alone.last_hidden_state, 0, 0, 5), 1e-6);
    const again = await m(tok(['fix the test'], { padding: true, truncation: true }));
    expect(Array.from(again.last_hidden_state.data as Float32Array)).toEqual(Array.from(alone.last_hidden_state.data as Float32Array));
    await m.dispose();
  });

  it('truncates at model_max_length, and the graph refuses positions past the table', async () => {
    const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
    const long = Array.from({ length: 100 }, () => 'code').join(' ');
    const enc = tok([long], { padding: true, truncation: true });
    expect(enc.input_ids.dims).toEqual([1, 64]);
    // logSeverityLevel 4: onnxruntime would print the (expected) Gather error below to stderr
    const m = await AutoModel.from_pretrained(info.dir, { ...LOAD, session_options: { logSeverityLevel: 4 } });
    expect((await m(enc)).last_hidden_state.dims).toEqual([1, 64, 16]);
    const level = env.logLevel;
    env.logLevel = LogLevel.NONE; // transformers.js logs the failing inputs before rethrowing
    try {
      await expect(m(tok([long], { padding: true, truncation: false }))).rejects.toThrow(/indices|out of bounds|range/i);
    } finally {
      env.logLevel = level;
    }
    await m.dispose();
  });

  it('dtypeFiles writes the same graph under the dtype file names transformers.js picks', async () => {
    const d = join(root, 'enc-q8');
    buildTinyEncoder(d, { dtypeFiles: ['q8'] });
    expect(readFileSync(join(d, 'onnx', 'model_quantized.onnx')).equals(readFileSync(join(d, 'onnx', 'model.onnx')))).toBe(true);
    const m = await AutoModel.from_pretrained(d, { ...LOAD, dtype: 'q8' });
    const tok = await AutoTokenizer.from_pretrained(d, { local_files_only: true });
    expect((await m(tok(['fix the test']))).last_hidden_state.dims).toEqual([1, 5, 16]);
    await m.dispose();
    await expect(AutoModel.from_pretrained(info.dir, { ...LOAD, dtype: 'q8' })).rejects.toThrow(/model_quantized\.onnx/);
  });

  it('is byte-identical for the same seed and different for another', () => {
    const a = readFileSync(join(info.dir, 'onnx', 'model.onnx'));
    buildTinyEncoder(join(root, 'enc2'));
    buildTinyEncoder(join(root, 'enc3'), { seed: 99 });
    expect(readFileSync(join(root, 'enc2', 'onnx', 'model.onnx')).equals(a)).toBe(true);
    expect(readFileSync(join(root, 'enc2', 'tokenizer.json')).equals(readFileSync(join(info.dir, 'tokenizer.json')))).toBe(true);
    expect(readFileSync(join(root, 'enc3', 'onnx', 'model.onnx')).equals(a)).toBe(false);
  });
});

describe('tiny cross-encoder (BertForSequenceClassification)', () => {
  let info: TinyModelInfo;
  beforeAll(() => {
    info = buildTinyCrossEncoder(join(root, 'ce'));
  });

  it('scores pairs with logits [b, 1], equal to the reference, padding-invariant', async () => {
    const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
    const enc = tok(['fix the test', 'fix the test'], {
      text_pair: ['a test runner', 'deploy our kubernetes cluster backup to aws storage'],
      padding: true,
      truncation: true,
    });
    const { ids } = info;
    const first = [2, ids['fix']!, ids['the']!, ids['test']!, 3, ids['a']!, ids['test']!, ids['runner'] ?? ids['[UNK]']!, 3];
    expect(enc.input_ids.tolist()[0]!.slice(0, 9)).toEqual(first.map(BigInt));
    expect(enc.token_type_ids!.tolist()[0]!.slice(0, 9)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1].map(BigInt));
    const m = await AutoModelForSequenceClassification.from_pretrained(info.dir, LOAD);
    const { logits } = await m(enc);
    expect(logits.dims).toEqual([2, 1]);
    const l = Array.from(logits.data as Float32Array);
    expect(l[0]).not.toBeCloseTo(l[1]!, 4);
    const ref = info.referenceForward(first, [0, 0, 0, 0, 0, 1, 1, 1, 1]).logits as number[];
    expect(Math.abs(l[0]! - ref[0]!)).toBeLessThan(1e-5);
    const alone = await m(tok(['fix the test'], { text_pair: ['a test runner'], padding: true, truncation: true }));
    expect(Math.abs((alone.logits.data as Float32Array)[0]! - l[0]!)).toBeLessThan(1e-6);
    expect((JSON.parse(readFileSync(join(info.dir, 'config.json'), 'utf8')) as { num_labels: number }).num_labels).toBe(1);
    await m.dispose();
  });
});

describe('tiny decoder (Qwen3-shaped, causal, left padding)', () => {
  const SUFFIX = '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';
  const prompt = (doc: string) =>
    '<|im_start|>system\nJudge whether the Document meets the requirements. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n' +
    `<Instruct>: judge the skill\n<Query>: fix the test\n<Document>: ${doc}` +
    SUFFIX;

  it('tokenises the Qwen3-Reranker template with its special tokens and left padding', async () => {
    const info = buildTinyDecoder(join(root, 'dec-tok'));
    const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
    expect(tok.padding_side).toBe('left');
    const { ids } = info;
    for (const t of ['<|im_start|>', '<|im_end|>', '<think>', '</think>', 'yes', 'no']) expect(tok.convert_tokens_to_ids(t)).toBe(ids[t]);
    const suffixIds = tok(SUFFIX, { add_special_tokens: false, return_tensor: false }).input_ids as number[];
    expect(suffixIds).toEqual([ids['<|im_end|>'], ids['<|im_start|>'], ids['assistant'], ids['<think>'], ids['</think>']]);
    const enc = tok(['yes', 'no no no'], { padding: true });
    expect(enc.input_ids.tolist()[0]).toEqual(big([ids['<|endoftext|>'], ids['<|endoftext|>'], ids['yes']]));
    expect(enc.attention_mask.tolist()[0]).toEqual([0n, 0n, 1n]);
    expect(enc.token_type_ids).toBeUndefined();
  });

  for (const variant of [{ withCache: false }, { withCache: true }]) {
    it(`runs as CausalLM and as Model: yes/no logits depend on the document; left padding invariant (cache: ${variant.withCache})`, async () => {
      const info = buildTinyDecoder(join(root, `dec-${variant.withCache}`), variant);
      const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
      const docs = ['a python test runner', 'deploy our kubernetes cluster backup to aws storage and restore it'];
      const enc = tok(docs.map(prompt), { padding: true, add_special_tokens: false });
      const S = enc.input_ids.dims[1]!;
      const lm = await AutoModelForCausalLM.from_pretrained(info.dir, LOAD);
      const out = await lm(enc);
      const V = info.vocab.length;
      expect(out.logits.dims).toEqual([2, S, V]);
      const last = (b: number) => {
        const d = out.logits.data as Float32Array;
        const at = (b * S + S - 1) * V;
        return { yes: d[at + info.ids['yes']!]!, no: d[at + info.ids['no']!]! };
      };
      const p = (b: number) => 1 / (1 + Math.exp(last(b).no - last(b).yes));
      expect(Math.abs(p(0) - p(1))).toBeGreaterThan(1e-4);
      // reference maths on the unpadded first item
      const ids0 = tok(prompt(docs[0]!), { add_special_tokens: false, return_tensor: false }).input_ids as number[];
      const ref = info.referenceForward(ids0).logits as number[][];
      expect(Math.abs(ref.at(-1)![info.ids['yes']!]! - last(0).yes)).toBeLessThan(1e-4);
      // the same item alone (no padding) gives the same last-position logits
      const alone = await lm(tok([prompt(docs[0]!)], { padding: true, add_special_tokens: false }));
      const Sa = alone.logits.dims[1]!;
      expect(Sa).toBeLessThan(S);
      const la = alone.logits.data as Float32Array;
      expect(Math.abs(la[(Sa - 1) * V + info.ids['yes']!]! - last(0).yes)).toBeLessThan(1e-6);
      await lm.dispose();

      const base = await AutoModel.from_pretrained(info.dir, LOAD);
      const hs = (await base(enc)).last_hidden_state as Tensor;
      expect(hs.dims).toEqual([2, S, 16]);
      const hsAlone = (await base(tok([prompt(docs[0]!)], { padding: true, add_special_tokens: false }))).last_hidden_state as Tensor;
      expectClose(rows(hs, 0, S - 1, S), rows(hsAlone, 0, Sa - 1, Sa), 1e-6);
      await base.dispose();
    });
  }

  it('appendEos adds <|endoftext|> after every text (Qwen3-Embedding style)', async () => {
    const info = buildTinyDecoder(join(root, 'dec-eos'), { appendEos: true });
    const tok = await AutoTokenizer.from_pretrained(info.dir, { local_files_only: true });
    const ids = tok('fix the test', { return_tensor: false }).input_ids as number[];
    expect(ids).toEqual([info.ids['fix'], info.ids['the'], info.ids['test'], info.ids['<|endoftext|>']]);
  });
});
