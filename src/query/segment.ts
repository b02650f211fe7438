/**
 * Query segmentation for the long-query strategies: sentences by `Intl.Segmenter` (Unicode UAX #29
 * sentence boundaries, as ICU implements them; no home-made rules) and overlapping windows of
 * consecutive sentences.
 *
 * A sentence keeps its raw span of the query (`start`..`end`, UTF-16 offsets): the spans of all
 * sentences tile the query exactly, so "the query without sentence i" is the query with one span
 * cut out and every other byte untouched. Whitespace-only segments (blank lines) are folded into
 * the sentence before them (or, at the start, the one after), so no sentence is empty.
 */

export interface Sentence {
  /** The sentence, trimmed. */
  text: string;
  /** Raw span in the query: query.slice(start, end) (trailing whitespace included). */
  start: number;
  end: number;
}

/** Default locale of the segmenter: the benchmark's queries are English. */
export const DEFAULT_LOCALE = 'en';

const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'sentence' });
    segmenters.set(locale, s);
  }
  return s;
}

/** The sentences of `text` in order; a text with no visible character has none. */
export function splitSentences(text: string, locale: string = DEFAULT_LOCALE): Sentence[] {
  const out: Sentence[] = [];
  let pendingStart: number | undefined; // leading whitespace-only span
  for (const seg of segmenter(locale).segment(text)) {
    const start = seg.index;
    const end = start + seg.segment.length;
    const trimmed = seg.segment.trim();
    if (trimmed === '') {
      const last = out[out.length - 1];
      if (last) last.end = end;
      else pendingStart ??= start;
      continue;
    }
    out.push({ text: trimmed, start: pendingStart ?? start, end });
    pendingStart = undefined;
  }
  return out;
}

/** A run of consecutive sentences [from, to) of one query. */
export interface SentenceRange {
  from: number;
  to: number;
}

/**
 * Windows of `size` consecutive sentences, starting every `stride` sentences; the last window is
 * the first one that reaches the last sentence, so every sentence is covered (requires
 * 1 <= stride <= size). Fewer than `size` sentences: one window over all of them; none: no window.
 */
export function sentenceWindows(count: number, size: number, stride: number): SentenceRange[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`window size must be an integer >= 1, got ${size}`);
  if (!Number.isInteger(stride) || stride < 1 || stride > size) throw new RangeError(`window stride must be an integer in [1, size=${size}], got ${stride}`);
  const out: SentenceRange[] = [];
  if (count <= 0) return out;
  for (let from = 0; ; from += stride) {
    const to = Math.min(count, from + size);
    out.push({ from, to });
    if (to >= count) break;
  }
  return out;
}

/** The query text of a range: from the first sentence's start to the last one's end, trimmed. */
export function rangeText(query: string, sentences: readonly Sentence[], r: SentenceRange): string {
  return query.slice(sentences[r.from]!.start, sentences[r.to - 1]!.end).trim();
}

/** The query with sentence `i` cut out (its raw span), every other character untouched. */
export function withoutSentence(query: string, sentences: readonly Sentence[], i: number): string {
  const s = sentences[i]!;
  return query.slice(0, s.start) + query.slice(s.end);
}

/** The token a masked sentence becomes (paper Table 5). */
export const MASK_TOKEN = '[MASK]';

/**
 * The query with each sentence of `indices` replaced by `token`: within the sentence's raw span, its
 * trimmed text (`Sentence.text`) becomes the token and the whitespace before and after it (blank
 * lines folded into the span included) is kept as it was; every character outside the masked
 * sentences is untouched. Adjacent masked sentences stay separate tokens ("[MASK] [MASK]"). Order and
 * repeats of `indices` do not matter.
 */
export function maskSentences(query: string, sentences: readonly Sentence[], indices: Iterable<number>, token: string = MASK_TOKEN): string {
  const masked = new Set(indices);
  let out = '';
  let at = 0;
  sentences.forEach((s, i) => {
    if (!masked.has(i)) return;
    const raw = query.slice(s.start, s.end);
    const lead = raw.length - raw.trimStart().length;
    const trail = raw.length - raw.trimEnd().length;
    out += query.slice(at, s.start + lead) + token;
    at = s.end - trail;
  });
  return out + query.slice(at);
}
