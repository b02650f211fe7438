/**
 * Reranker presets: the rerankers of the SkillRet paper (and the bundled offline GloVe scorer),
 * each with the model it stands for, where an ONNX export in transformers.js layout lives (or
 * that none is known), and the exact protocol settings: template, instruction, token limit.
 *
 * A preset is found by its name, by the original model id (e.g. `Qwen/Qwen3-Reranker-0.6B`) or
 * by its ONNX export id; matching is exact (never by substring: docs/protocol.md §7 rule 3).
 */
import { SKILL_INSTRUCTION, SKILLROUTER_INSTRUCTION, type Qwen3Template } from './qwen3-template.js';

/** The kinds of locally run rerankers (the config's `type`). */
export type LocalRerankerType = 'cross-encoder' | 'qwen3';

export interface RerankerPreset {
  name: string;
  type: LocalRerankerType;
  /** The model the paper evaluates (Hugging Face id, PyTorch weights). */
  sourceModel: string;
  /**
   * Hub id of an ONNX export in transformers.js layout (config.json, tokenizer files, onnx/model*.onnx),
   * or null when none is known: the user must export it and point `model` at the folder.
   */
  hubId: string | null;
  /** Pinned hub revision of `hubId`, when one is known. */
  revision?: string;
  /** Built locally on demand under the models folder (no download): src/models/glove/names.ts GLOVE_RERANKER_NAME. */
  local?: 'glove-6b-100d-maxsim';
  /** Default transformers.js dtype for the export (which onnx/model*.onnx file). */
  dtype?: string;
  /** dtype of the official runs (for the record). */
  officialDtype?: string;
  /**
   * Precision the official run's scores had (rerank/score-precision.ts): fp16 P(yes) for the
   * Qwen3-style scorers (log_softmax(...).exp() on fp16 logits), bf16 logits for jina. Scores are
   * rounded to it before ranking unless the config says otherwise.
   */
  scorePrecision: 'fp32' | 'fp16' | 'bf16';
  /** Other exact names of the same checkpoint (review copy). */
  aliases: string[];
  /** Where the settings come from (protocol section and official code). */
  source: string;
  /** When no export is published: the exact command that makes one (also in `note`). */
  exportCommand?: string;
  /** Protocol token limit of one model input. */
  maxTokens: number;
  /** qwen3 only. */
  template?: Qwen3Template;
  /** qwen3 only: the instruction I. */
  instruction?: string;
  /** Shown to the user and stored with results. */
  note?: string;
}

const QWEN3_MAX = 32_768;

/** The exact commands that export a yes/no reranker into `models/<name>` in transformers.js layout. */
export function rerankerExportCommand(source: string, name: string): string {
  const dir = `models/${name}`;
  return `optimum-cli export onnx --model ${source} --task text-generation ${dir} && mkdir -p ${dir}/onnx && mv ${dir}/model.onnx* ${dir}/onnx/`;
}

function exportHint(source: string, name: string): string {
  return `no ONNX export of ${source} in transformers.js layout is published; make it with: ${rerankerExportCommand(source, name)} (or set the reranker's model to a folder holding one)`;
}

const P5 = 'docs/protocol.md §5';

