/**
 * Tiny random-weight test models in Hugging Face layout, written in milliseconds, that load and run through
 * @huggingface/transformers (AutoTokenizer + AutoModel / AutoModelForSequenceClassification /
 * AutoModelForCausalLM, local folder) and onnxruntime-node:
 *
 * - buildTinyEncoder: BERT-shaped (model_type "bert", BertModel), inputs input_ids / attention_mask /
 *   token_type_ids → last_hidden_state [b, s, h]; hard position limit (Gather fails past max_position_embeddings).
 * - buildTinyCrossEncoder: the same body + a head on the [CLS] position → logits [b, 1]
 *   (BertForSequenceClassification, num_labels 1).
 * - buildTinyDecoder: Qwen3-shaped (model_type "qwen3", Qwen3ForCausalLM), causal, left padding, inputs
 *   input_ids / attention_mask / position_ids (+ optional empty KV cache) → last_hidden_state and logits.
 *
 * The maths (all exactly padding-invariant on real tokens; `referenceForward` re-computes it in plain JS):
 *   e_t   = tok[id_t] + pos[p_t] (+ type[tt_t] for the encoders), p_t = (cumsum of the mask up to t) − 1
 *   c     = mean of e over the real tokens (encoders) | over real tokens ≤ t (decoder, causal)
 *   h_t   = tanh(e_t W1 + c W2 + b1)          → last_hidden_state
 *   logits= h_[CLS] · w + b (cross-encoder)   | h_t Wlm (decoder, [b, s, vocab])
 *
 * Every builder is deterministic in (seed, options): the same call writes byte-identical files.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GraphBuilder, model, saveModel, valueInfo } from '../../src/models/onnx/graph.js';
import { bertTemplate, writeTokenizerFiles, type AddedToken } from '../../src/models/onnx/tokenizer-json.js';
import { writeJsonAtomic } from '../../src/util/atomic.js';

/** ~200 lower-case English words, mostly from the skill-retrieval domain. */
export const TINY_WORDS: readonly string[] = (
  'the a an and or of to in for on with by from as at is are be it this that not no yes ' +
  'skill skills agent agents code data file files test tests testing user users search query document documents ' +
  'design pattern patterns create build write read update delete review check fix debug run deploy release ' +
  'api cli web app server client database sql postgres cluster backup restore recovery kubernetes docker aws azure ' +
  'git github commit branch merge pull request issue issues pr ci pipeline workflow workflows hook hooks script scripts ' +
  'python javascript typescript react node rust go java shell bash markdown json yaml config configuration ' +
  'model models embedding embeddings vector retrieval rerank ranking score relevant relevance judge answer instruct ' +
  'system assistant think project plan planning task tasks team product feature features security performance ' +
  'optimization analysis report metrics evaluation benchmark quality error errors log logs monitoring alert ' +
  'cloud storage network service services image video audio text content writing email slack message messages ' +
  'memory cache index table schema migration version docs guide tutorial template templates prompt prompts ' +
  'automation automated manage management integration tool tools plugin plugins command commands ' +
  'open new old fast slow small large good bad best simple complex all any every each my our your we i you ' +
  'how what when where why which who can should must will need want use using used help'
)
  .split(' ')
  .filter((w, i, a) => w !== '' && a.indexOf(w) === i);

/** Deterministic PRNG (mulberry32) → uniform floats in [-1, 1). */
export function seededUniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}

function randomArray(rand: () => number, n: number, scale: number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = rand() * scale;
  return a;
}

/** Weights of a tiny model (row-major). */
export interface TinyWeights {
  hidden: number;
  vocabSize: number;
  maxPositions: number;
  tok: Float32Array; // [vocab, h]
  pos: Float32Array; // [maxPositions, h]
  type?: Float32Array; // [2, h] (encoders)
  w1: Float32Array; // [h, h]
  w2: Float32Array; // [h, h]
  b1: Float32Array; // [h]
  head?: Float32Array; // cross-encoder: [h, 1]
  headBias?: number;
  lm?: Float32Array; // decoder: [h, vocab]
}

