/**
 * Cross-encoder reranker (transformers.js AutoTokenizer + AutoModelForSequenceClassification):
 * the pair (query, document) in one input, score = the raw relevance logit `logits[:, -1]` (the official code takes the last logit of a multi-label head) (no
 * sigmoid), as the jina-reranker-v2 protocol says.
 *
 * Truncation (see truncation.ts): both texts are tokenised without special tokens, cut by Hugging
 * Face "longest_first" to `maxTokens` minus the pair's special tokens (the official jina path is
 * `tokenizer(pairs, truncation=True, max_length=1024)` = longest_first), then the tokenizer's own
 * post-processor adds the special tokens ([CLS] q [SEP] d [SEP], <s> q </s></s> d </s>, …).
 * transformers.js's built-in pair truncation is not used: it cuts the encoded pair's tail and so
 * drops the closing separator. With SkillRet queries (far below half the budget) only the
 * document is ever cut, and the query always survives whole.
 *
 * Batches (the shared loop of pair-scoring.ts): pairs grouped by length bucket and right-padded to
 * the bucket's width, so a pair's score never depends on its batch companions; order restored.
 */
import { AutoModelForSequenceClassification, Tensor, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { UserError } from '../core/errors.js';
import { readFloat } from './logits.js';
import { scorePairs, type PairBatching, type PairInput, type PairScorer } from './pair-scoring.js';
import { loadModel, loadTokenizer, type ModelLoadOptions } from './load-model.js';
import { loadModelConfig } from './model-config.js';
import { longestFirst } from './truncation.js';
import type { RerankPair, Reranker, RerankStats } from './types.js';

export interface CrossEncoderOptions extends ModelLoadOptions {
  /** Token budget of one pair with its special tokens; default: the tokenizer's model_max_length. */
  maxTokens?: number;
  batchSize: number;
  /** Padded tokens per batch at most (default batchSize x maxTokens: no extra limit). */
  maxBatchTokens?: number;
  /** Batches in flight. */
  concurrency: number;
}

export interface EncodedPair extends PairInput {
  ids: number[];
  typeIds?: number[];
}

/** Texts whose (capped) tokens a cross-encoder keeps between calls (oldest dropped first). */
const MEMO_ENTRIES = 50_000;

interface Pieces {
  /** The head of the text's tokens (at most the content budget). */
  ids: number[];
  tokens: string[];
  /** The text's full token count. */
  length: number;
}

export class CrossEncoderReranker implements Reranker, PairScorer<EncodedPair> {
  readonly maxTokens: number;
  /** Special tokens the post-processor adds around a pair. */
  readonly specialTokens: number;
  private readonly idOfSpecial: Map<string, number>;
  private readonly withTypeIds: boolean;
  private readonly counters: RerankStats = { pairs: 0, truncatedPairs: 0, cachedPairs: 0 };
  private readonly memo = new Map<string, Pieces>();

  constructor(
    readonly tokenizer: PreTrainedTokenizer,
    readonly model: PreTrainedModel,
    private readonly opts: CrossEncoderOptions,
    maxTokens: number,
  ) {
    this.maxTokens = maxTokens;
    const inner = tokenizer._tokenizer;
    this.idOfSpecial = new Map();
    for (const [id, t] of inner.get_added_tokens_decoder()) this.idOfSpecial.set(t.content, id);
    // Token type ids as Python would pass them: when the tokenizer class returns them (BERT-like),
    // or when the graph takes them and the model has more than one type (generic fast tokenizers);
    // never for single-type models (XLM-R: type_vocab_size 1).
    const session = (model.sessions as Record<string, { inputNames: string[] } | undefined>).model;
    const types = (model.config as unknown as Record<string, unknown>).type_vocab_size;
    this.withTypeIds =
      Boolean(tokenizer.return_token_type_ids) || (Boolean(session?.inputNames.includes('token_type_ids')) && typeof types === 'number' && types > 1);
    this.specialTokens = this.postProcess([], []).tokens.length;
    if (this.specialTokens >= maxTokens) {
      throw new UserError(`reranker "${opts.id}": max_tokens ${maxTokens} leaves no room for text (${this.specialTokens} special tokens per pair)`);
    }
  }

  describe(): Record<string, unknown> {
    return {
      scorer: 'cross-encoder',
      score: 'raw logit logits[:, -1] (no sigmoid; the only one for a single-label head)',
      truncation: 'longest_first on the (query, document) pair, heads kept, special tokens added after cutting',
      maxTokens: this.maxTokens,
      batchSize: this.opts.batchSize,
      threads: this.opts.threads,
      dtype: this.opts.dtype,
    };
  }

  stats(): RerankStats {
    return { ...this.counters };
  }

  private postProcess(a: string[], b: string[]): { tokens: string[]; typeIds?: number[] } {
    const pp = this.tokenizer._tokenizer.post_processor;
    if (!pp) return { tokens: [...a, ...b] };
    const out = pp.post_process(a, b, true) as { tokens: string[]; tokens_pair?: string[] | null; token_type_ids?: number[] };
    const tokens = out.tokens_pair ? [...out.tokens, ...out.tokens_pair] : out.tokens;
    return out.token_type_ids && out.token_type_ids.length === tokens.length ? { tokens, typeIds: out.token_type_ids } : { tokens };
  }

  /**
   * Tokens of one text without special tokens: the first `budget` of them (no cut keeps more) and
   * the full count (longest_first compares the full lengths). Memoised across calls: each document
   * is tokenised once per reranker.
   */
  private pieces(text: string): Pieces {
    const hit = this.memo.get(text);
    if (hit) return hit;
    const e = this.tokenizer._tokenizer.encode(text, { add_special_tokens: false });
    const cap = this.maxTokens - this.specialTokens;
    const length = e.ids.length;
    const p = length > cap ? { ids: e.ids.slice(0, cap), tokens: e.tokens.slice(0, cap), length } : { ids: e.ids, tokens: e.tokens, length };
    if (this.memo.size >= MEMO_ENTRIES) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(text, p);
    return p;
  }

  /** The model input of one pair: special tokens from the post-processor around the cut texts. */
  encodePair(query: string, doc: string): EncodedPair {
    const q = this.pieces(query);
    const d = this.pieces(doc);
    const [nq, nd] = longestFirst(q.length, d.length, this.maxTokens - this.specialTokens);
    const truncated = nq < q.length || nd < d.length;
    const qt = q.tokens.slice(0, nq);
    const dt = d.tokens.slice(0, nd);
    const pp = this.postProcess(qt, dt);
    // A token string always has one id (the tokenizer maps strings to ids); content tokens take
    // the ids their encoding produced, the special tokens added by the post-processor are looked up.
    const local = new Map<string, number>();
    for (let i = 0; i < nq; i++) local.set(qt[i]!, q.ids[i]!);
    for (let i = 0; i < nd; i++) local.set(dt[i]!, d.ids[i]!);
    const ids = pp.tokens.map((t) => local.get(t) ?? this.specialId(t));
    const out: EncodedPair = { ids, truncated };
    if (this.withTypeIds && pp.typeIds) out.typeIds = pp.typeIds;
    return out;
  }

  private specialId(tok: string): number {
    const id = this.idOfSpecial.get(tok) ?? this.tokenizer._tokenizer.token_to_id(tok);
    if (id === undefined) throw new Error(`cross-encoder: special token ${JSON.stringify(tok)} has no id`);
    return id;
  }

  score(pairs: RerankPair[], onProgress?: (n: number) => void): Promise<number[]> {
    return scorePairs(this, pairs, this.counters, onProgress);
  }

  batching(): PairBatching {
    return {
      batchSize: this.opts.batchSize,
      maxBatchTokens: this.opts.maxBatchTokens ?? this.opts.batchSize * this.maxTokens,
      maxWidth: this.maxTokens,
      bucketing: 'length-buckets',
      concurrency: this.opts.concurrency,
      paddingSide: 'right',
      padId: this.tokenizer.pad_token_id ?? 0,
    };
  }

  extraFeeds(): Record<string, Tensor> {
    return {};
  }

  /** The last logit of each row (the official code takes the last one of a multi-label head). */
  scoresOf(logits: Tensor | undefined, rows: number, count: number): number[] {
    if (!logits || logits.dims.length !== 2 || logits.dims[0] !== rows) {
      throw new UserError(`reranker "${this.opts.id}": model output has no logits [batch, labels] (got ${logits ? `[${logits.dims.join(', ')}]` : 'none'}): not a sequence-classification model`);
    }
    const labels = logits.dims[1]!;
    const data = logits.data as ArrayLike<number>;
    return Array.from({ length: count }, (_, r) => readFloat(logits.type, data, r * labels + labels - 1));
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}

/** Position-embedding capacity of a config, or undefined when it has none (ALiBi, rotary) or does not say. */
function positionLimit(config: Record<string, unknown>): number | undefined {
  const pe = config.position_embedding_type;
  if (pe === 'alibi' || pe === 'rotary') return undefined;
  const mpe = config.max_position_embeddings;
  if (typeof mpe !== 'number') return undefined;
  const type = String(config.model_type ?? '').toLowerCase().replace(/[-_]/g, '');
  // RoBERTa-style position ids start at padding_idx + 1.
  const offset = type === 'roberta' || type === 'xlmroberta' || type === 'camembert' ? (typeof config.pad_token_id === 'number' ? config.pad_token_id + 1 : 2) : 0;
  return mpe - offset;
}

export async function loadCrossEncoder(opts: CrossEncoderOptions): Promise<CrossEncoderReranker> {
  const tokenizer = await loadTokenizer(opts);
  const config = await loadModelConfig(opts.location, opts.revision);
  const tokMax = tokenizer.model_max_length as number;
  let maxTokens = opts.maxTokens ?? (Number.isFinite(tokMax) && tokMax > 0 && tokMax < 1e9 ? tokMax : undefined);
  const posMax = positionLimit(config as unknown as Record<string, unknown>);
  if (maxTokens === undefined) maxTokens = posMax ?? 512;
  if (posMax !== undefined && maxTokens > posMax) {
    throw new UserError(`reranker "${opts.id}": max_tokens ${maxTokens} exceeds the model's ${posMax} positions`);
  }
  const model = await loadModel(opts, config, AutoModelForSequenceClassification);
  return new CrossEncoderReranker(tokenizer, model, opts, maxTokens);
}
