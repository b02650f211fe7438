/**
 * Rank correlation of two paired samples (one pair per system: this benchmark's score and another
 * benchmark's), with percentile bootstrap intervals that resample the systems.
 *
 * - Spearman ρ: Pearson's correlation of the two samples' ranks, ties given their average rank
 *   (scipy.stats.spearmanr). NaN when fewer than 2 pairs or a sample is constant.
 * - Kendall τ-b: (concordant − discordant) / √((n0 − n1)(n0 − n2)), n0 = n(n − 1)/2 pairs, n1 / n2 the
 *   pairs tied in x / in y (a pair tied in both counts in neither the numerator nor as discordant),
 *   computed as scipy.stats.kendalltau does (Knight's O(n log n) algorithm: sort by y then stably by
 *   x, count discordant pairs with a Fenwick tree, divide by the two square roots in turn, clip to
 *   [−1, 1]). NaN when fewer than 2 pairs or every pair is tied on one side.
 * - Bootstrap: `iterations` resamples of the n pairs, drawn with replacement (xoroshiro128+ of
 *   src/stats/rng.ts from `seed`, pure-rand's `uniformInt` per draw, n draws per iteration); each
 *   resample's ρ and τ-b; the interval is the (1 − level)/2 and (1 + level)/2 quantiles (type 7,
 *   src/stats/quantile.ts) of the resamples where the statistic is defined (a resample whose x or y
 *   is constant has none; `undefinedDraws` counts them). Same inputs and seed → the same interval.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { checkIterations, seededRng } from './rng.js';
import { quantileSorted } from './quantile.js';

/** 1-based ranks of `xs`, tied values given the mean of the ranks they span (scipy's `rankdata`, method "average"). */
export function averageRanks(xs: ArrayLike<number>): Float64Array {
  const n = xs.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => xs[a]! - xs[b]! || a - b);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && xs[order[j]!] === xs[order[i]!]) j++;
    const r = (i + 1 + j) / 2; // mean of ranks i + 1 … j
    for (let t = i; t < j; t++) ranks[order[t]!] = r;
    i = j;
  }
  return ranks;
}

/** Pearson's correlation of two equal-length samples; NaN when one is constant or n < 2. */
function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (n < 2) return Number.NaN;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i]! - ma;
    const db = b[i]! - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  if (saa === 0 || sbb === 0) return Number.NaN;
  return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}

function checkPaired(x: ArrayLike<number>, y: ArrayLike<number>): void {
  if (x.length !== y.length) throw new RangeError(`rank correlation: samples of different lengths (${x.length} and ${y.length})`);
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i]!) || !Number.isFinite(y[i]!)) throw new RangeError(`rank correlation: value ${i} is not a finite number`);
  }
}

/** Spearman's ρ (see the module comment). */
export function spearmanRho(x: ArrayLike<number>, y: ArrayLike<number>): number {
  checkPaired(x, y);
  return pearson(averageRanks(x), averageRanks(y));
}

/** Dense 1-based ranks of `v` given in ascending order of `order`. */
function denseRanks(v: ArrayLike<number>, order: readonly number[]): Int32Array {
  const out = new Int32Array(v.length);
  let r = 0;
  for (let i = 0; i < order.length; i++) {
    if (i === 0 || v[order[i]!] !== v[order[i - 1]!]) r++;
    out[order[i]!] = r;
  }
  return out;
}

/** Σ c(c − 1)/2 over the runs of equal values of a sorted integer sequence. */
function tiedPairs(sorted: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[i]) j++;
    s += ((j - i) * (j - i - 1)) / 2;
    i = j;
  }
  return s;
}

