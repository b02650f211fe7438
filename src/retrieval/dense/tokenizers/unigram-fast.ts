/**
 * A faster drop-in for the `tokenize(normalized)` step of transformers.js 4.3.2's Unigram
 * tokenizer model (SentencePiece-style Viterbi over a piece lattice), producing the same pieces.
 *
 * transformers.js builds one object per lattice node, clones a node at every improvement of the
 * Viterbi comparison and yields prefixes from a generator, so on long texts (skill documents of
 * 10-20 KB) tokenizing costs several times the forward pass of a small model, mostly in garbage
 * collection. This does the same computation over typed arrays, in the same order, with the same
 * floating-point operations and the same tie rule, so the chosen path is the same one:
 *
 * - positions are code points of the normalised text (what `Array.from(text)` gives, lone
 *   surrogates included); the pieces starting at a position are the vocabulary strings that are
 *   prefixes of the text there, shortest first (the trie walk), then an unknown-piece node of one
 *   code point scored `unk_score` when no piece of one code point matched;
 * - a piece's id is `tokens_to_ids.get(piece)` (for a piece listed twice, its last id) and its
 *   score `scores[id]` (the model's table, whose unknown id holds `unk_score`);
 * - each node takes, among the nodes ending where it begins (in insertion order: the earliest
 *   start first), the first with the largest `backtrace_score + score` (strict `>`), computed
 *   per node exactly as transformers.js does; the path is read back from the end.
 *
 * The pieces are returned as strings (slices of the text); the caller (transformers.js) maps
 * them to ids and fuses unknown runs as before.
 *
 * The direct encoder (`installFastUnigram`'s `encode`) also stops where the model's window does:
 * it tokenises words only until one id more than the window holds (`encodeInto`), and for a
 * normaliser that keeps heads (`normalizerKeepsHeads`, USE Lite's) it normalises only a head of a
 * long text, cut before a space (`encodeFromHead`), trying the whole text when the head cannot
 * decide. `installFastUnigram` only replaces the method on
 * a model that has exactly the fields this reads, and checks itself against the original on
 * probe texts before it does.
 */

/** The fields of transformers.js's Unigram model that this reads. */
interface UnigramModelLike {
  config: { type?: unknown };
  vocab: string[];
  scores: number[];
  tokens_to_ids: Map<string, number>;
  unk_token_id: number;
  unk_score: number;
  tokenize: (normalized: string) => string[];
}

function isUnigramModel(m: unknown): m is UnigramModelLike {
  // transformers.js models are callable objects (functions with the class's prototype).
  if ((typeof m !== 'object' && typeof m !== 'function') || m === null) return false;
  const x = m as Record<string, unknown>;
  const config = x['config'] as Record<string, unknown> | undefined;
  return (
    config?.['type'] === 'Unigram' &&
    Array.isArray(x['vocab']) &&
    Array.isArray(x['scores']) &&
    x['tokens_to_ids'] instanceof Map &&
    typeof x['unk_token_id'] === 'number' &&
    typeof x['unk_score'] === 'number' &&
    typeof x['tokenize'] === 'function' &&
    typeof x['populate_nodes'] === 'function'
  );
}

/** Code points of `s` as `Array.from` splits it (a lone surrogate is one position). */
function codePointAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

/** Words remembered by `encodeIds` at most (then the memo starts over; results never depend on it). */
const WORD_MEMO_LIMIT = 1 << 18;
const WORD_SLOTS_MASK = (1 << 19) - 1;

/** A copy of `a` in a new array of at least `need` elements (doubling). */
function growTo<T extends Int32Array | Float64Array>(a: T, need: number, make: (n: number) => T): T {
  let n = a.length;
  while (n < need) n *= 2;
  const b = make(n);
  b.set(a);
  return b;
}

export class FastUnigram {
  /** Children of the root, by code point below 0x10000 (-1: none). */
  private readonly rootBmp = new Int32Array(0x10000).fill(-1);
  /** Every other edge (node, code point) → child, open addressing. */
  private hashNode: Int32Array;
  private hashCp: Int32Array;
  private hashChild: Int32Array;
  private hashMask: number;
  /** Per trie node: the piece's token id when a vocabulary string ends there, else -1. */
  private leafId: Int32Array;
  private leafScore: Float64Array;
  private readonly unkScore: number;

