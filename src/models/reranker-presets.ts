/**
 * Reranker presets: the rerankers of the SkillRet paper (and the bundled offline GloVe scorer),
 * each with the model it stands for, where an ONNX export in transformers.js layout lives (or
 * that none is known), and the exact protocol settings: template, instruction, token limit.
 *
 * A preset is found by its name, by the original model id (e.g. `Qwen/Qwen3-Reranker-0.6B`) or
 * by its ONNX export id; matching is exact (never by substring: protocol rule 3).
 */
import { SKILL_INSTRUCTION, SKILLROUTER_INSTRUCTION } from './qwen3-template.js';

export interface RerankerPreset {
  name: string;
  type: 'cross-encoder' | 'qwen3';
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
  /** Protocol token limit of one model input. */
  maxTokens: number;
  /** qwen3 only. */
  template?: 'qwen3' | 'skillrouter';
  /** qwen3 only: the instruction I. */
  instruction?: string;
  /** Shown to the user and stored with results. */
  note?: string;
}

const QWEN3_MAX = 32_768;

function exportHint(source: string): string {
  return (
    `no ONNX export of ${source} in transformers.js layout is known; export it ` +
    `(e.g. \`optimum-cli export onnx --model ${source} --task text-generation <dir>\`, then move model.onnx ` +
    `(and model.onnx_data) into <dir>/onnx/ next to config.json, tokenizer.json and tokenizer_config.json) ` +
    `and set the reranker's model to that folder`
  );
}

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
    note: exportHint('Qwen/Qwen3-Reranker-4B'),
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
    note: exportHint('Qwen/Qwen3-Reranker-8B'),
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
    note: exportHint('ThakiCloud/SKILLRET-Reranker-0.6B'),
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
    note: exportHint('pipizhao/SkillRouter-Reranker-0.6B'),
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
  },
];

/** The preset named `ref` (preset name, original model id or export id; exact match), if any. */
export function findRerankerPreset(ref: string): RerankerPreset | undefined {
  const r = ref.trim();
  return (
    RERANKER_PRESETS.find((p) => p.name === r) ??
    RERANKER_PRESETS.find((p) => p.sourceModel === r) ??
    RERANKER_PRESETS.find((p) => p.hubId !== null && p.hubId === r)
  );
}

export function rerankerPresetNames(): string[] {
  return RERANKER_PRESETS.map((p) => p.name);
}
