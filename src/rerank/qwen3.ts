/**
 * Qwen3-Reranker yes/no scorer (Qwen3-Reranker 0.6B/4B/8B, SkillRet-Reranker, SkillRouter-Reranker)
 * on transformers.js AutoModelForCausalLM, exactly as docs/protocol.md §5:
 *  - prefix and suffix tokenised without special tokens (once);
 *  - body (qwen3-template.ts) tokenised as the official call does (`tokenizer(body, truncation=True,
 *    max_length=maxTokens - len(prefix) - len(suffix))`, special tokens on): its content tail cut
 *    to that budget minus the special tokens the tokenizer's post-processor adds to one sequence,
 *    then those tokens put where the post-processor puts them. Qwen3's post-processor (ByteLevel)
 *    adds none, so for Qwen3-Reranker the body is its plain tokens; a checkpoint whose
 *    post-processor adds some (a fine-tuned one appending an end token) gets them, and the load
 *    names them in one line;
 *  - ids = prefix + body + suffix; batches LEFT-padded with an attention mask (transformers.js
 *    derives position ids from the mask and feeds an empty key/value cache: no generation);
 *  - score = P(yes) = softmax([logit(yes), logit(no)]) at the last position, with the ids of the
 *    tokens "yes" and "no" from the tokenizer (convert_tokens_to_ids).
 * When the export takes `num_logits_to_keep`, only the last position's logits are computed.
 *
 * Padding check: some ONNX exports (fused GroupQueryAttention) may not honour a left-padding
 * mask. At load, one short input is scored alone and inside a left-padded batch; if the two
 * disagree the reranker warns and runs unpadded batches (inputs of equal length only).
 */