  // Work arrays, grown as needed and reused.
  private cps = new Int32Array(1024);
  private cuAt = new Int32Array(1025);
  private endHead = new Int32Array(1025);
  private endTail = new Int32Array(1025);
  private nBt = new Float64Array(4096);
  private nPrev = new Int32Array(4096);
  private nPos = new Int32Array(4096);
  private nLen = new Int32Array(4096);
  private nNext = new Int32Array(4096);
  /** Trie node of a lattice node's piece; -1 for an unknown-piece node. */
  private nLeaf = new Int32Array(4096);
  private nMargin = new Float64Array(4096);
  /** Smallest decision margin along the last best path (its nodes and the end choice). */
  private pathMargin = Number.POSITIVE_INFINITY;
  private pathEnd = 0;
  /** Margin of the last lattice's end choice alone. */
  private pathEndMargin = Number.POSITIVE_INFINITY;
  /** Score of each lattice node's piece (unknown pieces: unk_score). */
  private nScore = new Float64Array(4096);
  private path = new Int32Array(1024);
  private readonly unkId: number;
  private readonly tokensToIds: ReadonlyMap<string, number>;
  /** Whether texts split into independent words at `▁` (see `encodeIds`). */
  readonly splitsAtWordMark: boolean;
  private readonly maxAbsScore: number;
  // The word memo: open addressing over `slots` (entry index or -1), entries in parallel arrays.
  private readonly slots = new Int32Array(WORD_SLOTS_MASK + 1).fill(-1);
  private readonly eWord: string[] = [];
  /** Entry e's ids are pool[eStart[e], eStart[e] + eCount[e]) ... */
  private readonly eStart = new Int32Array(WORD_MEMO_LIMIT);
  private readonly eCount = new Int32Array(WORD_MEMO_LIMIT);
  /** ... and the scores of its path's pieces (the fused pieces' scores may outnumber its ids). */
  private readonly eScoreStart = new Int32Array(WORD_MEMO_LIMIT);
  private readonly eScoreCount = new Int32Array(WORD_MEMO_LIMIT);
  private idPool = new Int32Array(1 << 16);
  private idUsed = 0;
  private scorePool = new Float64Array(1 << 16);
  private scoreUsed = 0;
  private hash = 0;
  private readonly eHash = new Int32Array(WORD_MEMO_LIMIT);
  private readonly eMargin = new Float64Array(WORD_MEMO_LIMIT);

  constructor(vocab: readonly string[], scores: readonly number[], tokensToIds: ReadonlyMap<string, number>, unkId: number, unkScore: number) {
    this.unkId = unkId;
    this.tokensToIds = tokensToIds;
    this.unkScore = unkScore;
    let edges = 0;
    for (const p of vocab) edges += p.length;
    let cap = 1024;
    while (cap < edges * 2) cap *= 2;
    this.hashNode = new Int32Array(cap).fill(-1);
    this.hashCp = new Int32Array(cap);
    this.hashChild = new Int32Array(cap);
    this.hashMask = cap - 1;
    const leafId: number[] = [-1];
    let nodes = 1;
    for (const piece of vocab) {
      let node = 0;
      for (let i = 0; i < piece.length; ) {
        const cp = codePointAt(piece, i);
        i += cp >= 0x10000 ? 2 : 1;
        let child = this.child(node, cp);
        if (child < 0) {
          child = nodes++;
          leafId.push(-1);
          this.setChild(node, cp, child);
        }
        node = child;
      }
      // CharTrie.push marks the end of every string, the empty one included (at the root, which
      // common_prefix_search never yields).
      if (node !== 0) leafId[node] = tokensToIds.get(piece) ?? -1;
    }
    this.leafId = Int32Array.from(leafId);
    this.leafScore = new Float64Array(nodes);
    for (let n = 0; n < nodes; n++) {
      const id = this.leafId[n]!;
      // transformers.js: token_id = tokens_to_ids.get(token); score = scores[token_id]. Every
      // vocabulary string is in tokens_to_ids, so id >= 0 at a leaf.
      this.leafScore[n] = id >= 0 ? scores[id]! : 0;
    }
    let maxAbs = Math.abs(unkScore);
    let finite = Number.isFinite(unkScore);
    for (let n = 0; n < nodes; n++) {
      if (this.leafId[n]! < 0) continue;
      const v = this.leafScore[n]!;
      finite &&= Number.isFinite(v);
      maxAbs = Math.max(maxAbs, Math.abs(v));
    }
    this.maxAbsScore = maxAbs;
    const mark = tokensToIds.get('\u2581');
    this.splitsAtWordMark = finite && mark !== undefined && mark !== unkId && vocab.every((p) => p.indexOf('\u2581', 1) < 0);
  }

