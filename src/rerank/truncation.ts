/**
 * Token-budget arithmetic of the second stage (pure functions):
 *  - `longestFirst`: Hugging Face tokenizers' `truncation=True` (= "longest_first") for a pair,
 *    the rule the official jina-reranker path uses (`tokenizer(pairs, truncation=True,
 *    max_length=1024)`);
 *  - `bodyBudget`: the Qwen3-Reranker body budget, max tokens minus prefix and suffix.
 *
 * Why not transformers.js's own truncation: `tokenizer(q, {text_pair: d, truncation: true})` in
 * transformers.js 4.3.2 encodes the pair WITH its special tokens and then cuts the concatenation
 * at max_length (tail dropped): the closing `[SEP]`/`</s>` is lost and the query is never
 * protected. So the pair is encoded here without special tokens, each side cut by
 * `longestFirst`, and the special tokens added afterwards by the tokenizer's own post-processor.
 */

/**
 * Lengths after Hugging Face "longest_first" truncation of a pair of `n1` and `n2` content tokens
 * to `budget` content tokens (the model limit minus the special tokens of a pair). Ported from
 * the algorithm of huggingface/tokenizers (`truncate_encodings`, LongestFirst): the shorter side
 * is kept whole when it fits in half the budget or less of what the other needs; otherwise both
 * get half, the longer one the odd token. Each side keeps its head (right truncation).
 *
 * For a query much shorter than half the budget (every SkillRet query against a 1,024-token
 * limit) this is exactly "cut only the document".
 */
export function longestFirst(n1: number, n2: number, budget: number): [number, number] {
  if (!Number.isInteger(n1) || !Number.isInteger(n2) || n1 < 0 || n2 < 0) throw new RangeError(`longestFirst: bad lengths ${n1}, ${n2}`);
  if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`longestFirst: bad budget ${budget}`);
  if (n1 + n2 <= budget) return [n1, n2];
  let short = n1;
  let long = n2;
  const swap = n1 > n2;
  if (swap) {
    short = n2;
    long = n1;
  }
  long = short > budget ? short : Math.max(short, budget - short);
  if (short + long > budget) {
    short = Math.floor(budget / 2);
    long = short + (budget % 2);
  }
  const [c1, c2] = swap ? [long, short] : [short, long];
  // Encoding.truncate(n) only shortens.
  return [Math.min(n1, c1), Math.min(n2, c2)];
}

/** Tokens left for the Qwen3-Reranker body: `maxTokens - prefix - suffix` (throws when not positive). */
export function bodyBudget(maxTokens: number, prefixTokens: number, suffixTokens: number): number {
  const b = maxTokens - prefixTokens - suffixTokens;
  if (b < 1) throw new RangeError(`max tokens ${maxTokens} leaves no room for the body (prefix ${prefixTokens} + suffix ${suffixTokens} tokens)`);
  return b;
}
