/**
 * Text embedder over transformers.js (AutoTokenizer + AutoModel, onnxruntime-node on CPU).
 *
 * - The role's prefix goes in front of each text (query / document), then the text is
 *   tokenised once, framed with the tokenizer's special tokens and cut from the right to
 *   min(maxTokens, model maximum) tokens keeping those special tokens (see token-frame.ts). With
 *   the fast Unigram encoder a text is tokenised only as far as that window needs (whether it was
 *   cut stays exact; how many tokens were cut is not known).
 * - Batches are formed by length bucket and padded to the bucket's width on the tokenizer's padding
 *   side (util/batch-plan.ts, util/pad-batch.ts), so a text's vector never depends on its batch companions;
 *   pooling reads the attention mask, so the first/last real token is found whatever the side.
 * - Texts may come from a source that streams them (text-source.ts, a document store): each is
 *   tokenised as it is read and dropped; the ids wait out of the heap (tokenized-texts.ts) and each
 *   batch reads back its own rows, so memory follows the number of texts, not their length.
 * - Outputs are float32 vectors in input order; truncation and throughput are counted.
 */
import { existsSync } from 'node:fs';
import { AutoModel, AutoTokenizer, env, Tensor } from '@huggingface/transformers';
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { UserError } from '../../../core/errors.js';
import { planBatches } from '../../../util/batch-plan.js';
import { assertJsonFilesParse } from '../../../util/json-files.js';
import { padBatch } from '../../../util/pad-batch.js';
import { configureTransformersEnv, describeModel, type ModelLocationOptions, type ResolvedModel } from '../../../models/resolve.js';
import { poolBatch } from './pooling.js';
import { frameAndTruncate, frameHead, learnFrame, roomFor, type Frame } from '../tokenizers/token-frame.js';
import { installFastUnigram, type ContentEncoder } from '../tokenizers/unigram-fast.js';
import { installFastWordPiece } from '../tokenizers/wordpiece-fast.js';
import { textSource, type TextSource } from './text-source.js';
import { TokenizedTexts, type TokenizedRow } from '../tokenizers/tokenized-texts.js';
import { checkEmbedderInputs, DEFAULT_MAX_BATCH_TOKENS, effectiveMaxLength, modelFilePaths, type EmbedderOptions, type Role } from './embedder-inputs.js';

export { checkEmbedderInputs, DEFAULT_MAX_BATCH_TOKENS, effectiveMaxLength, modelFilePaths, type EmbedderOptions, type Role } from './embedder-inputs.js';

/** One tokenised text. */
export interface TokenizedText {
  ids: number[];
  /**
   * Whether the text had more tokens than the model keeps. Exact; how many it had is not known:
   * a text is tokenised only as far as the model's window needs.
   */
  truncated: boolean;
}

export interface EmbedRunStats {
  texts: number;
  /** Tokens fed to the model (after truncation, without padding). */
  tokens: number;
  /** Tokens computed including padding. */
  paddedTokens: number;
  /** Texts cut to the model's window. */
  truncatedTexts: number;
  batches: number;
  tokenizeSeconds: number;
  encodeSeconds: number;
  textsPerSec: number;
  tokensPerSec: number;
}

export interface BatchResult {
  /** Positions in the `texts` given to `embed`. */
  indices: number[];
  vectors: Float32Array[];
  tokenized: TokenizedRow[];
}

export type OnBatch = (b: BatchResult) => void | Promise<void>;

function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/\s+/g, ' ').trim();
}

function positiveOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

export class Embedder {
  /** Effective token limit: min(maxTokens, tokenizer model_max_length, config max_position_embeddings). */
  readonly maxLength: number;
  /** The model's own limit (before the user's maxTokens). */
  readonly modelMaxLength: number;
  /** ONNX files that were loaded (absolute paths): the model file first, then external data. */
  readonly modelFiles: string[];
  readonly paddingSide: 'left' | 'right';
  /** Vector dimension (known from config.hidden_size, confirmed by the first batch). */
  dim: number | null;
  lastRun: EmbedRunStats | null = null;
  /** Ids the tokenizer's post-processor puts around every text (e.g. [CLS] … [SEP], … <|endoftext|>). */
  readonly frame: Frame;
  /** Whether the tokenizer's Unigram lattice runs on unigram-fast.ts. */
  readonly fastTokenizer: boolean;
  /** A direct encoder of a text's ids (the tokenizer's own ids): unigram-fast.ts's or wordpiece-fast.ts's, when one applies. */
  private readonly encodeContent: ContentEncoder | null;