  private slot(node: number, cp: number): number {
    return (Math.imul(node, 0x9e3779b1) ^ Math.imul(cp, 0x85ebca6b)) & this.hashMask;
  }

  private child(node: number, cp: number): number {
    if (node === 0 && cp < 0x10000) return this.rootBmp[cp]!;
    let s = this.slot(node, cp);
    for (;;) {
      const n = this.hashNode[s]!;
      if (n < 0) return -1;
      if (n === node && this.hashCp[s] === cp) return this.hashChild[s]!;
      s = (s + 1) & this.hashMask;
    }
  }

  private setChild(node: number, cp: number, child: number): void {
    if (node === 0 && cp < 0x10000) {
      this.rootBmp[cp] = child;
      return;
    }
    let s = this.slot(node, cp);
    while (this.hashNode[s]! >= 0) s = (s + 1) & this.hashMask;
    this.hashNode[s] = node;
    this.hashCp[s] = cp;
    this.hashChild[s] = child;
  }

  private growPositions(len: number): void {
    if (this.cps.length >= len) return;
    let n = this.cps.length;
    while (n < len) n *= 2;
    this.cps = new Int32Array(n);
    this.cuAt = new Int32Array(n + 1);
    this.endHead = new Int32Array(n + 1);
    this.endTail = new Int32Array(n + 1);
  }

  private growNodes(need: number): void {
    if (this.nBt.length >= need) return;
    let n = this.nBt.length;
    while (n < need) n *= 2;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.nBt = grow(this.nBt, (k) => new Float64Array(k));
    this.nPrev = grow(this.nPrev, (k) => new Int32Array(k));
    this.nPos = grow(this.nPos, (k) => new Int32Array(k));
    this.nLen = grow(this.nLen, (k) => new Int32Array(k));
    this.nNext = grow(this.nNext, (k) => new Int32Array(k));
    this.nLeaf = grow(this.nLeaf, (k) => new Int32Array(k));
    this.nMargin = grow(this.nMargin, (k) => new Float64Array(k));
    this.nScore = grow(this.nScore, (k) => new Float64Array(k));
  }

  /**
   * Runs the lattice over `text`, the begin node holding `start` as its running score (0 for a
   * whole text); returns the number of nodes on the best path, whose node indices are left in
   * `this.path[0..n)` (first piece first). `pathMargin` gets the smallest decision margin along
   * the path and `pathEnd` the running score at its end.
   */
  private bestPath(text: string, start = 0): number {
    this.growPositions(text.length);
    const cps = this.cps;
    const cuAt = this.cuAt;
    let len = 0;
    for (let i = 0; i < text.length; ) {
      const cp = codePointAt(text, i);
      cuAt[len] = i;
      cps[len++] = cp;
      i += cp >= 0x10000 ? 2 : 1;
    }
    cuAt[len] = text.length;
    const endHead = this.endHead;
    endHead.fill(-1, 0, len + 1);
    // Node 0: the begin-of-sentence node (score 0, no predecessor), ending at position 0.
    this.growNodes(16);
    let count = 1;
    this.nBt[0] = start;
    this.nPrev[0] = -1;
    this.nPos[0] = 0;
    this.nLen[0] = 0;
    this.nLeaf[0] = -1;
    this.nMargin[0] = Number.POSITIVE_INFINITY;
    this.nNext[0] = -1;
    endHead[0] = 0;
    this.endTail[0] = 0;
    const leafId = this.leafId;
    const leafScore = this.leafScore;
    const rootBmp = this.rootBmp;
    for (let pos = 0; pos < len; pos++) {
      const c0 = cps[pos]!;
      let node = c0 < 0x10000 ? rootBmp[c0]! : this.child(0, c0);
      let hasSingle = false;
      for (let i = pos + 1; node >= 0; ) {
        if (leafId[node]! >= 0) {
          const n = i - pos;
          if (n === 1) hasSingle = true;
          count = this.addNode(count, pos, n, leafScore[node]!, node);
        }
        if (i >= len) break;
        node = this.child(node, cps[i++]!);
      }
      if (!hasSingle) count = this.addNode(count, pos, 1, this.unkScore, -1);
    }
    // The end-of-sentence node (score 0) at position len.
    let best = -1;
    let bestScore = 0;
    let second = Number.NEGATIVE_INFINITY;
    for (let l = endHead[len]!; l >= 0; l = this.nNext[l]!) {
      const score = this.nBt[l]! + 0;
      if (best === -1 || score > bestScore) {
        if (best !== -1) second = bestScore;
        best = l;
        bestScore = score;
      } else if (score > second) {
        second = score;
      }
    }
    let margin = bestScore - second;
    this.pathEndMargin = margin;
    let n = 0;
    for (let k = best; k >= 0 && this.nPrev[k]! >= 0; k = this.nPrev[k]!) {
      n++;
      if (this.nMargin[k]! < margin) margin = this.nMargin[k]!;
    }
    this.pathMargin = margin;
    this.pathEnd = bestScore;
    if (this.path.length < n) this.path = new Int32Array(Math.max(n, 2 * this.path.length));
    let at = n;
    for (let k = best; k >= 0 && this.nPrev[k]! >= 0; k = this.nPrev[k]!) this.path[--at] = k;
    return n;
  }

