/**
 * The ONNX graph of Universal Sentence Encoder Lite, rewritten from the TF.js sparse-input graph onto dense
 * `input_ids` + `attention_mask` [batch, sequence] (int64), opset 17, float32 weights as in the source.
 *
 * What the TF graph computes, step by step, and how the rewrite does it:
 *  - tokens at positions ≥ 128 are dropped (ClipToMaxLength): here a window mask `position < 128`, folded into
 *    the attention mask, so longer inputs give the same vector as their first 128 tokens;
 *  - positions are the token's index in its row: here cumsum(mask) − 1 (also right for left padding);
 *  - layer 0's input is embedding + (embedding + timing signal), the signal being [sin(p·f), cos(p·f)] for the
 *    graph's 128 inverse timescales f (precomputed here as a 128 × 256 table, float32 products like TF);
 *  - two pre-layer-norm transformer layers (LayerNorm ε 1e-6): layer 0 at width 256, 4 heads of 64, attention
 *    output projected 256 → 512 and its residual through a 256 → 512 dense; layer 1 at width 512, 4 heads of
 *    128; feed-forward 512 → 1536 → 512 with ReLU in both (TF's 1×1 Conv2D kernels are plain matmuls); padded
 *    keys get a −1e9 attention bias, as in TF;
 *  - masked mean over the kept tokens (divided by max(count, 1)), a 512 → 512 tanh layer, L2 normalisation
 *    (x / sqrt(max(Σx², 1e-12))).
 * TF computes the attention and feed-forward only at real tokens and scatters them back; the dense rewrite also
 * computes them at padded positions, which never reach a real token (masked keys, masked mean).
 *
 * Outputs: `sentence_embedding` [batch, 512], the normalised vector, and `last_hidden_state`
 * [batch, sequence, 512] holding that same vector at every position, so that any masked pooling of it (cls,
 * mean, last_token) gives the sentence vector: the tanh layer comes after the mean, so no per-token state pools
 * to it. The preset reads the first real token (cls pooling).
 */
import { GraphBuilder, attr, floatTensor, model, valueInfo, type ModelProto } from '../onnx/graph.js';
import { ATTENTION_MASK_BIAS, L2_EPSILON, LAYER_NORM_EPSILON, WEIGHTS, type UseLiteWeights, type WeightKey } from './source.js';
import { USE_LITE_DIM, USE_LITE_MAX_TOKENS, USE_LITE_NAME } from './names.js';

const FLOAT = 1;

/** Timing-signal table [128, 256]: row p = [sin(p·f_0..127), cos(p·f_0..127)], products rounded to float32 as in TF. */
export function timingTable(invTimescales: Float32Array, positions = USE_LITE_MAX_TOKENS): Float32Array {
  const n = invTimescales.length;
  const out = new Float32Array(positions * 2 * n);
  for (let p = 0; p < positions; p++) {
    for (let j = 0; j < n; j++) {
      const x = Math.fround(p * invTimescales[j]!);
      out[p * 2 * n + j] = Math.sin(x);
      out[p * 2 * n + n + j] = Math.cos(x);
    }
  }
  return out;
}

interface LayerSpec {
  i: 0 | 1;
  width: number;
  heads: number;
  /** layer 0 projects its input 256 → 512 for the residual */
  residualDense: boolean;
}