  private constructor(
    readonly model: ResolvedModel,
    readonly options: Readonly<EmbedderOptions>,
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly net: PreTrainedModel,
  ) {
    const cfg = net.config as unknown as Record<string, unknown>;
    const limits = [positiveOrNull(tokenizer.model_max_length), positiveOrNull(cfg['max_position_embeddings'])].filter(
      (x): x is number => x !== null && x < 1e12,
    );
    this.modelMaxLength = limits.length > 0 ? Math.min(...limits) : Number.MAX_SAFE_INTEGER;
    this.maxLength = effectiveMaxLength(options.maxTokens, this.modelMaxLength);
    this.modelFiles = modelFilePaths(model.folder, options.dtype);
    this.paddingSide = tokenizer.padding_side === 'left' ? 'left' : 'right';
    this.dim = positiveOrNull(cfg['hidden_size']);
    // A Unigram tokenizer's lattice search, replaced by a typed-array version that gives the same
    // pieces (unigram-fast.ts; it checks itself against the original first).
    // A WordPiece tokenizer's words, encoded once each (wordpiece-fast.ts; it checks itself too).
    const inner = (tokenizer as unknown as { _tokenizer?: unknown })._tokenizer;
    const fast = installFastUnigram(inner);
    this.fastTokenizer = fast.lattice;
    this.encodeContent = fast.encode ?? (fast.lattice ? null : installFastWordPiece(inner).encode);
    this.frame = learnFrame((t, s) => tokenizer.encode(t, { add_special_tokens: s }));
  }

  /** Loads tokenizer and model. Failures become one-line UserErrors naming the model. */
  static async load(model: ResolvedModel, options: EmbedderOptions, loc: ModelLocationOptions): Promise<Embedder> {
    checkEmbedderInputs(model, options, loc);
    configureTransformersEnv(loc, env);
    const common = model.revision !== undefined ? { revision: model.revision } : {};
    const sessionOptions: Record<string, unknown> = { interOpNumThreads: 1 };
    if (options.threads !== undefined) sessionOptions['intraOpNumThreads'] = options.threads;
    try {
      const tokenizer = await AutoTokenizer.from_pretrained(model.location, common);
      const net = await AutoModel.from_pretrained(model.location, {
        ...common,
        dtype: options.dtype as 'fp32',
        device: 'cpu',
        session_options: sessionOptions,
      });
      return new Embedder(model, options, tokenizer, net);
    } catch (e) {
      if (e instanceof UserError) throw e;
      // A broken JSON file of the folder, named (checked only now: tokenizer.json can be megabytes).
      if (existsSync(model.folder)) assertJsonFilesParse(model.folder);
      const where = model.source === 'hub' ? ` (from ${loc.endpoint ?? 'the hub'}; files go to ${model.folder})` : '';
      throw new UserError(`model "${describeModel(model)}": cannot load: ${oneLine(e)}${where}`);
    }
  }

  prefixFor(role: Role): string {
    return role === 'query' ? this.options.queryPrefix : this.options.docPrefix;
  }

  /** Prefixes, tokenises, frames and truncates each text. */
  tokenize(texts: readonly string[], role: Role): TokenizedText[] {
    return texts.map((t, i) => this.tokenizeText(t, role, i === 0));
  }

  /**
   * One text prefixed, tokenised, framed and truncated. `selfCheck` (the first text of a run):
   * when it is not truncated, the learnt frame must reproduce the tokenizer's own output.
   */
  tokenizeText(t: string, role: Role, selfCheck = false): TokenizedText {
    const prefix = this.prefixFor(role);
    let framed: TokenizedText;
    if (this.encodeContent) {
      // Only the ids that can be kept, tokenising no further than whether there are more.
      const head: number[] = [];
      const n = this.encodeContent(prefix + t, head, roomFor(this.frame, this.maxLength));
      framed = frameHead(head, n, this.frame, this.maxLength);
    } else {
      framed = frameAndTruncate(this.tokenizer.encode(prefix + t, { add_special_tokens: false }), this.frame, this.maxLength);
    }
    if (selfCheck && !framed.truncated) {
      const own = this.tokenizer.encode(prefix + t, { add_special_tokens: true });
      if (own.length !== framed.ids.length || own.some((id, j) => id !== framed.ids[j])) {
        throw new Error(`embedder: special-token framing of ${describeModel(this.model)} does not match its tokenizer`);
      }
    }
    return framed;
  }