  private piece(text: string, node: number): string {
    const p = this.nPos[node]!;
    return text.slice(this.cuAt[p]!, this.cuAt[p + this.nLen[node]!]!);
  }

  /** The pieces of the best path through the lattice of `text`, as transformers.js returns them. */
  tokenize(text: string): string[] {
    const n = this.bestPath(text);
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.piece(text, this.path[i]!);
    return out;
  }

  /**
   * The ids transformers.js gives the normalised `text` (one pre-tokenizer section, no added
   * tokens): the pieces of the best path, runs of unknown pieces fused as its `fuse_unk` does
   * (on strings, so a fused run that spells a vocabulary piece takes that piece's id), each mapped
   * by `tokens_to_ids` with the unknown id as the fallback.
   */
  exactIds(text: string): number[] {
    const n = this.bestPath(text);
    return this.pathIds(text, n);
  }

  private pathIds(text: string, n: number): number[] {
    const unk = this.unkId;
    const get = this.tokensToIds;
    const out: number[] = [];
    const path = this.path;
    const nLeaf = this.nLeaf;
    const leafId = this.leafId;
    for (let i = 0; i < n; ) {
      const leaf = nLeaf[path[i]!]!;
      const id = leaf >= 0 ? leafId[leaf]! : unk;
      if (id !== unk) {
        out.push(id);
        i++;
        continue;
      }
      let s = this.piece(text, path[i]!);
      let got = leaf >= 0 ? id : get.get(s);
      while (++i < n) {
        const leafJ = nLeaf[path[i]!]!;
        if ((leafJ >= 0 ? leafId[leafJ]! : unk) !== unk) break;
        if (got !== unk) {
          s += this.piece(text, path[i]!);
          got = get.get(s);
        }
      }
      out.push(got ?? unk);
    }
    return out;
  }

  /**
   * `exactIds(text)`, faster on long texts: when no piece holds the word mark `▁` (U+2581) after
   * its first character and `▁` is a piece of its own, no lattice node crosses a `▁`, so every path
   * passes through each `▁` position and the text splits into independent words (`▁` + what
   * follows up to the next `▁`); each word's pieces are computed once and remembered. A word's
   * remembered path is the whole text's path there unless floating-point rounding could turn a
   * decision: the whole-text lattice adds the word's scores to the running total of everything
   * before it, so its sums carry a larger rounding error than the word's own. Each word keeps the
   * smallest margin between the chosen and the next-best candidate along its path (ties: 0); when
   * that margin is not above the worst-case rounding error of both computations for a text this
   * long, the whole text goes through the exact lattice instead.
   */
  encodeIds(text: string): number[] {
    const out: number[] = [];
    this.encodeInto(text, out, Number.POSITIVE_INFINITY);
    return out;
  }

