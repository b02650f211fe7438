/**
 * Spearman ρ and Kendall τ-b (src/stats/rank-correlation.ts):
 * - equal to scipy.stats.spearmanr / kendalltau to 1e-12 on the cases of
 *   test/fixtures/rank-correlation/scipy.json (written by scripts/make-rank-correlation-fixture.py:
 *   ties on one side, both sides, joint ties, constant samples → undefined, random samples, and the
 *   paper's Table 15 columns);
 * - equal to their plain O(n²) definitions on random samples with many ties (fast-check): ρ as
 *   Pearson's r of average ranks counted pair by pair, τ-b from the sign of every pair;
 * - the bootstrap interval: seeded (same seed, same bits), resampling the pairs, within [−1, 1].
 */
import { fc, test } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { averageRanks, kendallTauB, rankCorrelation, spearmanRho } from '../src/stats/rank-correlation.js';

interface Case {
  name: string;
  x: number[];
  y: number[];
  spearman: number | null;
  kendall_b: number | null;
}
const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'rank-correlation', 'scipy.json'), 'utf8')) as { scipy: string; cases: Case[] };

const close = (got: number, want: number | null, what: string) => {
  if (want === null) expect(got, what).toBeNaN();
  else expect(Math.abs(got - want), `${what}: ours ${got} scipy ${want}`).toBeLessThanOrEqual(1e-12);
};

describe(`scipy ${fixture.scipy} spearmanr / kendalltau`, () => {
  it.each(fixture.cases)('$name', (c) => {
    close(spearmanRho(c.x, c.y), c.spearman, 'spearman');
    close(kendallTauB(c.x, c.y), c.kendall_b, 'kendall');
  });
});

/** Average rank of each value by counting: 1 + (values below) + (equal values − 1) / 2. */
function plainRanks(xs: readonly number[]): number[] {
  return xs.map((v) => 1 + xs.filter((w) => w < v).length + (xs.filter((w) => w === v).length - 1) / 2);
}

function plainPearson(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return saa === 0 || sbb === 0 ? Number.NaN : sab / Math.sqrt(saa * sbb);
}

/** τ-b by its definition, over every pair. */
function plainTauB(x: readonly number[], y: readonly number[]): number {
  let s = 0;
  let n1 = 0;
  let n2 = 0;
  let n0 = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      n0++;
      s += Math.sign(x[i]! - x[j]!) * Math.sign(y[i]! - y[j]!);
      if (x[i] === x[j]) n1++;
      if (y[i] === y[j]) n2++;
    }
  }
  return n0 === n1 || n0 === n2 ? Number.NaN : s / Math.sqrt((n0 - n1) * (n0 - n2));
}

const pairs = fc
  .integer({ min: 0, max: 40 })
  .chain((n) =>
    fc.tuple(
      fc.array(fc.oneof(fc.integer({ min: 0, max: 4 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })), { minLength: n, maxLength: n }),
      fc.array(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })), { minLength: n, maxLength: n }),
    ),
  );

describe('the plain O(n²) definitions', () => {
  test.prop([pairs])('average ranks, ρ and τ-b', ([x, y]) => {
    expect([...averageRanks(x)]).toEqual(plainRanks(x));
    const rho = plainPearson(plainRanks(x), plainRanks(y));
    const tau = plainTauB(x, y);
    const gotRho = spearmanRho(x, y);
    const gotTau = kendallTauB(x, y);
    if (x.length < 2 || Number.isNaN(rho)) expect(gotRho).toBeNaN();
    else expect(Math.abs(gotRho - rho)).toBeLessThanOrEqual(1e-12);
    if (x.length < 2 || Number.isNaN(tau)) expect(gotTau).toBeNaN();
    else expect(Math.abs(gotTau - tau)).toBeLessThanOrEqual(1e-12);
  });

  test.prop([pairs])('symmetric in x and y; scaling x changes nothing, negating it flips the sign', ([x, y]) => {
    const same = (a: number, b: number) => (Number.isNaN(a) ? expect(b).toBeNaN() : expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12));
    same(spearmanRho(x, y), spearmanRho(y, x));
    same(kendallTauB(x, y), kendallTauB(y, x));
    const scaled = x.map((v) => v * 4); // exact in binary floating point: ranks and ties kept
    same(spearmanRho(scaled, y), spearmanRho(x, y));
    same(kendallTauB(scaled, y), kendallTauB(x, y));
    const negated = x.map((v) => -v);
    same(spearmanRho(negated, y), -spearmanRho(x, y));
    same(kendallTauB(negated, y), -kendallTauB(x, y));
  });
});

describe('bootstrap intervals', () => {
  const x = [75.66, 71.61, 70.88, 70.75, 66.38, 64.88, 64.65, 53.98, 50.13, 40.06, 39.84, 39.38, 39.0, 36.26];
  const y = [55.38, 62.56, 60.0, 66.55, 61.17, 59.5, 58.35, 53.12, 45.52, 50.21, 52.99, 41.82, 55.82, 51.68];

  it('is seeded: the same seed gives the same bits, another seed another interval', () => {
    const a = rankCorrelation(x, y, { seed: 42, iterations: 2000 });
    const b = rankCorrelation(x, y, { seed: 42, iterations: 2000 });
    const c = rankCorrelation(x, y, { seed: 7, iterations: 2000 });
    expect(b).toEqual(a);
    expect(c.spearmanCI.low === a.spearmanCI.low && c.spearmanCI.high === a.spearmanCI.high).toBe(false);
    for (const ci of [a.spearmanCI, a.kendallCI]) {
      expect(-1).toBeLessThanOrEqual(ci.low);
      expect(ci.low).toBeLessThanOrEqual(ci.high);
      expect(ci.high).toBeLessThanOrEqual(1);
      expect(ci).toMatchObject({ level: 0.95, iterations: 2000 });
    }
    expect(a.spearmanCI.low).toBeLessThan(a.spearman);
    expect(a.spearman).toBeLessThan(a.spearmanCI.high);
  });

  it('perfectly ranked pairs: every defined resample gives 1; resamples of one distinct pair are undefined and counted', () => {
    const r = rankCorrelation([1, 2, 3], [10, 20, 30], { seed: 1, iterations: 500 });
    expect(r.spearman).toBeCloseTo(1, 15);
    expect(r.kendall).toBeCloseTo(1, 15);
    for (const v of [r.spearmanCI.low, r.spearmanCI.high, r.kendallCI.low, r.kendallCI.high]) expect(v).toBeCloseTo(1, 15);
    // 3 of the 27 equally likely resamples draw one pair three times
    expect(r.kendallCI.undefinedDraws).toBeGreaterThan(20);
    expect(r.kendallCI.undefinedDraws).toBeLessThan(110);
    expect(r.spearmanCI.undefinedDraws).toBe(r.kendallCI.undefinedDraws);
  });

  it('refuses samples of different lengths and non-finite values', () => {
    expect(() => rankCorrelation([1, 2], [1], { seed: 1, iterations: 10 })).toThrow(RangeError);
    expect(() => spearmanRho([1, Number.NaN], [1, 2])).toThrow(RangeError);
  });
});