export interface TinyModelInfo {
  /** The model folder (pass to from_pretrained). */
  dir: string;
  /** Token strings by id. */
  vocab: string[];
  /** token → id */
  ids: Record<string, number>;
  hiddenSize: number;
  /** Position table size; tokenizer model_max_length equals it for the encoders. */
  maxPositions: number;
  weights: TinyWeights;
  /** Plain-JS forward pass of the same maths (for hand checks): one sequence, no padding. */
  referenceForward(inputIds: readonly number[], tokenTypeIds?: readonly number[]): { hidden: number[][]; logits?: number[] | number[][] };
}

export interface SentenceTransformersOptions {
  pooling: 'cls' | 'mean' | 'lasttoken';
  normalize?: boolean;
  /** config_sentence_transformers.json prompts, e.g. { query: 'query: ' } */
  prompts?: Record<string, string>;
  /** config_sentence_transformers.json default_prompt_name (default null) */
  defaultPromptName?: string;
  /** write sentence_bert_config.json with this max_seq_length */
  maxSeqLength?: number;
}

export interface TinyEncoderOptions {
  seed?: number;
  /** default 16 */
  hiddenSize?: number;
  /** position table size and tokenizer model_max_length (default 64) */
  maxPositions?: number;
  /** extra words appended to the vocabulary */
  extraWords?: readonly string[];
  /** also write modules.json, 1_Pooling/config.json (+ 2_Normalize) and config_sentence_transformers.json */
  sentenceTransformers?: SentenceTransformersOptions;
  /** also write the same fp32 graph under these dtypes' file names (e.g. 'q8' → onnx/model_quantized.onnx) */
  dtypeFiles?: readonly DtypeFile[];
}