/** Builds the ONNX model from the checked source weights. */
export function useLiteModel(w: UseLiteWeights, producerVersion: string, sourceNote: string): ModelProto {
  const g = new GraphBuilder();
  const W = (key: WeightKey, dims?: readonly number[]) => g.init(floatTensor(key, dims ?? WEIGHTS[key][1], w[key]));
  const mat = (key: WeightKey) => {
    const shape = WEIGHTS[key][1];
    return W(key, shape.slice(-2)); // 1×1 conv kernels [1, 1, in, out] are [in, out] matrices
  };
  const i64 = (name: string, v: readonly number[]) => g.constI(name, [v.length], v);
  const f32 = (name: string, v: number) => g.constF(name, [], [v]);

  // Masks and positions.
  const maskF = g.op('Cast', ['attention_mask'], { to: attr.int(FLOAT) });
  const posRaw = g.op('Sub', [g.op('CumSum', ['attention_mask', g.constI('const.axis1', [], [1])]), g.constI('const.one_i64', [], [1])]);
  const inWindow = g.op('Cast', [g.op('Less', [posRaw, g.constI('const.window', [], [USE_LITE_MAX_TOKENS])])], { to: attr.int(FLOAT) });
  const keep = g.op('Mul', [maskF, inWindow], {}, 'kept_token_mask'); // [B, T] 1 = real token inside the window
  const pos = g.op('Min', [g.op('Max', [posRaw, g.constI('const.zero_i64', [], [0])]), g.constI('const.last_pos', [], [USE_LITE_MAX_TOKENS - 1])]);
  const one = f32('const.one', 1);
  const attnBias = g.op('Unsqueeze', [
    g.op('Mul', [g.op('Sub', [one, keep]), f32('const.mask_bias', ATTENTION_MASK_BIAS)]),
    i64('const.axes12', [1, 2]),
  ]); // [B, 1, 1, T]

  // Layer 0 input: embedding + (embedding + timing signal).
  const emb = g.op('Gather', [W('embeddings'), 'input_ids']);
  const timing = g.init(floatTensor('timing_signal', [USE_LITE_MAX_TOKENS, 256], timingTable(w.invTimescales)));
  let x = g.op('Add', [emb, g.op('Add', [emb, g.op('Gather', [timing, pos])])]);

  const layerNorm = (input: string, scale: WeightKey, bias: WeightKey) =>
    g.op('LayerNormalization', [input, W(scale), W(bias)], { axis: attr.int(-1), epsilon: attr.float(LAYER_NORM_EPSILON) });
  const dense = (input: string, kernel: WeightKey, bias: WeightKey) => g.op('Add', [g.op('MatMul', [input, mat(kernel)]), W(bias)]);

  const layer = (input: string, s: LayerSpec): string => {
    const p = `l${s.i}_` as const;
    const hd = s.width / s.heads;
    const h = layerNorm(input, `${p}ln_scale` as WeightKey, `${p}ln_bias` as WeightKey);
    const qkv = dense(h, `${p}qkv_kernel` as WeightKey, `${p}qkv_bias` as WeightKey);
    const [q, k, v] = [`${p}q`, `${p}k`, `${p}v`];
    g.opMulti('Split', [qkv, i64(`const.${p}split`, [s.width, s.width, s.width])], [q, k, v], { axis: attr.int(2) });
    const headShape = i64(`const.${p}heads`, [0, 0, s.heads, hd]);
    const split = (t: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [t, headShape])], { perm: attr.ints(perm) });
    const qh = g.op('Mul', [split(q, [0, 2, 1, 3]), f32(`const.${p}scale`, 1 / Math.sqrt(hd))]);
    const kt = split(k, [0, 2, 3, 1]);
    const vh = split(v, [0, 2, 1, 3]);
    const probs = g.op('Softmax', [g.op('Add', [g.op('MatMul', [qh, kt]), attnBias])], { axis: attr.int(-1) });
    const ctx = g.op('Reshape', [g.op('Transpose', [g.op('MatMul', [probs, vh])], { perm: attr.ints([0, 2, 1, 3]) }), i64(`const.${p}merge`, [0, 0, s.width])]);
    const attnOut = dense(ctx, `${p}out_kernel` as WeightKey, `${p}out_bias` as WeightKey);
    const residual = s.residualDense ? dense(input, 'l0_residual_kernel', 'l0_residual_bias') : input;
    const y = g.op('Add', [attnOut, residual]);
    const f = layerNorm(y, `${p}ffn_ln_scale` as WeightKey, `${p}ffn_ln_bias` as WeightKey);
    const ff = dense(g.op('Relu', [dense(f, `${p}ffn1_kernel` as WeightKey, `${p}ffn1_bias` as WeightKey)]), `${p}ffn2_kernel` as WeightKey, `${p}ffn2_bias` as WeightKey);
    return g.op('Add', [ff, y], {}, `layer_${s.i}_output`);
  };
  x = layer(x, { i: 0, width: 256, heads: 4, residualDense: true });
  x = layer(x, { i: 1, width: 512, heads: 4, residualDense: false });

  // Masked mean over the kept tokens, tanh layer, L2 normalisation.
  const axis1 = i64('const.axes1', [1]);
  const summed = g.op('ReduceSum', [g.op('Mul', [x, g.op('Unsqueeze', [keep, i64('const.axes2', [2])])]), axis1], { keepdims: attr.int(0) });
  const count = g.op('Max', [g.op('ReduceSum', [keep, axis1], { keepdims: attr.int(1) }), one]);
  const mean = g.op('Div', [summed, count], {}, 'pooled_mean');
  const t = g.op('Tanh', [dense(mean, 'tanh_kernel', 'tanh_bias')]);
  const ss = g.op('ReduceSum', [g.op('Mul', [t, t]), axis1], { keepdims: attr.int(1) });
  const sentence = g.op('Div', [t, g.op('Sqrt', [g.op('Max', [ss, f32('const.l2_eps', L2_EPSILON)])])], {}, 'sentence_embedding');
  const outShape = g.op('Concat', [g.op('Shape', ['input_ids']), i64('const.dim', [USE_LITE_DIM])], { axis: attr.int(0) });
  g.op('Expand', [g.op('Unsqueeze', [sentence, axis1]), outShape], {}, 'last_hidden_state');

  const BS = ['batch_size', 'sequence_length'];
  return model(
    g.build({
      name: 'universal_sentence_encoder_lite',
      inputs: [valueInfo('input_ids', 'int64', BS), valueInfo('attention_mask', 'int64', BS)],
      outputs: [valueInfo('last_hidden_state', 'float32', [...BS, USE_LITE_DIM]), valueInfo('sentence_embedding', 'float32', ['batch_size', USE_LITE_DIM])],
      docString:
        'Universal Sentence Encoder Lite (2-layer transformer, 128-token window), dense rewrite of the TF.js graph. ' +
        'sentence_embedding = the L2-normalised 512-d vector; last_hidden_state repeats it at every position.',
    }),
    { opset: 17, producerVersion, docString: `${USE_LITE_NAME}: ${sourceNote}` },
  );
}