  /**
   * Appends to `out` the first `limit` ids of `text` (all when `limit` is Infinity), the ids
   * `exactIds(text)` gives, and returns min(its number of ids, limit + 1): so whether the text has
   * more than `limit` ids is exact, while the words after that point are never tokenised (the ids
   * of a word never depend on the words after it, see `encodeIds`).
   */
  encodeInto(text: string, out: number[], limit: number): number {
    if (!this.splitsAtWordMark) return this.takeExact(text, out, limit);
    return this.encodeWords(text, out, limit, text.length, text.length, false);
  }

  /**
   * `encodeInto` of a text known only by its head: `head` is the start of the normalised text,
   * which goes on with a word mark `▁` after it, and the whole normalised text has between
   * `lengthLo` and `lengthHi` UTF-16 units. Gives exactly what `encodeInto(whole text, out, limit)`
   * gives (the same steps, in the same order) when the head has more than `limit` ids, else -1
   * (nothing to conclude: what the whole text's length or the words after the head would decide;
   * `out` may then hold some ids, for the caller to drop).
   */
  encodeHead(head: string, out: number[], limit: number, lengthLo: number, lengthHi: number): number {
    if (!this.splitsAtWordMark || !(limit < Number.POSITIVE_INFINITY)) return -1;
    return this.encodeWords(head, out, limit, lengthLo, lengthHi, true);
  }

  /** Rounding bound of a path sum over a whole text of `length` UTF-16 units (see `encodeIds`). */
  private roundingBound(length: number): number {
    // Worst-case rounding error of a path sum of the whole text (at most `length` pieces, each
    // |score| <= maxAbsScore, every partial sum rounded once), for both computations.
    return 4 * (length + 1) * (length + 1) * this.maxAbsScore * 2 ** -52;
  }

  /** The word loop of `encodeInto` / `encodeHead` (`head`: `text` is only the start; -1 when undecided). */
  private encodeWords(text: string, out: number[], limit: number, lengthLo: number, lengthHi: number, head: boolean): number {
    // Whole text: lengthLo = lengthHi = text.length, the bound of its own length. A head knows the
    // whole text's length only within [lengthLo, lengthHi]: a margin between the two bounds could
    // go either way, so the head gives up there.
    const boundLo = this.roundingBound(lengthLo);
    const boundHi = this.roundingBound(lengthHi);
    let count = 0;
    // The whole-text lattice's running score at the current word boundary (its path's sum so far,
    // rounded exactly as it rounds it).
    let run = 0;
    let start = 0;
    const len = text.length;
    const eMargin = this.eMargin;
    while (start < len) {
      let next = this.wordEnd(text, start);
      const e = this.word(text, start, next, this.hash);
      const margin = eMargin[e]!;
      if (margin > boundHi) {
        const ids = this.idPool;
        const i0 = this.eStart[e]!;
        const ni = this.eCount[e]!;
        if (count < limit) for (let k = 0; k < ni && count + k < limit; k++) out.push(ids[i0 + k]!);
        count += ni;
        const sc = this.scorePool;
        const s0 = this.eScoreStart[e]!;
        const s1 = s0 + this.eScoreCount[e]!;
        for (let k = s0; k < s1; k++) run += sc[k]!;
        start = next;
        if (count > limit) return limit + 1;
        continue;
      }
      if (margin > boundLo) return -1;
      // A decision of this word could go another way inside the whole text: run the lattice
      // over it from the running score, as the whole text does, extending the stretch word by
      // word until its end choice is clear of rounding (adding the next piece's score to both
      // sides, rounded, keeps a gap of more than two units in the last place strictly ordered).
      for (;;) {
        const piece = text.slice(start, next);
        const n = this.bestPath(piece, run);
        const clear = this.pathEndMargin > 4 * (Math.abs(this.pathEnd) + this.maxAbsScore) * 2 ** -52;
        if (clear || next >= len) {
          // A head's stretch that is not clear would go on into words it does not have.
          if (!clear && head) return -1;
          const ids = this.pathIds(piece, n);
          if (count < limit) for (let k = 0; k < ids.length && count + k < limit; k++) out.push(ids[k]!);
          count += ids.length;
          run = this.pathEnd;
          start = next;
          break;
        }
        next = this.wordEnd(text, next);
      }
      if (count > limit) return limit + 1;
    }
    return head ? -1 : count;
  }