/** transformers.js 4 dtype → ONNX file suffix (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING). */
export const DTYPE_SUFFIX = { fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4', q4f16: '_q4f16', bnb4: '_bnb4' } as const;
export type DtypeFile = keyof typeof DTYPE_SUFFIX;

function writeDtypeCopies(dir: string, dtypes: readonly DtypeFile[] | undefined): void {
  for (const d of dtypes ?? []) copyFileSync(join(dir, 'onnx', 'model.onnx'), join(dir, 'onnx', `model${DTYPE_SUFFIX[d]}.onnx`));
}

export type TinyCrossEncoderOptions = Omit<TinyEncoderOptions, 'sentenceTransformers'>;

export interface TinyDecoderOptions {
  seed?: number;
  /** default 16 */
  hiddenSize?: number;
  /** position table size (positions beyond it are clamped to the last row; default 512) */
  maxPositions?: number;
  /** tokenizer model_max_length (default 32768, like the Qwen3 rerankers/embedders) */
  modelMaxLength?: number;
  extraWords?: readonly string[];
  /** declare position_ids as an input (default true; transformers.js then computes it from the mask) */
  positionIds?: boolean;
  /** declare past_key_values.0.key/value inputs and present.0.key/value outputs (prefill only: past must be empty) */
  withCache?: boolean;
  /** append <|endoftext|> after every text (TemplateProcessing), as Qwen3-Embedding's tokenizer does */
  appendEos?: boolean;
  sentenceTransformers?: SentenceTransformersOptions;
  dtypeFiles?: readonly DtypeFile[];
}

const ENC_SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
const BERT_PUNCT = ['.', ',', ':', ';', '!', '?', '-', '(', ')', '<', '>', '/', '"', "'", '`', '|', '[', ']', '{', '}', '_', '+', '=', '*', '#'];

function vocabulary(first: readonly string[], extra: readonly string[] = []): { vocab: string[]; ids: Record<string, number> } {
  const vocab: string[] = [];
  const ids: Record<string, number> = {};
  for (const t of [...first, ...TINY_WORDS, ...BERT_PUNCT, ...extra]) {
    if (t in ids) continue;
    ids[t] = vocab.length;
    vocab.push(t);
  }
  return { vocab, ids };
}

function vocabObject(vocab: readonly string[]): Record<string, number> {
  const o: Record<string, number> = {};
  vocab.forEach((t, i) => (o[t] = i));
  return o;
}

function writeSentenceTransformers(dir: string, st: SentenceTransformersOptions, hidden: number): void {
  const modules: unknown[] = [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
  ];
  if (st.normalize ?? true) modules.push({ idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' });
  writeJsonAtomic(join(dir, 'modules.json'), modules);
  writeJsonAtomic(join(dir, '1_Pooling', 'config.json'), {
    word_embedding_dimension: hidden,
    pooling_mode_cls_token: st.pooling === 'cls',
    pooling_mode_mean_tokens: st.pooling === 'mean',
    pooling_mode_max_tokens: false,
    pooling_mode_mean_sqrt_len_tokens: false,
    pooling_mode_weightedmean_tokens: false,
    pooling_mode_lasttoken: st.pooling === 'lasttoken',
    include_prompt: true,
  });
  if (st.normalize ?? true) mkdirSync(join(dir, '2_Normalize'), { recursive: true });
  writeJsonAtomic(join(dir, 'config_sentence_transformers.json'), {
    prompts: st.prompts ?? {},
    default_prompt_name: st.defaultPromptName ?? null,
    similarity_fn_name: 'cosine',
  });
  if (st.maxSeqLength !== undefined) writeJsonAtomic(join(dir, 'sentence_bert_config.json'), { max_seq_length: st.maxSeqLength, do_lower_case: false });
}

// ---------------------------------------------------------------- plain-JS reference maths

function row(m: Float32Array, i: number, h: number): number[] {
  return Array.from(m.subarray(i * h, (i + 1) * h));
}
function matVec(v: readonly number[], w: Float32Array, cols: number): number[] {
  const out = new Array<number>(cols).fill(0);
  for (let i = 0; i < v.length; i++) for (let j = 0; j < cols; j++) out[j]! += v[i]! * w[i * cols + j]!;
  return out;
}

function referenceHidden(w: TinyWeights, ids: readonly number[], types: readonly number[] | undefined, causal: boolean): number[][] {
  const h = w.hidden;
  const e = ids.map((id, t) => {
    const p = Math.min(t, w.maxPositions - 1);
    const v = row(w.tok, id, h).map((x, k) => x + w.pos[p * h + k]!);
    if (w.type) {
      const tt = types?.[t] ?? 0;
      for (let k = 0; k < h; k++) v[k]! += w.type[tt * h + k]!;
    }
    return v;
  });
  const mean = (upTo: number) => {
    const c = new Array<number>(h).fill(0);
    for (let t = 0; t <= upTo; t++) for (let k = 0; k < h; k++) c[k]! += e[t]![k]!;
    return c.map((x) => x / (upTo + 1));
  };
  const full = mean(ids.length - 1);
  return e.map((et, t) => {
    const c = causal ? mean(t) : full;
    const a = matVec(et, w.w1, h);
    const b = matVec(c, w.w2, h);
    return a.map((x, k) => Math.tanh(x + b[k]! + w.b1[k]!));
  });
}

// ---------------------------------------------------------------- ONNX graphs

/** e = tok[ids] + pos[cumsum(mask)-1] (+ type[tt]); returns names of e [b,s,h] and the float mask [b,s,1]. */
function embed(g: GraphBuilder, w: TinyWeights, o: { types: boolean; positionInput: boolean; clampPositions: boolean }) {
  const h = w.hidden;
  const tok = g.constF('embeddings.word', [w.vocabSize, h], w.tok);
  const pos = g.constF('embeddings.position', [w.maxPositions, h], w.pos);
  const axis1 = g.constI('const.axis1', [], [1]);
  const axes2 = g.constI('const.axes2', [1], [2]);
  const mask = g.op('Cast', ['attention_mask'], { to: { kind: 'int', v: 1 } });
  const mask3 = g.op('Unsqueeze', [mask, axes2]);
  let positions: string;
  if (o.positionInput) positions = 'position_ids';
  else {
    const one = g.constI('const.one', [], [1]);
    const zero = g.constI('const.zero', [], [0]);
    const cs = g.op('CumSum', ['attention_mask', axis1]);
    positions = g.op('Max', [g.op('Sub', [cs, one]), zero]);
  }
  if (o.clampPositions) {
    const zero = g.constI('const.pos_min', [], [0]);
    const last = g.constI('const.pos_max', [], [w.maxPositions - 1]);
    positions = g.op('Clip', [positions, zero, last]);
  }
  let e = g.op('Add', [g.op('Gather', [tok, 'input_ids']), g.op('Gather', [pos, positions])]);
  if (o.types && w.type) {
    const typ = g.constF('embeddings.token_type', [2, h], w.type);
    e = g.op('Add', [e, g.op('Gather', [typ, 'token_type_ids'])]);
  }
  return { e, mask3, axis1 };
}

/** h = tanh(e W1 + c W2 + b1) with c the masked (optionally causal) mean of e. */
function mix(g: GraphBuilder, w: TinyWeights, e: string, mask3: string, axis1: string, causal: boolean, out: string): string {
  const h = w.hidden;
  const one = g.constF('const.onef', [], [1]);
  const me = g.op('Mul', [e, mask3]);
  let num: string, den: string;
  if (causal) {
    num = g.op('CumSum', [me, axis1]);
    den = g.op('CumSum', [mask3, axis1]);
  } else {
    const axes1 = g.constI('const.axes1', [1], [1]);
    num = g.op('ReduceSum', [me, axes1], { keepdims: { kind: 'int', v: 1 } });
    den = g.op('ReduceSum', [mask3, axes1], { keepdims: { kind: 'int', v: 1 } });
  }
  const c = g.op('Div', [num, g.op('Max', [den, one])]);
  const w1 = g.constF('mix.w1', [h, h], w.w1);
  const w2 = g.constF('mix.w2', [h, h], w.w2);
  const b1 = g.constF('mix.b1', [h], w.b1);
  const pre = g.op('Add', [g.op('Add', [g.op('MatMul', [e, w1]), g.op('MatMul', [c, w2])]), b1]);
  return g.op('Tanh', [pre], {}, out);
}

const BS = ['batch_size', 'sequence_length'] as const;

function encoderWeights(seed: number, hidden: number, vocabSize: number, maxPositions: number, head: boolean): TinyWeights {
  const r = seededUniform(seed);
  const s = 1 / Math.sqrt(hidden);
  const w: TinyWeights = {
    hidden,
    vocabSize,
    maxPositions,
    tok: randomArray(r, vocabSize * hidden, 1),
    pos: randomArray(r, maxPositions * hidden, 0.5),
    type: randomArray(r, 2 * hidden, 0.5),
    w1: randomArray(r, hidden * hidden, 2 * s),
    w2: randomArray(r, hidden * hidden, 2 * s),
    b1: randomArray(r, hidden, 0.1),
  };
  if (head) {
    w.head = randomArray(r, hidden, 2 * s);
    w.headBias = Math.fround(r() * 0.1);
  }
  return w;
}

function writeEncoderFamily(dir: string, o: TinyEncoderOptions, head: boolean): TinyModelInfo {
  const hidden = o.hiddenSize ?? 16;
  const maxPositions = o.maxPositions ?? 64;
  const { vocab, ids } = vocabulary(ENC_SPECIALS, o.extraWords);
  const w = encoderWeights(o.seed ?? (head ? 2 : 1), hidden, vocab.length, maxPositions, head);
  mkdirSync(join(dir, 'onnx'), { recursive: true });

  const added: AddedToken[] = ENC_SPECIALS.map((t) => ({ id: ids[t]!, content: t }));
  writeTokenizerFiles(
    dir,
    {
      model: { type: 'WordPiece', vocab: vocabObject(vocab), unkToken: '[UNK]' },
      normalizer: { type: 'BertNormalizer', lowercase: true },
      preTokenizer: { type: 'BertPreTokenizer' },
      addedTokens: added,
      template: bertTemplate(),
    },
    {
      tokenizerClass: 'BertTokenizer',
      roles: { unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]' },
      modelMaxLength: maxPositions,
      doLowerCase: true,
    },
  );

  const g = new GraphBuilder();
  const { e, mask3, axis1 } = embed(g, w, { types: true, positionInput: false, clampPositions: false });
  const outputs = [valueInfo('last_hidden_state', 'float32', [...BS, hidden])];
  if (!head) mix(g, w, e, mask3, axis1, false, 'last_hidden_state');
  else {
    const hs = mix(g, w, e, mask3, axis1, false, 'hidden');
    const cls = g.op('Gather', [hs, g.constI('const.cls_index', [], [0])], { axis: { kind: 'int', v: 1 } });
    const wh = g.constF('classifier.weight', [hidden, 1], w.head!);
    const bh = g.constF('classifier.bias', [1], [w.headBias!]);
    g.op('Add', [g.op('MatMul', [cls, wh]), bh], {}, 'logits');
    outputs.splice(0, 1, valueInfo('logits', 'float32', ['batch_size', 1]));
  }
  const inputs = ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => valueInfo(n, 'int64', [...BS]));
  saveModel(join(dir, 'onnx', 'model.onnx'), model(g.build({ name: head ? 'tiny_cross_encoder' : 'tiny_encoder', inputs, outputs })));
  writeDtypeCopies(dir, o.dtypeFiles);

  writeJsonAtomic(join(dir, 'config.json'), {
    architectures: [head ? 'BertForSequenceClassification' : 'BertModel'],
    model_type: 'bert',
    hidden_size: hidden,
    intermediate_size: hidden,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    max_position_embeddings: maxPositions,
    type_vocab_size: 2,
    vocab_size: vocab.length,
    pad_token_id: ids['[PAD]'],
    ...(head ? { num_labels: 1, id2label: { '0': 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
    torch_dtype: 'float32',
    transformers_version: '4.48.0',
  });
  if (!head && o.sentenceTransformers) writeSentenceTransformers(dir, o.sentenceTransformers, hidden);

  return {
    dir,
    vocab,
    ids,
    hiddenSize: hidden,
    maxPositions,
    weights: w,
    referenceForward(inputIds, tokenTypeIds) {
      const hid = referenceHidden(w, inputIds, tokenTypeIds, false);
      if (!head) return { hidden: hid };
      const logit = matVec(hid[0]!, w.head!, 1)[0]! + w.headBias!;
      return { hidden: hid, logits: [logit] };
    },
  };
}

/** BERT-shaped encoder: [CLS] a [SEP] → last_hidden_state [b, s, hidden]. */
export function buildTinyEncoder(dir: string, opts: TinyEncoderOptions = {}): TinyModelInfo {
  return writeEncoderFamily(dir, opts, false);
}

/** BERT-shaped cross-encoder: [CLS] a [SEP] b [SEP] (token types 0/1) → logits [b, 1]. */
export function buildTinyCrossEncoder(dir: string, opts: TinyCrossEncoderOptions = {}): TinyModelInfo {
  return writeEncoderFamily(dir, opts, true);
}

/** Qwen chat/reranker markers (added tokens; <think> / </think> are not special, as in Qwen3). */
export const QWEN_ADDED = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<think>', '</think>'] as const;

/** Qwen3-shaped causal decoder with left padding → last_hidden_state [b, s, h] and logits [b, s, vocab]. */
export function buildTinyDecoder(dir: string, o: TinyDecoderOptions = {}): TinyModelInfo {
  const hidden = o.hiddenSize ?? 16;
  const maxPositions = o.maxPositions ?? 512;
  const positionInput = o.positionIds ?? true;
  const { vocab, ids } = vocabulary(['<unk>'], [...(o.extraWords ?? []), ...QWEN_ADDED]);
  const r = seededUniform(o.seed ?? 3);
  const s = 1 / Math.sqrt(hidden);
  const w: TinyWeights = {
    hidden,
    vocabSize: vocab.length,
    maxPositions,
    tok: randomArray(r, vocab.length * hidden, 1),
    pos: randomArray(r, maxPositions * hidden, 0.5),
    w1: randomArray(r, hidden * hidden, 2 * s),
    w2: randomArray(r, hidden * hidden, 2 * s),
    b1: randomArray(r, hidden, 0.1),
    lm: randomArray(r, hidden * vocab.length, 2 * s),
  };
  mkdirSync(join(dir, 'onnx'), { recursive: true });

  const added: AddedToken[] = QWEN_ADDED.map((t) => ({ id: ids[t]!, content: t, special: !t.includes('think') }));
  const eos = '<|endoftext|>';
  writeTokenizerFiles(
    dir,
    {
      model: { type: 'WordPiece', vocab: vocabObject(vocab), unkToken: '<unk>' },
      normalizer: { type: 'Lowercase' },
      preTokenizer: { type: 'BertPreTokenizer' },
      addedTokens: added,
      template: o.appendEos
        ? {
            single: [{ sequence: 'A', typeId: 0 }, { special: eos, typeId: 0 }],
            pair: [{ sequence: 'A', typeId: 0 }, { sequence: 'B', typeId: 1 }, { special: eos, typeId: 1 }],
          }
        : null,
      decoderPrefix: '##',
    },
    {
      tokenizerClass: 'Qwen2Tokenizer',
      roles: { unk_token: '<unk>', pad_token: eos, eos_token: '<|im_end|>', bos_token: null, additional_special_tokens: ['<|im_start|>', '<|im_end|>'] },
      modelMaxLength: o.modelMaxLength ?? 32768,
      paddingSide: 'left',
    },
  );

  const g = new GraphBuilder();
  const { e, mask3, axis1 } = embed(g, w, { types: false, positionInput, clampPositions: true });
  const hs = mix(g, w, e, mask3, axis1, true, 'last_hidden_state');
  g.op('MatMul', [hs, g.constF('lm_head.weight', [hidden, vocab.length], w.lm!)], {}, 'logits');
  const inputs = [valueInfo('input_ids', 'int64', [...BS]), valueInfo('attention_mask', 'int64', ['batch_size', 'total_sequence_length'])];
  if (positionInput) inputs.push(valueInfo('position_ids', 'int64', [...BS]));
  const outputs = [valueInfo('logits', 'float32', [...BS, vocab.length]), valueInfo('last_hidden_state', 'float32', [...BS, hidden])];
  if (o.withCache) {
    // present = concat(past, k/v of this step); the maths above ignores the (empty) past.
    const axes1 = g.constI('const.kv_axes1', [1], [1]);
    const kv = g.op('Unsqueeze', [hs, axes1]); // [b, 1, s, h]
    for (const kind of ['key', 'value'] as const) {
      inputs.push(valueInfo(`past_key_values.0.${kind}`, 'float32', ['batch_size', 1, 'past_sequence_length', hidden]));
      g.op('Concat', [`past_key_values.0.${kind}`, kv], { axis: { kind: 'int', v: 2 } }, `present.0.${kind}`);
      outputs.push(valueInfo(`present.0.${kind}`, 'float32', ['batch_size', 1, 'total_sequence_length', hidden]));
    }
  }
  saveModel(join(dir, 'onnx', 'model.onnx'), model(g.build({ name: 'tiny_decoder', inputs, outputs })));
  writeDtypeCopies(dir, o.dtypeFiles);

  writeJsonAtomic(join(dir, 'config.json'), {
    architectures: ['Qwen3ForCausalLM'],
    model_type: 'qwen3',
    hidden_size: hidden,
    intermediate_size: hidden,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    num_key_value_heads: 1,
    head_dim: hidden,
    max_position_embeddings: maxPositions,
    vocab_size: vocab.length,
    bos_token_id: null,
    eos_token_id: ids['<|im_end|>'],
    pad_token_id: ids[eos],
    tie_word_embeddings: false,
    use_cache: o.withCache ?? false,
    torch_dtype: 'float32',
    transformers_version: '4.51.0',
  });
  if (o.sentenceTransformers) writeSentenceTransformers(dir, o.sentenceTransformers, hidden);

  return {
    dir,
    vocab,
    ids,
    hiddenSize: hidden,
    maxPositions,
    weights: w,
    referenceForward(inputIds) {
      const hid = referenceHidden(w, inputIds, undefined, true);
      return { hidden: hid, logits: hid.map((v) => matVec(v, w.lm!, vocab.length)) };
    },
  };
}
