/**
 * Special-token framing and head truncation that matches Hugging Face tokenizers'
 * `truncation=True` on a single sequence: the text's own tokens are cut from the right so that
 * the tokens the post-processor adds ([CLS] … [SEP] for BERT, a trailing <|endoftext|> for
 * Qwen3-Embedding) are always kept. transformers.js 4.3.2 instead chops the finished id list,
 * dropping the trailing special token of every long text; last-token pooling would then read
 * a content token. Framing is learnt once per tokenizer from a probe text.
 */
export interface Frame {
  prefix: number[];
  suffix: number[];
}

/** Encoder of one text to ids, with or without the post-processor's special tokens. */
export type EncodeFn = (text: string, addSpecialTokens: boolean) => number[];

/** Finds `inner` as a contiguous run inside `outer`; returns its start or -1. */
function indexOfRun(outer: readonly number[], inner: readonly number[]): number {
  outer: for (let s = 0; s + inner.length <= outer.length; s++) {
    for (let j = 0; j < inner.length; j++) if (outer[s + j] !== inner[j]) continue outer;
    return s;
  }
  return -1;
}

/** Learns which ids the post-processor puts before and after a single text. */
export function learnFrame(encode: EncodeFn, probe = 'retrieval probe text'): Frame {
  const plain = encode(probe, false);
  const full = encode(probe, true);
  const at = indexOfRun(full, plain);
  if (plain.length === 0 || at < 0) throw new Error('tokenizer: cannot locate the text inside its special-token frame');
  return { prefix: full.slice(0, at), suffix: full.slice(at + plain.length) };
}

export interface FramedIds {
  /** Model input ids: prefix + head of the text's tokens + suffix. */
  ids: number[];
  /** Whether the text had more tokens than the model keeps (some were cut). */
  truncated: boolean;
}

/** Frames the text's ids and cuts the text part so the total is at most maxLength. */
export function frameAndTruncate(content: readonly number[], frame: Frame, maxLength: number): FramedIds {
  const room = roomFor(frame, maxLength);
  const truncated = content.length > room;
  const head = truncated ? content.slice(0, room) : content;
  return { ids: [...frame.prefix, ...head, ...frame.suffix], truncated };
}

/** Content tokens a text keeps inside the frame: maxLength less the special tokens (at least 0). */
export function roomFor(frame: Frame, maxLength: number): number {
  return Math.max(0, maxLength - frame.prefix.length - frame.suffix.length);
}

/**
 * `frameAndTruncate` for a text whose ids are known only as far as they can be kept: `head` holds
 * at least the first min(contentLength, room) of its ids and `contentLength` is its number of ids,
 * or any number above `room` when it has more than that (see unigram-fast.ts's ContentEncoder).
 */
export function frameHead(head: readonly number[], contentLength: number, frame: Frame, maxLength: number): FramedIds {
  const room = roomFor(frame, maxLength);
  const keep = Math.min(contentLength, room);
  if (head.length < keep) throw new Error(`frameHead: ${head.length} ids given, ${keep} needed`);
  return { ids: [...frame.prefix, ...head.slice(0, keep), ...frame.suffix], truncated: contentLength > room };
}