import { AutoModelForCausalLM, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { UserError } from '../core/errors.js';
import { padBatch, type EncodedInput } from '../util/pad-batch.js';
import { readFloat } from './logits.js';
import { forwardPadded, scorePairs, type PairBatching, type PairInput, type PairScorer } from './pair-scoring.js';
import { loadModel, loadTokenizer, type ModelLoadOptions } from './load-model.js';
import { loadModelConfig } from './model-config.js';
import { pYes, QWEN3_PREFIX, QWEN3_SUFFIX, qwen3Body, type Qwen3Template } from '../models/qwen3-template.js';
import { bodyBudget } from './truncation.js';
import type { RerankPair, Reranker, RerankStats } from './types.js';

export interface Qwen3Options extends ModelLoadOptions {
  maxTokens: number;
  batchSize: number;
  /**
   * Padded tokens per batch at most (bounds activation and logits memory). Default 16,384 when the
   * export computes only the last position's logits, else 4,096 (full logits are tokens x vocab floats).
   */
  maxBatchTokens?: number;
  concurrency: number;
  template: Qwen3Template;
  instruction: string;
  /** Skip the load-time padding check (tests of the check itself). */
  skipPaddingCheck?: boolean;
  log?: (line: string) => void;
}

/** prefix + body + suffix ids; `truncated`: the body was cut to its budget. */
export interface Qwen3Input extends PairInput {
  ids: number[];
}

/** Raw last-position logits of "yes" and "no" for one input. */
export interface YesNoLogits {
  yes: number;
  no: number;
}

/**
 * The special tokens a tokenizer's post-processor puts around one sequence (Hugging Face
 * `add_special_tokens=True` for a single text), split at the sequence: read from the post-processor
 * itself on a one-token marker. None without a post-processor or for ByteLevel (Qwen3's).
 */
export function sequenceSpecials(tokenizer: PreTrainedTokenizer, id: string): { before: number[]; after: number[]; tokens: string[] } {
  const pp = tokenizer._tokenizer.post_processor as { post_process(a: string[], b: string[] | null, add: boolean): { tokens: string[]; tokens_pair?: string[] | null } } | null;
  if (!pp) return { before: [], after: [], tokens: [] };
  const marker = '\u0000skillret-body\u0000';
  const out = pp.post_process([marker], null, true);
  const tokens = out.tokens_pair ? [...out.tokens, ...out.tokens_pair] : out.tokens;
  const at = tokens.indexOf(marker);
  if (at < 0 || tokens.lastIndexOf(marker) !== at) throw new UserError(`reranker "${id}": the tokenizer's post-processor does not keep one sequence whole: not a supported tokenizer`);
  const idOf = (t: string): number => {
    const v = tokenizer._tokenizer.token_to_id(t);
    if (typeof v !== 'number') throw new UserError(`reranker "${id}": the post-processor's special token ${JSON.stringify(t)} has no id in the tokenizer`);
    return v;
  };
  const before = tokens.slice(0, at);
  const after = tokens.slice(at + 1);
  return { before: before.map(idOf), after: after.map(idOf), tokens: [...before, ...after] };
}

export class Qwen3Reranker implements Reranker, PairScorer<Qwen3Input> {
  readonly prefixIds: number[];
  readonly suffixIds: number[];
  readonly yesId: number;
  readonly noId: number;
  readonly bodyBudget: number;
  /** Special tokens the tokenizer's post-processor puts before and after one sequence (the body). */
  readonly bodySpecials: { before: number[]; after: number[]; tokens: string[] };
  /** false after a failed padding check: batches then hold inputs of one length only. */
  padding = true;
  /** The export takes `num_logits_to_keep`: only the last position's logits are computed. */
  readonly keepLast: boolean;
  readonly maxBatchTokens: number;
  private readonly counters: RerankStats = { pairs: 0, truncatedPairs: 0, cachedPairs: 0 };

  constructor(
    readonly tokenizer: PreTrainedTokenizer,
    readonly model: PreTrainedModel,
    readonly opts: Qwen3Options,
  ) {
    this.prefixIds = this.encode(QWEN3_PREFIX);
    this.suffixIds = this.encode(QWEN3_SUFFIX);
    const yes = tokenizer.convert_tokens_to_ids('yes');
    const no = tokenizer.convert_tokens_to_ids('no');
    if (typeof yes !== 'number' || typeof no !== 'number') {
      throw new UserError(`reranker "${opts.id}": the tokenizer has no token "yes" or "no": not a Qwen3-Reranker-style model`);
    }
    this.yesId = yes;
    this.noId = no;
    this.bodySpecials = sequenceSpecials(tokenizer, opts.id);
    const specials = this.bodySpecials.before.length + this.bodySpecials.after.length;
    try {
      this.bodyBudget = bodyBudget(opts.maxTokens, this.prefixIds.length + specials, this.suffixIds.length);
    } catch (e) {
      throw new UserError(`reranker "${opts.id}": max_tokens: ${(e as Error).message}`);
    }
    if (specials > 0) {
      opts.log?.(`reranker "${opts.id}": the tokenizer adds ${this.bodySpecials.tokens.map((t) => JSON.stringify(t)).join(', ')} to the body, as the official tokenizer call does (special tokens on)`);
    }
    const session = (model.sessions as Record<string, { inputNames: string[] }>).model;
    this.keepLast = Boolean(session?.inputNames.includes('num_logits_to_keep'));
    this.maxBatchTokens = opts.maxBatchTokens ?? (this.keepLast ? 16_384 : 4_096);
  }

  private encode(text: string): number[] {
    return this.tokenizer._tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  describe(): Record<string, unknown> {
    return {
      scorer: 'qwen3-yes-no',
      score: 'P(yes) = softmax([logit(yes), logit(no)]) at the last position',
      template: this.opts.template,
      instruction: this.opts.instruction,
      maxTokens: this.opts.maxTokens,
      truncation: 'body tail cut to max_tokens - prefix - suffix',
      ...(this.bodySpecials.tokens.length > 0 ? { bodySpecialTokens: this.bodySpecials.tokens } : {}),
      padding: this.padding ? 'left' : 'none (left padding changed scores: equal-length batches only)',
      logits: this.keepLast ? 'last position only (num_logits_to_keep)' : 'all positions',
      batchSize: this.opts.batchSize,
      threads: this.opts.threads,
      dtype: this.opts.dtype,
      yesTokenId: this.yesId,
      noTokenId: this.noId,
    };
  }

  stats(): RerankStats {
    return { ...this.counters };
  }

  /** prefix + body (its content cut to the budget, with its special tokens) + suffix ids of one pair. */
  encodePair(query: string, doc: string): Qwen3Input {
    const body = this.encode(qwen3Body(this.opts.template, this.opts.instruction, query, doc));
    const truncated = body.length > this.bodyBudget;
    const kept = truncated ? body.slice(0, this.bodyBudget) : body;
    const { before, after } = this.bodySpecials;
    return { ids: [...this.prefixIds, ...before, ...kept, ...after, ...this.suffixIds], truncated };
  }

  /** One forward pass over already-encoded inputs (left padded): raw yes/no logits per input. */
  async yesNoLogits(inputs: readonly EncodedInput[], width?: number, rowCount?: number): Promise<YesNoLogits[]> {
    const { padId, paddingSide } = this.batching();
    const padded = padBatch(inputs, padId, paddingSide, width, rowCount);
    return this.readYesNo(await forwardPadded(this.model, padded, this.extraFeeds()), padded.rows, inputs.length);
  }

  /** The last position's "yes" and "no" logits of the first `count` rows. */
  private readYesNo(logits: Tensor | undefined, rows: number, count: number): YesNoLogits[] {
    if (!logits || logits.dims.length !== 3 || logits.dims[0] !== rows) {
      throw new UserError(`reranker "${this.opts.id}": model output has no logits [batch, positions, vocab]: not a causal LM`);
    }
    const [, positions, vocab] = logits.dims as [number, number, number];
    const data = logits.data as ArrayLike<number>;
    const res: YesNoLogits[] = [];
    for (let r = 0; r < count; r++) {
      const base = (r * positions + positions - 1) * vocab;
      res.push({ yes: readFloat(logits.type, data, base + this.yesId), no: readFloat(logits.type, data, base + this.noId) });
    }
    return res;
  }

  /**
   * Scores a short input alone and inside a left-padded batch with a longer one; false when the
   * logits differ by more than `tol` (relative to their size).
   */
  async paddingCheck(tol = 1e-3): Promise<boolean> {
    const short = this.encodePair('check', 'a short document');
    const long = this.encodePair('a longer query used to check left padding', 'a longer document '.repeat(8).trim());
    const [alone] = await this.yesNoLogits([short]);
    const [inBatch] = await this.yesNoLogits([short, long]);
    const close = (a: number, b: number) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));
    return close(alone!.yes, inBatch!.yes) && close(alone!.no, inBatch!.no);
  }

  score(pairs: RerankPair[], onProgress?: (n: number) => void): Promise<number[]> {
    return scorePairs(this, pairs, this.counters, onProgress);
  }

  batching(): PairBatching {
    return {
      batchSize: this.opts.batchSize,
      maxBatchTokens: this.maxBatchTokens,
      maxWidth: this.opts.maxTokens,
      bucketing: this.padding ? 'length-buckets' : 'exact-length',
      concurrency: this.opts.concurrency,
      paddingSide: 'left',
      padId: this.tokenizer.pad_token_id ?? 0,
    };
  }

  /** With `num_logits_to_keep`: only the last position's logits. */
  extraFeeds(): Record<string, Tensor> {
    return this.keepLast ? { num_logits_to_keep: new Tensor('int64', BigInt64Array.from([1n]), []) } : {};
  }

  /** P(yes) of each row. */
  scoresOf(logits: Tensor | undefined, rows: number, count: number): number[] {
    return this.readYesNo(logits, rows, count).map((l) => pYes(l.yes, l.no));
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}

export async function loadQwen3(opts: Qwen3Options): Promise<Qwen3Reranker> {
  const tokenizer = await loadTokenizer(opts);
  const model = await loadModel(opts, await loadModelConfig(opts.location, opts.revision), AutoModelForCausalLM);
  const r = new Qwen3Reranker(tokenizer, model, opts);
  if (!opts.skipPaddingCheck && opts.batchSize > 1 && !(await r.paddingCheck())) {
    r.padding = false;
    opts.log?.(`reranker "${opts.id}": left padding changes this export's scores; running equal-length batches only (slower)`);
  }
  return r;
}
