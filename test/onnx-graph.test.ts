/**
 * src/models/onnx/graph.ts and tokenizer-json.ts: a hand-built graph runs in onnxruntime-node with the
 * expected values, serialisation is deterministic, bad tensors and vocabularies are refused, and the written
 * tokenizer files (WordPiece and WordLevel) tokenise as intended in transformers.js.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { GraphBuilder, attr, floatTensor, int64Tensor, model, saveModel, serializeModel, valueInfo } from '../src/models/onnx/graph.js';
import { bertTemplate, tokenizerJson, writeTokenizerFiles } from '../src/models/onnx/tokenizer-json.js';

env.allowRemoteModels = false;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-onnx-graph-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function smallModel() {
  // y[b, :] = table[ids[b]] * 2 + bias, summed over the sequence: [b, 2]
  const g = new GraphBuilder();
  const table = g.constF('table', [3, 2], [1, 2, 3, 4, 5, 6]);
  const two = g.constF('two', [], [2]);
  const bias = g.constF('bias', [2], [0.5, -0.5]);
  const looked = g.op('Gather', [table, 'ids']);
  const scaled = g.op('Add', [g.op('Mul', [looked, two]), bias]);
  g.op('ReduceSum', [scaled, g.constI('axes', [1], [1])], { keepdims: attr.int(0) }, 'y');
  return model(
    g.build({ name: 'small', inputs: [valueInfo('ids', 'int64', ['batch', 'seq'])], outputs: [valueInfo('y', 'float32', ['batch', 2])] }),
  );
}

describe('graph.ts', () => {
  it('builds a model that onnxruntime runs with the hand-computed result', async () => {
    const path = join(root, 'small.onnx');
    const bytes = saveModel(path, smallModel());
    expect(bytes).toBe(readFileSync(path).length);
    const s = await ort.InferenceSession.create(path);
    expect(s.inputNames).toEqual(['ids']);
    const out = await s.run({ ids: new ort.Tensor('int64', BigInt64Array.from([0n, 2n, 1n, 1n]), [2, 2]) });
    // row0: (1,2)+(5,6) → 2*(6,8) + 2*(0.5,-0.5) = (13, 15); row1: 2*(3,4)*2 + (1,-1) = (13, 15)
    expect(Array.from(out.y!.data as Float32Array)).toEqual([13, 15, 13, 15]);
    await s.release();
  });

  it('serialises deterministically and refuses a tensor whose data does not fit its dims', () => {
    expect(Buffer.from(serializeModel(smallModel())).equals(Buffer.from(serializeModel(smallModel())))).toBe(true);
    expect(() => floatTensor('t', [2, 2], [1, 2, 3])).toThrow(/need 4 values, got 3/);
    expect(() => int64Tensor('t', [1], [1, 2])).toThrow(/t:/);
    const g = new GraphBuilder();
    g.constF('dup', [], [1]);
    expect(() => g.constF('dup', [], [2])).toThrow(/duplicated/);
  });
});

describe('tokenizer-json.ts', () => {
  const vocab = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, hello: 4, world: 5, naïve: 6 };
  const added = [0, 1, 2, 3].map((id) => ({ id, content: Object.keys(vocab)[id]! }));

  it('refuses a duplicated id and a template token missing from the vocabulary', () => {
    expect(() =>
      tokenizerJson({ model: { type: 'WordPiece', vocab: { a: 0, b: 0 }, unkToken: 'a' }, normalizer: null, preTokenizer: null, addedTokens: [], template: null }),
    ).toThrow(/id 0 used twice/);
    expect(() =>
      tokenizerJson({ model: { type: 'WordPiece', vocab: { a: 0 }, unkToken: 'a' }, normalizer: null, preTokenizer: null, addedTokens: [], template: bertTemplate() }),
    ).toThrow(/\[CLS\]/);
  });

  for (const type of ['WordPiece', 'WordLevel'] as const) {
    it(`${type}: lower-cases, keeps \\w+ runs, maps unknown words to [UNK], BERT template with token types`, async () => {
      const dir = join(root, type);
      writeTokenizerFiles(
        dir,
        {
          model: { type, vocab, unkToken: '[UNK]' },
          normalizer: { type: 'Lowercase' },
          preTokenizer: { type: 'KeepMatches', regex: '\\w+' },
          addedTokens: added,
          template: bertTemplate(),
        },
        { tokenizerClass: 'BertTokenizer', roles: { unk_token: '[UNK]', pad_token: '[PAD]', cls_token: '[CLS]', sep_token: '[SEP]' }, modelMaxLength: 16 },
      );
      const tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      const enc = tok('Hello, NAÏVE world-peace!', { text_pair: 'world', return_tensor: false });
      expect(enc.input_ids).toEqual([2, 4, 6, 5, 1, 3, 5, 3]);
      expect(enc.token_type_ids).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
      expect(tok.model_max_length).toBe(16);
      const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
      expect(cfg.tokenizer_class).toBe('BertTokenizer');
      expect(JSON.parse(readFileSync(join(dir, 'special_tokens_map.json'), 'utf8'))).toEqual({
        unk_token: '[UNK]',
        pad_token: '[PAD]',
        cls_token: '[CLS]',
        sep_token: '[SEP]',
      });
    });
  }
});
