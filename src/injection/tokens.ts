/**
 * Token counts of injected skill texts: OpenAI's cl100k_base BPE through js-tiktoken (the
 * tokenizer the SkillRet paper used for its length statistics). The rank file ships inside the
 * package, so counting works offline. Counts of short texts are memoised by text.
 *
 * Speed: the count of a text is the sum over its pieces (the matches of cl100k's split pattern over
 * the whole text, exactly as js-tiktoken's `encode` splits it when no special token is allowed) of
 * each piece's count: 1 when its bytes are a token, else the number of parts js-tiktoken's
 * byte-pair merge leaves. Pieces repeat (words), so each distinct piece is merged once and its count
 * memoised: the same counts as `encode(text, [], []).length` (tested), without running the
 * quadratic merge of every word of a 100 MB corpus again.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

export const TOKENIZER = 'cl100k_base (js-tiktoken)';

/** js-tiktoken's byte sequence -> rank map (internal to the library, stable across 1.x). */
interface RankMap {
  get(bytes: string): number | undefined;
}

let encoder: Tiktoken | undefined;
let ranks: RankMap | undefined;
let split: RegExp | undefined;
/** Whole texts up to this length are memoised (longer ones are not kept alive: memory follows the index, not the text). */
const MEMO_MAX_CHARS = 256;
const memo = new Map<string, number>();
const pieceMemo = new Map<string, number>();
const utf8 = new TextEncoder();

/** The encoder itself (for tests comparing with `encode`). */
export function cl100kEncoder(): Tiktoken {
  encoder ??= new Tiktoken(cl100k);
  return encoder;
}

/** Tokens of one piece: js-tiktoken's bytePairMerge, counting the parts it leaves. */
function pieceTokens(piece: string): number {
  const bytes = utf8.encode(piece);
  const r = ranks!;
  if (r.get(bytes.join(',')) !== undefined) return 1;
  // parts as [start, end) byte ranges, merged lowest rank first (leftmost on equal rank)
  const starts: number[] = Array.from({ length: bytes.length }, (_, i) => i);
  const end = (i: number) => (i + 1 < starts.length ? starts[i + 1]! : bytes.length);
  const key = (from: number, to: number) => bytes.subarray(from, to).join(',');
  while (starts.length > 1) {
    let minRank = -1;
    let at = -1;
    for (let i = 0; i < starts.length - 1; i++) {
      const rank = r.get(key(starts[i]!, end(i + 1)));
      if (rank === undefined) continue;
      if (at < 0 || rank < minRank) {
        minRank = rank;
        at = i;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
  }
  let n = 0;
  for (let i = 0; i < starts.length; i++) if (r.get(key(starts[i]!, end(i))) !== undefined) n++;
  return n;
}

/** cl100k_base tokens of `text` (special-token strings count as plain text). */
export function countTokens(text: string): number {
  const short = text.length <= MEMO_MAX_CHARS;
  const hit = short ? memo.get(text) : undefined;
  if (hit !== undefined) return hit;
  ranks ??= (cl100kEncoder() as unknown as { rankMap: RankMap }).rankMap;
  split ??= new RegExp((cl100k as { pat_str: string }).pat_str, 'gu');
  let n = 0;
  for (const m of text.matchAll(split)) {
    const piece = m[0];
    let c = pieceMemo.get(piece);
    if (c === undefined) {
      c = pieceTokens(piece);
      pieceMemo.set(piece, c);
    }
    n += c;
  }
  if (short) memo.set(text, n);
  return n;
}