  /** End of the word starting at `start` (the next word mark after it, or the text's end); sets `hash`. */
  private wordEnd(text: string, start: number): number {
    // FNV-1a over the word's UTF-16 units.
    let h = Math.imul(0x811c9dc5 ^ text.charCodeAt(start), 0x01000193);
    let next = start + 1;
    for (; next < text.length; next++) {
      const c = text.charCodeAt(next);
      if (c === 0x2581) break;
      h = Math.imul(h ^ c, 0x01000193);
    }
    this.hash = h;
    return next;
  }

  private takeExact(text: string, out: number[], limit: number): number {
    const ids = this.exactIds(text);
    for (let k = 0; k < ids.length && k < limit; k++) out.push(ids[k]!);
    return Math.min(ids.length, limit + 1);
  }

  /** The memo entry of text[start, end) (hash h), computed on a miss. */
  private word(text: string, start: number, end: number, h: number): number {
    const n = end - start;
    let slot = h & WORD_SLOTS_MASK;
    for (;;) {
      const e = this.slots[slot]!;
      if (e < 0) break;
      if (this.eHash[e] === h && this.eWord[e]!.length === n && text.startsWith(this.eWord[e]!, start)) return e;
      slot = (slot + 1) & WORD_SLOTS_MASK;
    }
    if (this.eWord.length >= WORD_MEMO_LIMIT) {
      this.slots.fill(-1);
      this.eWord.length = 0;
      this.idUsed = 0;
      this.scoreUsed = 0;
      slot = h & WORD_SLOTS_MASK;
    }
    const word = text.slice(start, end);
    const count = this.bestPath(word);
    const e = this.eWord.length;
    this.eWord.push(word);
    const ids = this.pathIds(word, count);
    if (this.idUsed + ids.length > this.idPool.length) this.idPool = growTo(this.idPool, this.idUsed + ids.length, (n) => new Int32Array(n));
    this.eStart[e] = this.idUsed;
    this.eCount[e] = ids.length;
    for (let k = 0; k < ids.length; k++) this.idPool[this.idUsed++] = ids[k]!;
    if (this.scoreUsed + count > this.scorePool.length) this.scorePool = growTo(this.scorePool, this.scoreUsed + count, (n) => new Float64Array(n));
    this.eScoreStart[e] = this.scoreUsed;
    this.eScoreCount[e] = count;
    for (let k = 0; k < count; k++) this.scorePool[this.scoreUsed++] = this.nScore[this.path[k]!]!;
    this.eHash[e] = h;
    this.eMargin[e] = this.pathMargin;
    this.slots[slot] = e;
    return e;
  }

  /** Adds the node (pos, n code points, score) after choosing its predecessor; returns the new count. */
  private addNode(count: number, pos: number, n: number, score: number, leaf: number): number {
    this.growNodes(count + 1);
    const nBt = this.nBt;
    const nNext = this.nNext;
    let best = -1;
    let bestScore = 0;
    let second = Number.NEGATIVE_INFINITY;
    for (let l = this.endHead[pos]!; l >= 0; l = nNext[l]!) {
      const s = nBt[l]! + score;
      if (best === -1 || s > bestScore) {
        if (best !== -1) second = bestScore;
        best = l;
        bestScore = s;
      } else if (s > second) {
        second = s;
      }
    }
    const id = count;
    nBt[id] = bestScore;
    // How far the choice was from going another way (0 on a tie; +Infinity with one candidate).
    this.nMargin[id] = bestScore - second;
    this.nPrev[id] = best;
    this.nPos[id] = pos;
    this.nLen[id] = n;
    this.nLeaf[id] = leaf;
    this.nScore[id] = score;
    nNext[id] = -1;
    const end = pos + n;
    if (this.endHead[end] === -1) this.endHead[end] = id;
    else nNext[this.endTail[end]!] = id;
    this.endTail[end] = id;
    return count + 1;
  }
}