/** Kendall's τ-b (see the module comment). */
export function kendallTauB(x: ArrayLike<number>, y: ArrayLike<number>): number {
  checkPaired(x, y);
  const n = x.length;
  if (n < 2) return Number.NaN;
  const idx = Array.from({ length: n }, (_, i) => i);
  // y as dense ranks; then the pairs in ascending x, ties in ascending y (a stable sort after sorting on y).
  const byY = [...idx].sort((a, b) => y[a]! - y[b]! || a - b);
  const yr = denseRanks(y, byY);
  const byX = [...byY].sort((a, b) => x[a]! - x[b]!);
  const xr = denseRanks(x, byX);
  const xs = Int32Array.from(byX, (i) => xr[i]!);
  const ys = Int32Array.from(byX, (i) => yr[i]!);
  // Discordant pairs: for each pair, the earlier ones with a strictly smaller x and a larger y.
  let maxY = 0;
  for (const v of ys) maxY = Math.max(maxY, v);
  const tree = new Float64Array(maxY + 1);
  let dis = 0;
  for (let i = 0, k = 0; i < n; ) {
    while (k < n && xs[i] === xs[k]) {
      dis += i;
      for (let t = ys[k]!; t > 0; t &= t - 1) dis -= tree[t]!;
      k++;
    }
    for (; i < k; i++) for (let t = ys[i]!; t <= maxY; t += t & -t) tree[t]!++;
  }
  let joint = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && xs[j] === xs[i] && ys[j] === ys[i]) j++;
    joint += ((j - i) * (j - i - 1)) / 2;
    i = j;
  }
  const xTies = tiedPairs(xs);
  const ySorted = Int32Array.from(byY, (i) => yr[i]!);
  const yTies = tiedPairs(ySorted);
  const total = (n * (n - 1)) / 2;
  if (xTies === total || yTies === total) return Number.NaN;
  const conMinusDis = total - xTies - yTies + joint - 2 * dis;
  const tau = conMinusDis / Math.sqrt(total - xTies) / Math.sqrt(total - yTies);
  return Math.min(1, Math.max(-1, tau));
}

export interface CorrelationInterval {
  low: number;
  high: number;
  level: number;
  iterations: number;
  /** Resamples in which the statistic is undefined (a constant side), left out of the quantiles. */
  undefinedDraws: number;
}

export interface RankCorrelation {
  n: number;
  spearman: number;
  kendall: number;
  spearmanCI: CorrelationInterval;
  kendallCI: CorrelationInterval;
}

export const DEFAULT_CORRELATION_LEVEL = 0.95;

function interval(values: Float64Array, count: number, level: number, iterations: number): CorrelationInterval {
  const finite = values.subarray(0, count).sort();
  const a = (1 - level) / 2;
  return {
    low: count === 0 ? Number.NaN : quantileSorted(finite, a),
    high: count === 0 ? Number.NaN : quantileSorted(finite, 1 - a),
    level,
    iterations,
    undefinedDraws: iterations - count,
  };
}

/**
 * ρ and τ-b of the pairs (x[i], y[i]) with their percentile bootstrap intervals (see the module
 * comment). Throws a RangeError on samples of different lengths, a non-finite value or a bad option.
 */
export function rankCorrelation(x: ArrayLike<number>, y: ArrayLike<number>, o: { seed: number; iterations: number; level?: number }): RankCorrelation {
  checkPaired(x, y);
  checkIterations(o.iterations);
  const level = o.level ?? DEFAULT_CORRELATION_LEVEL;
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  const n = x.length;
  const rng = seededRng(o.seed);
  const rhos = new Float64Array(o.iterations);
  const taus = new Float64Array(o.iterations);
  let nr = 0;
  let nt = 0;
  const bx = new Float64Array(n);
  const by = new Float64Array(n);
  for (let it = 0; it < o.iterations; it++) {
    for (let i = 0; i < n; i++) {
      const j = uniformInt(rng, 0, n - 1);
      bx[i] = x[j]!;
      by[i] = y[j]!;
    }
    const r = n < 2 ? Number.NaN : pearson(averageRanks(bx), averageRanks(by));
    if (!Number.isNaN(r)) rhos[nr++] = r;
    const t = kendallTauB(bx, by);
    if (!Number.isNaN(t)) taus[nt++] = t;
  }
  return {
    n,
    spearman: spearmanRho(x, y),
    kendall: kendallTauB(x, y),
    spearmanCI: interval(rhos, nr, level, o.iterations),
    kendallCI: interval(taus, nt, level, o.iterations),
  };
}