  /**
   * Embeds texts in input order. `texts` may be a source that streams them (a document store):
   * each text is read, tokenised and dropped; only its ids are kept, out of the heap
   * (tokenized-texts.ts), and each batch reads back its own rows. `onBatch` runs after each batch
   * (awaited; it may persist the vectors, report progress, or throw to stop the run).
   */
  async embed(texts: readonly string[] | TextSource, role: Role, onBatch?: OnBatch): Promise<Float32Array[]> {
    const source = textSource(texts);
    const tok = new TokenizedTexts(this.options.tokenBlockInts !== undefined ? { blockInts: this.options.tokenBlockInts } : {});
    try {
      const t0 = performance.now();
      for (const t of source.texts()) tok.push(this.tokenizeText(t, role, tok.size === 0));
      if (tok.size !== source.size) throw new Error(`embedder: ${tok.size} texts read, expected ${source.size}`);
      const t1 = performance.now();
      const n = tok.size;
      const out: (Float32Array | undefined)[] = new Array(n);
      const lengths = Array.from({ length: n }, (_, i) => tok.length(i));
      const nonEmpty = lengths.map((l, i) => (l > 0 ? i : -1)).filter((i) => i >= 0);
      const plan = planBatches(
        nonEmpty.map((i) => lengths[i]!),
        this.options.batchSize,
        this.options.maxBatchTokens ?? DEFAULT_MAX_BATCH_TOKENS,
        this.maxLength,
      );
      let tokens = 0;
      for (const [b, local] of plan.batches.entries()) {
        const batch = local.map((j) => nonEmpty[j]!);
        const rows = batch.map((i) => tok.get(i));
        const vectors = await this.runBatch(
          rows.map((r) => r.ids),
          plan.widths[b],
          plan.rows[b],
        );
        batch.forEach((i, r) => (out[i] = vectors[r]!));
        for (const i of batch) tokens += lengths[i]!;
        if (onBatch) await onBatch({ indices: batch, vectors, tokenized: rows });
      }
      // Texts with no token at all (empty text, no special tokens): zero vectors, as a masked mean gives.
      const empties = lengths.map((l, i) => (l === 0 ? i : -1)).filter((i) => i >= 0);
      if (empties.length > 0) {
        if (this.dim === null) throw new Error('embedder: cannot size the vector of an empty text (unknown hidden size)');
        const vectors = empties.map(() => new Float32Array(this.dim!));
        empties.forEach((i, r) => (out[i] = vectors[r]!));
        if (onBatch) await onBatch({ indices: empties, vectors, tokenized: empties.map((i) => tok.get(i)) });
      }
      const t2 = performance.now();
      const encodeSeconds = (t2 - t1) / 1000;
      let truncatedTexts = 0;
      for (let i = 0; i < n; i++) if (tok.truncated(i)) truncatedTexts++;
      this.lastRun = {
        texts: n,
        tokens,
        paddedTokens: plan.paddedTokens,
        truncatedTexts,
        batches: plan.batches.length,
        tokenizeSeconds: (t1 - t0) / 1000,
        encodeSeconds,
        textsPerSec: encodeSeconds > 0 ? n / encodeSeconds : 0,
        tokensPerSec: encodeSeconds > 0 ? tokens / encodeSeconds : 0,
      };
      return out as Float32Array[];
    } finally {
      tok.dispose();
    }
  }

  /**
   * One forward pass over already tokenised texts (padded here to `width`, default the longest,
   * and filled up to `rowCount` rows with copies of the first text), pooled to vectors (one per text).
   */
  async runBatch(realLists: readonly ArrayLike<number>[], width?: number, rowCount = realLists.length): Promise<Float32Array[]> {
    const padded = padBatch(
      realLists.map((ids) => ({ ids })),
      this.tokenizer.pad_token_id ?? 0,
      this.paddingSide,
      width,
      rowCount,
    );
    const { rows: B, width: T, attentionMask: mask } = padded;
    const inputs = { input_ids: new Tensor('int64', padded.inputIds, [B, T]), attention_mask: new Tensor('int64', mask, [B, T]) };
    const outputs = (await this.net(inputs)) as Record<string, unknown>;
    try {
      const hidden = pickHidden(outputs, B, T);
      const h = hidden.type === 'float32' ? hidden : hidden.to('float32');
      const H = h.dims[2]!;
      this.dim = H;
      return poolBatch({ data: h.data as Float32Array, batch: B, tokens: T, hidden: H }, mask, this.options.pooling, this.options.normalize, realLists.length);
    } finally {
      for (const v of Object.values(outputs)) if (v instanceof Tensor) v.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.net.dispose();
  }
}

/** The token-state output [B, T, H]: last_hidden_state, else token_embeddings, else the first 3-D output. */
function pickHidden(outputs: Record<string, unknown>, B: number, T: number): Tensor {
  const is3d = (v: unknown): v is Tensor => v instanceof Tensor && v.dims.length === 3 && v.dims[0] === B && v.dims[1] === T;
  for (const name of ['last_hidden_state', 'token_embeddings']) if (is3d(outputs[name])) return outputs[name];
  for (const v of Object.values(outputs)) if (is3d(v)) return v;
  throw new Error(`embedder: the model has no [batch, tokens, hidden] output (outputs: ${Object.keys(outputs).join(', ')})`);
}