/** Texts the installed method is compared on against the original before it replaces it. */
const PROBES = [
  '',
  'a',
  '▁Hello▁world,▁this▁is▁a▁test▁of▁the▁tokenizer.',
  '▁déjà▁vu▁—▁naïve▁café▁ﬁ▁①▁ｆｕｌｌ',
  '▁emoji▁😀👍🏽▁and▁a▁lone▁\ud800▁surrogate▁\udc00',
  '▁code:▁`const▁x▁=▁a[i]▁??▁b;`▁//▁:30▁:-)▁https://example.com/a?b=c',
  '▁漢字▁かな▁한국어▁العربية▁עברית',
  '▁\u0000\u0001▁\uFFFD\uFFFD▁ctrl',
  // Raw text with spaces, long enough for a 3-id head (see encodeFromHead), non-ASCII in its tail.
  `${'Tokenise the head of a long text only. '.repeat(3)}Then déjà vu — ﬁ ① ｆｕｌｌ 😀 e\u0301 \u0301x.`,
];

/** The fields of transformers.js's Tokenizer (PreTrainedTokenizer._tokenizer) that this reads. */
interface TokenizerLike {
  model: unknown;
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: unknown;
  added_tokens_map: Map<string, unknown>;
  remove_space?: unknown;
  do_lowercase_and_remove_accent?: unknown;
  encode: (text: string, o: { add_special_tokens: boolean }) => { ids: number[] };
}

function isTokenizerLike(t: unknown): t is TokenizerLike {
  if (typeof t !== 'object' || t === null) return false;
  const x = t as Record<string, unknown>;
  return 'model' in x && 'normalizer' in x && 'pre_tokenizer' in x && x['added_tokens_map'] instanceof Map && typeof x['encode'] === 'function';
}

/**
 * Encodes one text without special tokens (what `tokenizer.encode(t, { add_special_tokens: false })`
 * gives): appends its first `limit` ids to `out` and returns min(how many ids it has, limit + 1),
 * tokenising no further than that needs.
 */
export type ContentEncoder = (text: string, out: number[], limit: number) => number;

/**
 * Whether a normaliser (its tokenizer.json config; null: none) maps a text's head that ends
 * before a space (U+0020) to the head of the normalised whole text, followed there by the word
 * mark `▁`, and maps a text's ASCII tail to as many UTF-16 units. Known to hold for a sequence of
 * these steps (what USE Lite's tokenizer has), and assumed of no other:
 * - NFC / NFKC: a space is a starter that no composition takes as its second character and no
 *   reordering crosses, so normalising stops and starts afresh there; ASCII (and `▁`) is left as is;
 * - Replace of one ASCII character by `▁` or a space (one unit by one unit, each on its own); the
 *   boundary's space becomes `▁` when the replaced character is that space;
 * - Replace of `\A(?=[\s\S])` (the start of a non-empty text, which lies in the head).
 * And the boundary must have become `▁`: there the whole text splits into words (see `encodeIds`).
 */
export function normalizerKeepsHeads(config: unknown): boolean {
  let boundary = ' ';
  const step = (c: unknown): boolean => {
    if (typeof c !== 'object' || c === null) return false;
    const x = c as Record<string, unknown>;
    if (x['type'] === 'Sequence') return Array.isArray(x['normalizers']) && x['normalizers'].every(step);
    if (x['type'] === 'NFC' || x['type'] === 'NFKC') return true;
    if (x['type'] !== 'Replace' || typeof x['pattern'] !== 'object' || x['pattern'] === null) return false;
    const pattern = x['pattern'] as Record<string, unknown>;
    const content = x['content'];
    if (typeof pattern['String'] === 'string' && Object.keys(pattern).length === 1) {
      const from = pattern['String'];
      if (from.length !== 1 || from.charCodeAt(0) > 0x7f || (content !== '\u2581' && content !== ' ')) return false;
      if (from === boundary) boundary = content;
      return true;
    }
    return pattern['Regex'] === '\\A(?=[\\s\\S])' && Object.keys(pattern).length === 1 && typeof content === 'string';
  };
  return config !== null && step(config) && boundary === '\u2581';
}

/** Head of a text tried first: UTF-16 units per id wanted (then twice as many, and so on; skill documents need 2.8-4.0, p10-p90). */
const HEAD_UNITS_PER_ID = 5;
/** NFKC expands UTF-16 text at most 18× (UAX #15, U+FDFA); twice that, to be safe. */
const MAX_NORMALIZED_UNITS_PER_UNIT = 36;
const NON_ASCII = /[^\u0000-\u007f]/g;

/**
 * `fast.encodeInto(normalize(text), out, limit)` from heads of `text` cut before a space, for a
 * normaliser that `normalizerKeepsHeads`; -1 (with `out` as it was) when no head decides it.
 */
