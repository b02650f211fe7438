/**
 * Every cache that takes a function, at the library level: for a random collection of inputs and
 * a random cache state (earlier calls on random subsets, some interrupted part way, then chunk
 * files deleted, cut short, bit-flipped or extended at random), the cached call returns bit for bit
 * what an uncached call returns, the function is called on exactly the inputs no intact entry
 * holds (a damaged entry is recomputed, never trusted), and the next call is answered in full.
 *
 * - Embedding cache (dense/cache.ts through encode-cached.ts), plain definition: the stand-in
 *   encoder run on every text with the cache off. The stand-in plans its batches with the real
 *   planner (util/batch-plan.ts) and makes each vector depend on its batch's tensor shape (width,
 *   row count), as onnxruntime's kernels may: so the property also proves that what a cache held
 *   never changes the batch a text is computed in. Capacities crossed: the chunk size (1 … 16 and
 *   the default 256; texts counts around 1, 2, 3 chunks ± 2), the batch size (counts around 1, 2,
 *   3 batches ± 2, token budgets around width × batch size ± 2), 2^k ± 2 counts, text lengths
 *   around the token limit ± 1 and the 8-token bucket steps, duplicate texts.
 * - Reranker score cache (rerank/score-cache.ts, unique-pairs.ts, windowed-reranker.ts), plain
 *   definition: the stand-in scorer on every pair without a cache (scores of every sign, -0 and
 *   tiny and huge doubles among them). Crossed: the window (1 … 8 and the default 1,024; unique
 *   pairs around 1, 2, 3 windows ± 2), the chunk compaction threshold (chunk counts around it ± 2),
 *   the stand-in's batch size; beyond the store's damage, a chunk rewritten with a line dropped and
 *   a well-formed framing (only the decoder's "lines give the key" check can refuse it).
 *   `lookupPairs` against its plain definition as well.
 * - Token count caches (operating-points/token-cache.ts, skill-tokens.ts in process), plain definition:
 *   `countTokens` on each text. Crossed: the 256-unit limit of the by-text memo (lengths 254 … 258,
 *   astral characters around it), repeated texts, skill ids outside the corpus. Every damage is
 *   drawn (the store frames these entries as every other: a changed digit is refused too).
 * Every damaged entry is reported in the store's one line, naming its kind and file.
 */
import { fc, test } from '@fast-check/vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { decodeChunkFile, textKey } from '../src/retrieval/dense/embedding/embedding-cache.js';
import { encodeTextsWithCache, type BatchEncoder } from '../src/retrieval/dense/embedding/encode-cached.js';
import type { EmbedRunStats, OnBatch } from '../src/retrieval/dense/embedding/embedder.js';
import type { Role } from '../src/retrieval/dense/embedding/embedder-inputs.js';
import type { TextSource } from '../src/retrieval/dense/embedding/text-source.js';
import { decodeScoreChunk, pairKey, RERANK_KIND } from '../src/rerank/score-cache.js';
import { unframeEntry } from '../src/cache/store.js';
import { lookupPairs } from '../src/rerank/unique-pairs.js';
import { WindowedReranker } from '../src/rerank/windowed-reranker.js';
import type { RerankPair, Reranker } from '../src/rerank/types.js';
import { CorpusTokenCounts, textHash, TokenCountCache } from '../src/operating-points/token-cache.js';
import { SkillTokenCounts } from '../src/operating-points/skill-tokens.js';
import { countTokens } from '../src/operating-points/token-count.js';
import { planBatches } from '../src/util/batch-plan.js';
import { damageSome, entryBody, f32Bits, f64Bits, filesUnder, fnv, forgeEntry, openScores, pick, rng, scoreChunkDir, TEST_SCORER } from './helpers/cache-damage.js';
import { TOKENS_KIND } from '../src/operating-points/token-cache.js';

/** The key of an entry file (its name without the extension). */
const keyOf = (file: string) => basename(file).replace(/\.[^.]+$/, '');

/** Whether every log line is the store's one report of a damaged `kind` entry, and which files they name. */
function reported(logs: readonly string[], kind: string): string[] {
  const re = new RegExp(`^cache: ${kind} entry (.+) is damaged \\(.+\\); computing it again$`);
  return logs.map((l) => {
    const m = re.exec(l);
    expect(m, l).not.toBeNull();
    return m![1]!;
  });
}

