/**
 * The Qwen3-Reranker prompt (docs/protocol.md §5), as exact strings, and the yes/no
 * scoring rule. Pure: no tokenizer, no model.
 *
 * Model input = prefix + body + suffix, where
 *   prefix = "<|im_start|>system\n" + SYSTEM + "<|im_end|>\n<|im_start|>user\n"
 *   body   = "<Instruct>: " + I + SEP + "<Query>: " + query + SEP + "<Document>: " + document
 *   suffix = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
 * with SEP = "\n" (Qwen3-Reranker, SkillRet-Reranker) or "\n\n" (SkillRouter-Reranker).
 */

export const QWEN3_SYSTEM =
  'Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".';

export const QWEN3_PREFIX = '<|im_start|>system\n' + QWEN3_SYSTEM + '<|im_end|>\n<|im_start|>user\n';

export const QWEN3_SUFFIX = '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';

/** The benchmark's authored skill instruction (Qwen3-Reranker 0.6B/4B/8B, SkillRet-Reranker). */
export const SKILL_INSTRUCTION = 'Given a skill search query, judge whether the skill document is relevant and useful for the query';

/** SkillRouter-Reranker-0.6B's instruction. */
export const SKILLROUTER_INSTRUCTION =
  'Given a task description, judge whether the skill document is relevant and useful for completing the task';

export const QWEN3_TEMPLATES = ['qwen3', 'skillrouter'] as const;
export type Qwen3Template = (typeof QWEN3_TEMPLATES)[number];

/** Field separator of a template. */
export function templateSeparator(t: Qwen3Template): string {
  return t === 'skillrouter' ? '\n\n' : '\n';
}

/** The default instruction of a template. */
export function defaultInstruction(t: Qwen3Template): string {
  return t === 'skillrouter' ? SKILLROUTER_INSTRUCTION : SKILL_INSTRUCTION;
}

/** The body of one (query, document) pair. */
export function qwen3Body(template: Qwen3Template, instruction: string, query: string, doc: string): string {
  const sep = templateSeparator(template);
  return '<Instruct>: ' + instruction + sep + '<Query>: ' + query + sep + '<Document>: ' + doc;
}

/**
 * P(yes) = softmax([logit(yes), logit(no)])[0], computed as 1 / (1 + exp(no - yes)) (the same
 * value, stable for large logits). Inputs in float64.
 */
export function pYes(yesLogit: number, noLogit: number): number {
  const d = noLogit - yesLogit;
  if (d > 0) {
    const e = Math.exp(-d);
    return e / (1 + e);
  }
  return 1 / (1 + Math.exp(d));
}