export const RERANKER_PRESETS: readonly RerankerPreset[] = [
  {
    name: 'qwen3-reranker-0.6b',
    type: 'qwen3',
    sourceModel: 'Qwen/Qwen3-Reranker-0.6B',
    hubId: 'onnx-community/Qwen3-Reranker-0.6B-ONNX',
    dtype: 'q8',
    officialDtype: 'fp16',
    maxTokens: QWEN3_MAX,
    template: 'qwen3',
    instruction: SKILL_INSTRUCTION,
    note:
      'onnx-community export ships only int8 (q8, onnx/model_quantized.onnx) and 4-bit (q4) weights; ' +
      'the official runs are fp16, so scores differ slightly from the paper',
    scorePrecision: 'fp16',
    aliases: [],
    source: `${P5} (Qwen3-Reranker template, I, 32,768 tokens, fp16); official Qwen3RankModel`,
  },
  {
    name: 'qwen3-reranker-4b',
    type: 'qwen3',
    sourceModel: 'Qwen/Qwen3-Reranker-4B',
    hubId: null,
    officialDtype: 'fp16',
    maxTokens: QWEN3_MAX,
    template: 'qwen3',
    instruction: SKILL_INSTRUCTION,
    note: exportHint('Qwen/Qwen3-Reranker-4B', 'qwen3-reranker-4b'),
    scorePrecision: 'fp16',
    aliases: [],
    exportCommand: rerankerExportCommand('Qwen/Qwen3-Reranker-4B', 'qwen3-reranker-4b'),
    source: `${P5} (Qwen3-Reranker template, I, 32,768 tokens, fp16); official Qwen3RankModel`,
  },
  {
    name: 'qwen3-reranker-8b',
    type: 'qwen3',
    sourceModel: 'Qwen/Qwen3-Reranker-8B',
    hubId: null,
    officialDtype: 'fp16',
    maxTokens: QWEN3_MAX,
    template: 'qwen3',
    instruction: SKILL_INSTRUCTION,
    note: exportHint('Qwen/Qwen3-Reranker-8B', 'qwen3-reranker-8b'),
    scorePrecision: 'fp16',
    aliases: [],
    exportCommand: rerankerExportCommand('Qwen/Qwen3-Reranker-8B', 'qwen3-reranker-8b'),
    source: `${P5} (Qwen3-Reranker template, I, 32,768 tokens, fp16); official Qwen3RankModel`,
  },
  {
    name: 'skillret-reranker-0.6b',
    type: 'qwen3',
    sourceModel: 'ThakiCloud/SKILLRET-Reranker-0.6B',
    hubId: null,
    officialDtype: 'fp16',
    maxTokens: QWEN3_MAX,
    template: 'qwen3',
    instruction: SKILL_INSTRUCTION,
    note: exportHint('ThakiCloud/SKILLRET-Reranker-0.6B', 'skillret-reranker-0.6b'),
    scorePrecision: 'fp16',
    aliases: ['anonymous-ed-benchmark/SKILLRET-Reranker-0.6B'],
    exportCommand: rerankerExportCommand('ThakiCloud/SKILLRET-Reranker-0.6B', 'skillret-reranker-0.6b'),
    source: `${P5} (Qwen3-Reranker template and I, fp16); official Qwen3RankModel via the "skillret-reranker" key`,
  },
  {
    name: 'skillrouter-reranker-0.6b',
    type: 'qwen3',
    sourceModel: 'pipizhao/SkillRouter-Reranker-0.6B',
    hubId: null,
    officialDtype: 'fp16',
    maxTokens: QWEN3_MAX,
    template: 'skillrouter',
    instruction: SKILLROUTER_INSTRUCTION,
    note: exportHint('pipizhao/SkillRouter-Reranker-0.6B', 'skillrouter-reranker-0.6b'),
    scorePrecision: 'fp16',
    aliases: [],
    exportCommand: rerankerExportCommand('pipizhao/SkillRouter-Reranker-0.6B', 'skillrouter-reranker-0.6b'),
    source: `${P5} (SkillRouter template: own I, blank lines between fields, fp16); official SkillRouterRankModel`,
  },
  {
    name: 'jina-reranker-v2-base-multilingual',
    type: 'cross-encoder',
    sourceModel: 'jinaai/jina-reranker-v2-base-multilingual',
    hubId: 'jinaai/jina-reranker-v2-base-multilingual',
    dtype: 'fp32',
    officialDtype: 'bf16',
    maxTokens: 1024,
    note: 'ONNX weights in the model repo (onnx/); licence CC-BY-NC-4.0; official runs are bf16',
    scorePrecision: 'bf16',
    aliases: [],
    source: `${P5} (cross-encoder, raw logit, 1,024 tokens, bf16); official HFRankModel (rerankers, dtype bfloat16, last logit)`,
  },
  {
    name: 'glove-6b-100d-maxsim',
    type: 'cross-encoder',
    sourceModel: 'glove-6b-100d-maxsim',
    hubId: null,
    local: 'glove-6b-100d-maxsim',
    dtype: 'fp32',
    maxTokens: 512,
    note: 'untrained GloVe MaxSim scorer, not a trained reranker (built offline on demand; for smoke tests and benchmarks of the pipeline)',
    scorePrecision: 'fp32',
    aliases: [],
    source: 'bundled stand-in (not a paper model)',
  },
];

/** The preset named `ref` (preset name, original model id or export id; exact match), if any. */
export function findRerankerPreset(ref: string): RerankerPreset | undefined {
  const r = ref.trim();
  return (
    RERANKER_PRESETS.find((p) => p.name === r) ??
    RERANKER_PRESETS.find((p) => p.sourceModel === r) ??
    RERANKER_PRESETS.find((p) => p.hubId !== null && p.hubId === r) ??
    RERANKER_PRESETS.find((p) => p.aliases.includes(r))
  );
}

export function rerankerPresetNames(): string[] {
  return RERANKER_PRESETS.map((p) => p.name);
}
