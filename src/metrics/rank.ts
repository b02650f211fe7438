/**
 * trec_eval's ranking rule: score descending, ties broken by document id in DESCENDING byte order
 * (C `strcmp` on the UTF-8 bytes, as trec_eval's `comp_sim_docno`). The submitted order of a run is
 * ignored. Also holds `compareUtf8`, the byte-order string comparison both use, and `tieRanks`, the
 * same rule precomputed for the top-k searches of BM25 and the dense indexes. The one home of the rule.
 */
import type { ScoredDoc } from '../core/types.js';

/**
 * Compares two strings by the bytes of their UTF-8 encoding, like C `strcmp` (unsigned bytes, a
 * prefix sorts first). Returns a negative number, 0 or a positive number.
 *
 * UTF-8 byte order equals Unicode code point order. JavaScript's `<` compares UTF-16 code units,
 * which agrees except where a surrogate pair (code point >= U+10000) meets a BMP character in
 * U+E000..U+FFFF: code units put the pair first, bytes put it last. Fast path: code units below
 * U+D800 compare directly; otherwise the units are remapped so surrogates sort above U+E000..U+FFFF.
 * (Lone surrogates cannot come from decoded UTF-8 files; they sort as their code unit would.)
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 || y >= 0xd800) {
      x = fixupUnit(x);
      y = fixupUnit(y);
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Maps a UTF-16 code unit so that the order of mapped units is the code point order. */
function fixupUnit(u: number): number {
  if (u >= 0xe000) return u - 0x800; // U+E000..U+FFFF -> 0xD800..0xF7FF
  if (u >= 0xd800) return u + 0x2000; // surrogates D800..DFFF -> 0xF800..0xFFFF
  return u;
}

/** trec_eval's `comp_sim_docno`: higher score first; equal scores by doc id, larger bytes first. */
export function compareTrec(a: ScoredDoc, b: ScoredDoc): number {
  return compareScored(a.score, a.docId, b.score, b.docId);
}

/** `compareTrec` on a document given as its score and id (for rankings held in typed arrays). */
export function compareScored(scoreA: number, idA: string, scoreB: number, idB: string): number {
  if (scoreA > scoreB) return -1;
  if (scoreA < scoreB) return 1;
  return compareUtf8(idB, idA);
}

/** Rankings up to this long are ordered by insertion sort (no allocation). */
const SHORT_RANKING = 32;

/**
 * Puts rows `r0 .. r0 + n` of a ranking held in typed arrays (`score[row]`, `docIds[doc[row]]`) in
 * trec_eval order, writing the rows into `order[0 .. n)`. Doc ids must be distinct.
 */
export function trecOrderRows(order: Int32Array, r0: number, n: number, score: Float64Array, doc: Int32Array, docIds: readonly string[]): void {
  if (n > SHORT_RANKING) {
    const rows = Array.from({ length: n }, (_, i) => r0 + i);
    rows.sort((a, b) => compareScored(score[a]!, docIds[doc[a]!]!, score[b]!, docIds[doc[b]!]!));
    order.set(rows);
    return;
  }
  for (let i = 0; i < n; i++) {
    const row = r0 + i;
    const s = score[row]!;
    const id = docIds[doc[row]!]!;
    let p = i;
    while (p > 0 && compareScored(s, id, score[order[p - 1]!]!, docIds[doc[order[p - 1]!]!]!) < 0) {
      order[p] = order[p - 1]!;
      p--;
    }
    order[p] = row;
  }
}

/**
 * Returns a new array of `docs` in trec_eval order (score descending, ties by doc id descending in
 * UTF-8 byte order). The input is not modified. Scores are expected finite (readers and
 * `evaluate` reject NaN and infinities).
 */
export function trecOrder(docs: readonly ScoredDoc[]): ScoredDoc[] {
  // A ranking already in that order (what every stage hands on) is only copied.
  let sorted = true;
  for (let i = 1; i < docs.length && sorted; i++) sorted = compareTrec(docs[i - 1]!, docs[i]!) <= 0;
  return sorted ? docs.slice() : [...docs].sort(compareTrec);
}

/**
 * Returns a new array of `docs` by score descending, ties kept in the list's own order: Python's
 * `sorted(items, key=score, reverse=True)`, which is stable. The official reranking orders a first
 * stage's candidates so before cutting the pool (docs/protocol.md §5), and the first stage's top_k
 * cut follows it: a saved run keeps its file's order among equal scores, and every stage of this
 * tool hands on trec order (for which this is trec order again). Scores are expected finite.
 */
export function scoreOrder(docs: readonly ScoredDoc[]): ScoredDoc[] {
  let sorted = true;
  for (let i = 1; i < docs.length && sorted; i++) sorted = docs[i - 1]!.score >= docs[i]!.score;
  return sorted ? docs.slice() : [...docs].sort((a, b) => (a.score === b.score ? 0 : a.score > b.score ? -1 : 1));
}

/**
 * tieRank[i] = position of id i in ascending UTF-8 byte order (0 = smallest): with equal scores a
 * larger rank wins, which is trec_eval's rule, for searches that compare integers in a hot loop.
 * Duplicate ids get distinct ranks (by position) so the order stays total and deterministic.
 */
export function tieRanks(ids: readonly string[]): Int32Array {
  const order = ids.map((_, i) => i);
  order.sort((x, y) => compareUtf8(ids[x]!, ids[y]!) || x - y);
  const rank = new Int32Array(ids.length);
  order.forEach((row, r) => (rank[row] = r));
  return rank;
}
