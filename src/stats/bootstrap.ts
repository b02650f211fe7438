/**
 * Percentile bootstrap confidence interval of a mean (Efron's percentile method).
 *
 * Each of B iterations draws n values from `diffs` uniformly with replacement and records their mean
 * (left-to-right sum / n). The interval is the (1 − level)/2 and (1 + level)/2 quantiles of the B
 * means, read with linear interpolation between order statistics (src/stats/quantile.ts: type 7, as
 * numpy.quantile's default). For level 0.95 and B = 10,000 that is the 0.025 and 0.975 quantiles.
 *
 * Randomness: xoroshiro128+ (src/stats/rng.ts), indices drawn as pure-rand's unbiased
 * `uniformInt(rng, 0, n - 1)` draws them (rejection of outputs >= floor(2^32 / n)·n, then modulo n),
 * inlined over blocks of outputs (stream.ts): the same indices, so the same means bit for bit.
 * Same inputs and seed → the same interval, bit for bit.
 */
import { checkIterations } from './rng.js';
import { Int32Stream } from './stream.js';
import { quantileSorted } from './quantile.js';

export const DEFAULT_BOOTSTRAP_ITERATIONS = 10_000;
export const DEFAULT_LEVEL = 0.95;

export interface BootstrapCI {
  low: number;
  high: number;
  level: number;
  iterations: number;
}

/**
 * The `iterations` bootstrap means of `diffs`, sorted ascending (the distribution the CI is read
 * from). Throws a RangeError on an empty sample, a non-finite value or a bad option.
 */
export function bootstrapMeans(diffs: readonly number[], o: { iterations?: number; seed: number }): Float64Array {
  const iterations = o.iterations ?? DEFAULT_BOOTSTRAP_ITERATIONS;
  checkIterations(iterations);
  const n = diffs.length;
  if (n === 0) throw new RangeError('bootstrap of an empty sample');
  const x = Float64Array.from(diffs);
  if (!x.every(Number.isFinite)) throw new RangeError('bootstrap sample must hold finite numbers');
  const stream = new Int32Stream(o.seed);
  let block = stream.fill();
  let pos = 0;
  // pure-rand's uniformIntInternal(rng, n): accept v = out + 2^31 below maxAllowed, index v mod n.
  const maxAllowed = n > 2 ? Math.floor(4294967296 / n) * n : 4294967296;
  const means = new Float64Array(iterations);
  for (let it = 0; it < iterations; it++) {
    let s = 0;
    for (let i = 0; i < n; i++) {
      let v: number;
      do {
        if (pos === block.length) {
          block = stream.fill();
          pos = 0;
        }
        v = block[pos++]! + 2147483648;
      } while (v >= maxAllowed);
      s += x[v - Math.floor(v / n) * n]!;
    }
    means[it] = s / n;
  }
  return means.sort();
}

export function bootstrapMeanCI(
  diffs: readonly number[],
  o: { iterations?: number; seed: number; level?: number },
): BootstrapCI {
  const level = o.level ?? DEFAULT_LEVEL;
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  const means = bootstrapMeans(diffs, o);
  const alpha = 1 - level;
  return {
    low: quantileSorted(means, alpha / 2),
    high: quantileSorted(means, 1 - alpha / 2),
    level,
    iterations: means.length,
  };
}