const root = mkdtempSync(join(tmpdir(), 'skillret-caches-prop-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `c${dirs++}`);

/** Text lengths around the stand-in's token limit and the 8-token bucket steps. */
function lengthEdges(maxLen: number): number[] {
  return [0, 1, 2, 7, 8, 9, 15, 16, 17, maxLen - 1, maxLen, maxLen + 1, maxLen + 2, 2 * maxLen].filter((n) => n >= 0);
}

/** `count` distinct texts of lengths (in code points) around the edges, some with accents and astral characters. */
function distinctTexts(count: number, maxLen: number, rnd: () => number, tag: string): string[] {
  const edges = lengthEdges(maxLen);
  const alphabet = ['a', 'b', 'c', 'é', 'ß', '𝄞', ' ', '😀'];
  return Array.from({ length: count }, (_, d) => {
    const head = `${tag}${d}:`;
    const len = Math.max(0, edges[pick(rnd, edges.length)]! - head.length);
    let s = head;
    for (let i = 0; i < len; i++) s += alphabet[pick(rnd, alphabet.length)]!;
    return s;
  });
}

/** `n` inputs drawn from `pool`: each pool entry at least once (when n allows), the rest repeats, shuffled. */
function collection<T>(pool: readonly T[], n: number, rnd: () => number): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(i < pool.length ? pool[i]! : pool[pick(rnd, pool.length)]!);
  for (let i = out.length - 1; i > 0; i--) {
    const j = pick(rnd, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A random subset of `xs` (each kept with probability `p`). */
const subset = <T>(xs: readonly T[], p: number, rnd: () => number): T[] => xs.filter(() => rnd() < p);

// ---------------------------------------------------------------------------------------------
// Embedding cache
// ---------------------------------------------------------------------------------------------

/**
 * A stand-in embedder: a text's tokens are its code points (cut to `maxLen`), batches planned by
 * the real planner, and each vector a function of the text, the role and its batch's tensor shape.
 */
class StandInEncoder implements BatchEncoder {
  lastRun: EmbedRunStats | null = null;
  /** The texts of each `embed` call. */
  readonly calls: string[][] = [];

  constructor(
    private readonly batchSize: number,
    private readonly maxBatchTokens: number,
    private readonly maxLen: number,
    private readonly dim: number,
  ) {}

  static vector(text: string, role: Role, width: number, rows: number, dim: number): Float32Array {
    const v = new Float32Array(dim);
    const h = fnv(text, role === 'query' ? 7 : 11);
    for (let j = 0; j < dim; j++) v[j] = ((Math.imul(h, j + 1) >>> 0) / 2 ** 32 - 0.5) * 3 + width * 2 ** -7 + rows * 2 ** -11;
    return v;
  }

  async embed(texts: TextSource, role: Role, onBatch?: OnBatch): Promise<Float32Array[]> {
    const all = [...texts.texts()];
    this.calls.push(all);
    const tokens = all.map((t) => {
      const cps = Array.from(t, (c) => c.codePointAt(0)!);
      return { ids: cps.slice(0, this.maxLen), truncated: cps.length > this.maxLen };
    });
    const plan = planBatches(
      tokens.map((t) => t.ids.length),
      this.batchSize,
      this.maxBatchTokens,
      this.maxLen,
    );
    const out = new Array<Float32Array>(all.length);
    for (const [b, items] of plan.batches.entries()) {
      const vectors = items.map((i) => StandInEncoder.vector(all[i]!, role, plan.widths[b]!, plan.rows[b]!, this.dim));
      items.forEach((i, r) => (out[i] = vectors[r]!));
      if (onBatch) await onBatch({ indices: items, vectors, tokenized: items.map((i) => tokens[i]!) });
    }
    this.lastRun = {
      texts: all.length,
      tokens: 0,
      paddedTokens: plan.paddedTokens,
      truncatedTexts: tokens.filter((t) => t.truncated).length,
      batches: plan.batches.length,
      tokenizeSeconds: 0,
      encodeSeconds: 0,
      textsPerSec: 0,
      tokensPerSec: 0,
    };
    return out;
  }
}

const CONFIG_KEY = 'c'.repeat(64);

const embeddingCase = fc
  .record({
    chunkSize: fc.constantFrom<number | undefined>(1, 2, 3, 4, 5, 8, 16, undefined),
    batchSize: fc.constantFrom(1, 2, 3, 4, 8, 16),
    maxLen: fc.constantFrom(8, 9, 16, 31, 32, 33),
    budget: fc.constantFrom('unlimited', 'near', 'tight'),
    budgetDelta: fc.integer({ min: -2, max: 2 }),
    /** The count of texts: around chunks, batches or a power of two (± 2). */
    around: fc.constantFrom('chunk', 'batch', 'pow2'),
    times: fc.constantFrom(1, 2, 3),
    k: fc.integer({ min: 1, max: 9 }),
    delta: fc.integer({ min: -2, max: 2 }),
    distinctShare: fc.constantFrom(1, 0.75, 0.5),
    role: fc.constantFrom<Role>('query', 'document'),
    priors: fc.array(
      fc.record({
        share: fc.constantFrom(0, 0.3, 0.6, 0.9, 1),
        chunkSize: fc.constantFrom<number | undefined>(1, 3, 4, 7, undefined),
        extra: fc.integer({ min: 0, max: 5 }),
        /** Stop the run after this many batches (null: run to the end). */
        interruptAfter: fc.option(fc.integer({ min: 0, max: 4 })),
      }),
      { maxLength: 3 },
    ),
    damageShare: fc.constantFrom(0, 0.3, 0.7),
    seed: fc.integer(),
  })
  .map((c) => {
    const chunk = c.chunkSize ?? 256;
    const base = c.around === 'chunk' ? chunk * c.times : c.around === 'batch' ? c.batchSize * c.times : 2 ** c.k;
    const n = Math.max(1, base + c.delta);
    const maxBatchTokens = c.budget === 'unlimited' ? 1e9 : c.budget === 'near' ? Math.max(1, 16 * c.batchSize + c.budgetDelta) : Math.max(1, 16 + c.budgetDelta);
    return { ...c, n, maxBatchTokens };
  });

describe('embedding cache: cold = warm = partly cached = damaged = --no-cache, bit for bit', () => {
  test.prop([embeddingCase], { numRuns: 50 })('random texts, random cache state and damage, stand-in encoder on the real planner', async (c) => {
    const rnd = rng(c.seed);
    const pool = distinctTexts(Math.max(1, Math.round(c.n * c.distinctShare)), c.maxLen, rnd, 't');
    const texts = collection(pool, c.n, rnd);
    const make = () => new StandInEncoder(c.batchSize, c.maxBatchTokens, c.maxLen, 5);
    const cacheDir = freshDir();
    const logs: string[] = [];
    const opts = (chunkSize: number | undefined, useCache = true) => ({
      configKey: CONFIG_KEY,
      cache: { cacheDir, useCache, log: (l: string) => logs.push(l), ...(chunkSize !== undefined ? { chunkSize } : {}) },
    });

    // The plain definition: every text encoded with the cache off (and the encoder called directly).
    const plain = await encodeTextsWithCache(make(), texts, c.role, opts(c.chunkSize, false));
    const direct = await make().embed({ size: texts.length, texts: (from = 0, to = texts.length) => texts.slice(from, to) }, c.role);
    expect(f32Bits(plain.vectors)).toEqual(f32Bits(direct));

    // Earlier calls on random subsets (plus texts outside the collection), some interrupted.
    for (const [p, prior] of c.priors.entries()) {
      const part = [...subset(pool, prior.share, rnd), ...distinctTexts(prior.extra, c.maxLen, rnd, `x${p}-`)];
      let batches = 0;
      const o = {
        ...opts(prior.chunkSize),
        onBatch: () => {
          if (prior.interruptAfter !== null && batches++ >= prior.interruptAfter) throw new Error('interrupted');
        },
      };
      await encodeTextsWithCache(make(), part, c.role, o).catch((e: Error) => expect(e.message).toBe('interrupted'));
    }

    // What each chunk holds, then random damage: a damaged chunk's texts must be encoded again.
    const chunkDir = join(cacheDir, 'embeddings', CONFIG_KEY);
    const held = new Map(filesUnder(chunkDir, (p) => p.endsWith('.bin')).map((f) => [f, decodeChunkFile(CONFIG_KEY, keyOf(f), readFileSync(f)).keys] as const));
    const damaged = damageSome([...held.keys()], c.damageShare, rnd);
    const intact = new Set([...held].filter(([f]) => !damaged.has(f)).flatMap(([, keys]) => keys));
    const missing = [...new Set(texts.filter((t) => !intact.has(textKey(CONFIG_KEY, t))))];

    logs.length = 0;
    const enc = make();
    const warm = await encodeTextsWithCache(enc, texts, c.role, opts(c.chunkSize));
    expect(f32Bits(warm.vectors)).toEqual(f32Bits(plain.vectors));
    expect(enc.calls).toEqual(missing.length > 0 ? [missing] : []);
    const corrupt = [...damaged.values()].filter((d) => d !== 'delete').length;
    expect(warm.stats).toMatchObject({ encoded: missing.length, corruptChunks: corrupt, truncatedTexts: plain.stats.truncatedTexts });
    expect(logs).toHaveLength(corrupt);
    expect(reported(logs, 'embeddings').sort()).toEqual([...damaged].filter(([, d]) => d !== 'delete').map(([f]) => f).sort());
    // What was encoded is stored in chunks of the chunk size, the last one holding the rest.
    const chunk = c.chunkSize ?? 256;
    expect(warm.stats.chunksWritten).toBe(Math.ceil(missing.length / chunk));
    const written = filesUnder(chunkDir, (p) => p.endsWith('.bin'))
      .filter((f) => !held.has(f) || damaged.has(f)) // a rewritten chunk may take a damaged one's name (named by its keys)
      .map((f) => decodeChunkFile(CONFIG_KEY, keyOf(f), readFileSync(f)).keys.length)
      .sort((a, b) => b - a);
    expect(written).toEqual(Array.from({ length: warm.stats.chunksWritten }, (_, i) => Math.min(chunk, missing.length - i * chunk)).sort((a, b) => b - a));

    // The next call: every text answered by the cache, the same bits, no damaged chunk left.
    const again = make();
    const hot = await encodeTextsWithCache(again, texts, c.role, opts(c.chunkSize));
    expect(again.calls).toEqual([]);
    expect(hot.stats).toMatchObject({ hits: texts.length, misses: 0, encoded: 0, corruptChunks: 0 });
    expect(f32Bits(hot.vectors)).toEqual(f32Bits(plain.vectors));
  });
});

// ---------------------------------------------------------------------------------------------
// Reranker score cache
// ---------------------------------------------------------------------------------------------

/**
 * A stand-in reranker: pairs planned by the real planner (a pair's tokens: its characters), each
 * score a function of the pair and its batch's shape; -0, tiny, huge and negative scores among them.
 */
class StandInReranker implements Reranker {
  readonly calls: RerankPair[][] = [];
  constructor(private readonly batchSize: number) {}
  describe(): Record<string, unknown> {
    return { scorer: 'stand-in' };
  }
  static score(p: RerankPair, width: number, rows: number): number {
    const h = fnv(p.query, fnv(p.doc));
    if (h % 11 === 0) return -0;
    if (h % 13 === 0) return 0;
    const mag = 10 ** ((h % 9) - 4) * (h % 17 === 0 ? 1e-300 : h % 19 === 0 ? 1e300 : 1);
    return ((h >>> 8) / 2 ** 24 - 0.5) * mag * (1 + width * 2 ** -12 + rows * 2 ** -18);
  }
  async score(pairs: RerankPair[]): Promise<number[]> {
    this.calls.push(pairs);
    const plan = planBatches(
      pairs.map((p) => p.query.length + p.doc.length),
      this.batchSize,
      1e9,
      64,
    );
    const out = new Array<number>(pairs.length);
    plan.batches.forEach((items, b) => items.forEach((i) => (out[i] = StandInReranker.score(pairs[i]!, plan.widths[b]!, plan.rows[b]!))));
    return out;
  }
}

/** A scorer group's chunks and the keys each holds (read before any damage). */
function scoreChunks(dir: string): Map<string, string[]> {
  return new Map(filesUnder(scoreChunkDir(dir), (p) => p.endsWith('.jsonl')).map((f) => [f, entryBody(f).toString('utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as [string, number])[0])] as const));
}

/** Random pairs: queries and documents from small pools (so identical pairs recur), lengths up to ~70. */
function pairPool(count: number, rnd: () => number): RerankPair[] {
  const queries = distinctTexts(Math.max(1, count >> 2), 24, rnd, 'q');
  const docs = distinctTexts(Math.max(1, count), 40, rnd, 'd');
  const seen = new Set<string>();
  const out: RerankPair[] = [];
  for (let i = 0; out.length < count && i < count * 4; i++) {
    const p = { query: queries[pick(rnd, queries.length)]!, doc: docs[pick(rnd, docs.length)]! };
    const k = pairKey(p.query, p.doc);
    if (!seen.has(k)) (seen.add(k), out.push(p));
  }
  return out;
}

const scoreCase = fc
  .record({
    window: fc.constantFrom<number | undefined>(1, 2, 3, 4, 8, undefined),
    batchSize: fc.constantFrom(1, 2, 3, 4, 8),
    times: fc.constantFrom(1, 2, 3),
    delta: fc.integer({ min: -2, max: 2 }),
    dupShare: fc.constantFrom(0, 0.3),
    compactAbove: fc.constantFrom(0, 1, 2, 3, 5, 64),
    keepOrder: fc.boolean(),
    priors: fc.array(fc.record({ share: fc.constantFrom(0.2, 0.5, 0.9), window: fc.constantFrom(1, 2, 5, 1024), extra: fc.integer({ min: 0, max: 3 }) }), { maxLength: 4 }),
    damageShare: fc.constantFrom(0, 0.3, 0.7),
    /** Beyond deleted, cut short, bit-flipped, extended: a line dropped, the framing well-formed. */
    dropLines: fc.boolean(),
    seed: fc.integer(),
  })
  .map((c) => ({ ...c, unique: Math.max(1, (c.window ?? 1024) * c.times + c.delta) }))
  // The default window (1,024) only at its first crossing: larger counts cost time, not cases.
  .filter((c) => c.window !== undefined || c.times === 1);

describe('reranker score cache: cached scores = uncached scores, bit for bit; damaged chunks recomputed', () => {
  test.prop([scoreCase], { numRuns: 50 })('random pairs around the window ± 2, random prior windows, compaction and damage', async (c) => {
    const rnd = rng(c.seed);
    const pool = pairPool(c.unique, rnd);
    const pairs = collection(pool, pool.length + Math.round(pool.length * c.dupShare), rnd);
    const dir = freshDir();
    const window = c.window !== undefined ? { window: c.window } : {};

    const plainScorer = new StandInReranker(c.batchSize);
    const plain = await new WindowedReranker(plainScorer, { keepOrder: c.keepOrder }).score(pairs);
    // Uncached and unwindowed: each pair alone gives the same score.
    expect(f64Bits(plain)).toEqual(f64Bits(await plainScorer.score(pairs)));

    for (const prior of c.priors) {
      const part = [...subset(pool, prior.share, rnd), ...pairPool(prior.extra, rnd).map((p) => ({ query: `x${p.query}`, doc: p.doc }))];
      // (A chunk per window: at the default window's size, windows of a few hundred keep the file count modest.)
      const priorWindow = c.unique > 64 ? Math.max(prior.window, 300) : prior.window;
      await new WindowedReranker(new StandInReranker(c.batchSize), { cache: openScores(dir, { v: 1 }, c.compactAbove), window: priorWindow }).score(part);
    }

    const held = scoreChunks(dir);
    const damaged = damageSome([...held.keys()], c.damageShare, rnd);
    if (c.dropLines) {
      for (const [f, keys] of held) {
        if (damaged.has(f) || keys.length < 2 || rnd() < 0.5) continue;
        const lines = entryBody(f).toString('utf8').split('\n').filter(Boolean);
        lines.splice(pick(rnd, lines.length), 1);
        forgeEntry(f, RERANK_KIND, lines.join('\n') + '\n');
        damaged.set(f, 'truncate');
      }
    }
    const intact = new Set([...held].filter(([f]) => !damaged.has(f)).flatMap(([, keys]) => keys));
    const missing = new Set(pairs.map((p) => pairKey(p.query, p.doc)).filter((k) => !intact.has(k)));

    const scorer = new StandInReranker(c.batchSize);
    const logs: string[] = [];
    const warm = new WindowedReranker(scorer, { cache: openScores(dir, undefined, c.compactAbove, (l) => logs.push(l)), keepOrder: c.keepOrder, ...window });
    expect(reported(logs, 'rerank').sort()).toEqual([...damaged].filter(([, d]) => d !== 'delete').map(([f]) => f).sort());
    const got = await warm.score(pairs);
    expect(f64Bits(got)).toEqual(f64Bits(plain));
    const sent = scorer.calls.flat().map((p) => pairKey(p.query, p.doc));
    expect(sent.length).toBe(missing.size); // each missing pair once
    expect(new Set(sent)).toEqual(missing);
    expect(warm.stats().cachedPairs).toBe(pairs.filter((p) => intact.has(pairKey(p.query, p.doc))).length);
    // Windows of at most `window` pairs.
    for (const call of scorer.calls) expect(call.length).toBeLessThanOrEqual(c.window ?? 1024);
    // No damaged chunk is left behind: every chunk holds what its key says (a recomputed one may
    // come back under its old key, content-addressed).
    for (const f of filesUnder(dir, (p) => p.endsWith('.jsonl'))) expect(() => decodeScoreChunk(TEST_SCORER, keyOf(f), unframeEntry(RERANK_KIND, keyOf(f), readFileSync(f)).toString('utf8'))).not.toThrow();

    const again = new StandInReranker(c.batchSize);
    const hot = await new WindowedReranker(again, { cache: openScores(dir, undefined, c.compactAbove), ...window }).score(pairs);
    expect(again.calls).toEqual([]);
    expect(f64Bits(hot)).toEqual(f64Bits(plain));
  });

  /** The plain definition of the lookup: cached pairs answered, the rest grouped by key, ordered. */
  function plainLookup(pairs: readonly RerankPair[], cached: ReadonlyMap<string, number>, keepOrder: boolean) {
    const scores = pairs.map((p) => cached.get(pairKey(p.query, p.doc)) ?? NaN);
    const groups: { key: string; idx: number[] }[] = [];
    pairs.forEach((p, i) => {
      const key = pairKey(p.query, p.doc);
      if (cached.has(key)) return;
      const g = groups.find((x) => x.key === key);
      if (g) g.idx.push(i);
      else groups.push({ key, idx: [i] });
    });
    const len = (g: { idx: number[] }) => pairs[g.idx[0]!]!.query.length + pairs[g.idx[0]!]!.doc.length;
    if (!keepOrder) groups.sort((a, b) => len(b) - len(a) || a.idx[0]! - b.idx[0]!);
    return { scores, hits: pairs.length - groups.reduce((n, g) => n + g.idx.length, 0), unique: groups };
  }

  test.prop([fc.integer({ min: 1, max: 70 }), fc.constantFrom(0, 0.3, 1), fc.boolean(), fc.integer()], { numRuns: 150 })(
    'lookupPairs = answer cached pairs, group identical pairs, longest first (ties by position)',
    (n, cachedShare, keepOrder, seed) => {
      const rnd = rng(seed);
      const pool = pairPool(Math.max(1, n >> 1), rnd);
      const pairs = collection(pool, n, rnd);
      const cached = new Map(subset(pool, cachedShare, rnd).map((p) => [pairKey(p.query, p.doc), rnd() - 0.5] as const));
      const got = lookupPairs(pairs, { get: (k) => cached.get(k) }, keepOrder);
      expect(got).toEqual(plainLookup(pairs, cached, keepOrder));
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Token count caches
// ---------------------------------------------------------------------------------------------

/** Texts of UTF-16 lengths around the by-text memo's 256-unit limit (and short and empty ones). */
function tokenTexts(count: number, rnd: () => number): string[] {
  const lens = [0, 1, 5, 254, 255, 256, 257, 258, 600];
  const pieces = ['the ', 'skill', ' ', 'é', '😀', '\n', 'Deploy', '42', '::'];
  return Array.from({ length: count }, (_, d) => {
    const want = lens[pick(rnd, lens.length)]!;
    let s = want === 0 ? '' : `${d} `;
    while (s.length < want) s += pieces[pick(rnd, pieces.length)]!;
    // Cut to the exact length unless that would split a surrogate pair (then one unit longer).
    return want === 0 ? s : s.length > want && /[\ud800-\udbff]/.test(s[want - 1]!) ? s.slice(0, want + 1) : s.slice(0, want);
  });
}


describe('token count caches: cached counts = countTokens, whatever the cache held', () => {
  test.prop([fc.integer({ min: 1, max: 24 }), fc.array(fc.constantFrom(0, 0.3, 0.8), { maxLength: 3 }), fc.constantFrom(0, 0.5, 1), fc.boolean(), fc.integer()], { numRuns: 60 })(
    'TokenCountCache: texts around the 256-unit memo limit, earlier runs on random subsets, entries damaged any way or with entries lost',
    (n, priorShares, damageShare, removeEntries, seed) => {
      const rnd = rng(seed);
      const pool = tokenTexts(n, rnd);
      const texts = collection(pool, n + (n >> 1), rnd);
      const cacheDir = freshDir();
      for (const share of priorShares) {
        const c = TokenCountCache.open(cacheDir, true);
        for (const t of subset(pool, share, rnd)) c.count(t);
        c.save();
      }
      const [file] = filesUnder(join(cacheDir, 'tokens'));
      if (removeEntries && file !== undefined) {
        // Entries lost (the rest a well-formed entry): they are counted again.
        const doc = JSON.parse(entryBody(file).toString('utf8')) as Record<string, number>;
        forgeEntry(file, TOKENS_KIND, JSON.stringify(Object.fromEntries(Object.entries(doc).filter(() => rnd() < 0.5))));
      }
      const damaged = damageSome(filesUnder(join(cacheDir, 'tokens')), damageShare, rnd);
      const plain = texts.map(countTokens);
      const logs: string[] = [];
      const warm = TokenCountCache.open(cacheDir, true, (l) => logs.push(l));
      expect(reported(logs, 'tokens')).toEqual([...damaged].filter(([, d]) => d !== 'delete').map(([f]) => f));
      expect(texts.map((t) => warm.count(t))).toEqual(plain);
      expect(texts.map((t) => warm.count(t))).toEqual(plain); // the by-text memo answering
      warm.save();
      const hot = TokenCountCache.open(cacheDir, true);
      for (const t of texts) expect(hot.lookup(textHash(t))).toBe(countTokens(t));
      expect(texts.map((t) => hot.count(t))).toEqual(plain);
      expect(texts.map((t) => TokenCountCache.open(cacheDir, false).count(t))).toEqual(plain);
    },
  );

  test.prop([fc.integer({ min: 1, max: 20 }), fc.array(fc.constantFrom(0, 0.4, 1), { maxLength: 3 }), fc.constantFrom(0, 0.5, 1), fc.integer()], { numRuns: 50 })(
    "SkillTokenCounts with a corpus's own counts: each skill's count = countTokens of its SKILL.md, whatever runs came before",
    async (n, priorShares, damageShare, seed) => {
      const rnd = rng(seed);
      const skillMd = tokenTexts(n, rnd);
      const ids = skillMd.map((_, i) => `skill-${i}`);
      const key = { skillsSha256: 'f'.repeat(64), skillMdField: undefined, ids };
      const cacheDir = freshDir();
      const runOf = (xs: readonly string[]) => new Map([['q', xs.map((docId, j) => ({ docId, score: -j }))]]);
      const open = () => {
        const read: number[] = [];
        const counts = new SkillTokenCounts({ ids, skillMd: (i) => (read.push(i), skillMd[i]!), cache: TokenCountCache.open(cacheDir, true), corpus: CorpusTokenCounts.open(cacheDir, true, key), threads: 0 });
        return { counts, read };
      };
      for (const share of priorShares) {
        const { counts } = open();
        // A run's skills, an id outside the corpus among them.
        await counts.prepare(runOf([...subset(ids, share, rnd), 'not-a-skill']));
        counts.save();
      }
      const known = CorpusTokenCounts.open(cacheDir, true, key).counts;
      const damaged = damageSome(filesUnder(join(cacheDir, 'tokens', 'by-corpus')), damageShare, rnd);
      const logs: string[] = [];
      const after = CorpusTokenCounts.open(cacheDir, true, key, (l) => logs.push(l)).counts;
      expect(reported(logs, 'tokens-corpus')).toEqual([...damaged].filter(([, d]) => d !== 'delete').map(([f]) => f));
      // Every count the corpus file still gives is right; damaged files give none.
      after.forEach((c, i) => expect(c === -1 || c === known[i]).toBe(true));
      const want = subset(ids, 0.7, rnd);
      const { counts, read } = open();
      await counts.prepare(runOf(want));
      for (const id of [...want, ...ids]) expect(counts.get(id)).toBe(countTokens(skillMd[ids.indexOf(id)]!));
      expect(counts.get('not-a-skill')).toBe(0);
      // Only skills the corpus counts did not hold were read.
      expect(new Set(read)).toEqual(new Set(ids.map((_, i) => i).filter((i) => after[i] === -1)));
      counts.save();
      const hot = open();
      for (const id of ids) expect(hot.counts.get(id)).toBe(countTokens(skillMd[ids.indexOf(id)]!));
      expect(hot.read).toEqual([]);
    },
  );
});