function encodeFromHead(fast: FastUnigram, normalize: (s: string) => string, text: string, out: number[], limit: number): number {
  const n0 = out.length;
  for (let want = HEAD_UNITS_PER_ID * (limit + 1) + 64; want < text.length; ) {
    const cut = text.indexOf(' ', want);
    if (cut < 0) break;
    const head = normalize(text.slice(0, cut));
    NON_ASCII.lastIndex = cut;
    const ascii = !NON_ASCII.test(text);
    const rest = text.length - cut;
    // The whole normalised text: the head, then the tail's units (ASCII: one each; else 1 to 36 each).
    const got = fast.encodeHead(head, out, limit, head.length + (ascii ? rest : 1), head.length + (ascii ? rest : MAX_NORMALIZED_UNITS_PER_UNIT * rest));
    if (got >= 0) return got;
    out.length = n0;
    want = 2 * cut;
  }
  return -1;
}

export interface FastUnigramInstall {
  /** The model's `tokenize` now runs on FastUnigram (every caller of the tokenizer gains). */
  lattice: boolean;
  /**
   * A whole encoder of content ids (normaliser, lattice, unknown fusion, ids) for a tokenizer
   * with no pre-tokenizer and no added tokens; null when the tokenizer has either.
   */
  encode: ContentEncoder | null;
}

/**
 * For a transformers.js tokenizer (`PreTrainedTokenizer._tokenizer`) whose model is Unigram:
 * replaces the model's `tokenize` by FastUnigram's and, when the pipeline around it is just a
 * normaliser (no pre-tokenizer, no added tokens), returns a direct encoder of content ids. Both
 * are first compared with the original on the probe texts (and `extraProbes`); a disagreement
 * throws. Anything else is left alone ({ lattice: false, encode: null }).
 */
export function installFastUnigram(tokenizer: unknown, extraProbes: readonly string[] = []): FastUnigramInstall {
  const none = { lattice: false, encode: null };
  if (!isTokenizerLike(tokenizer)) return none;
  const model = tokenizer.model;
  if (!isUnigramModel(model)) return none;
  const fast = new FastUnigram(model.vocab, model.scores, model.tokens_to_ids, model.unk_token_id, model.unk_score);
  const direct =
    tokenizer.pre_tokenizer === null &&
    tokenizer.added_tokens_map.size === 0 &&
    !tokenizer.remove_space &&
    !tokenizer.do_lowercase_and_remove_accent &&
    (tokenizer.normalizer === null || typeof tokenizer.normalizer === 'function');
  const normalize = tokenizer.normalizer;
  const heads = normalize !== null && normalizerKeepsHeads((normalize as unknown as { config?: unknown }).config ?? null);
  const encode: ContentEncoder | null = direct
    ? (text, out, limit) => {
        if (text.length === 0) return 0;
        // A long text whose window is full well before its end: normalise and tokenise its head only.
        if (heads && limit < Number.POSITIVE_INFINITY && text.length > HEAD_UNITS_PER_ID * (limit + 1) + 64) {
          const got = encodeFromHead(fast, normalize, text, out, limit);
          if (got >= 0) return got;
        }
        const s = normalize === null ? text : normalize(text);
        return s.length === 0 ? 0 : fast.encodeInto(s, out, limit);
      }
    : null;
  const original = model.tokenize.bind(model);
  const same = (a: readonly (string | number)[], b: readonly (string | number)[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  for (const probe of [...PROBES, ...extraProbes]) {
    const normalized = normalize === null ? probe : normalize(probe);
    const ids = tokenizer.encode(probe, { add_special_tokens: false }).ids;
    const all: number[] = [];
    const head: number[] = [];
    const agree = !encode || (encode(probe, all, Number.POSITIVE_INFINITY) === ids.length && same(ids, all) && encode(probe, head, 3) === Math.min(ids.length, 4) && same(ids.slice(0, 3), head));
    if (!same(original(normalized), fast.tokenize(normalized)) || !agree) {
      throw new Error(`tokenizer: the fast Unigram lattice disagrees with transformers.js on a probe text (${JSON.stringify(probe.slice(0, 40))})`);
    }
  }
  model.tokenize = (normalized: string) => fast.tokenize(normalized);
  return { lattice: true, encode };
}
