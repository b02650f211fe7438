/**
 * Token counts of injected skill texts: OpenAI's cl100k_base BPE through js-tiktoken (the
 * tokenizer the SkillRet paper used for its length statistics). The rank file ships inside the
 * package, so counting works offline. Counts are memoised by text.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

export const TOKENIZER = 'cl100k_base (js-tiktoken)';

let encoder: Tiktoken | undefined;
const memo = new Map<string, number>();

/** cl100k_base tokens of `text` (special-token strings count as plain text). */
export function countTokens(text: string): number {
  const hit = memo.get(text);
  if (hit !== undefined) return hit;
  encoder ??= new Tiktoken(cl100k);
  const n = encoder.encode(text, [], []).length;
  memo.set(text, n);
  return n;
}
