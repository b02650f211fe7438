/**
 * Python-exact rounding. Every expected value below was printed by python3 (3.x):
 * round(x, d), f"{x:.{d}f}" and f"{x*100:.2f}".
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatPercent, formatPercentDelta, formatSignedPercent, officialFraction, percentDeltaFromPublished, percentHundredths } from '../src/metrics/official-percent.js';
import { formatFixed, roundHalfEven } from '../src/util/python-round.js';

describe('formatFixed = Python f"{x:.{d}f}"', () => {
  it.each([
    // exact binary ties go to even (JS toFixed would round them up)
    [0.125, 2, '0.12'],
    [0.5, 0, '0'],
    [1.5, 0, '2'],
    [2.5, 0, '2'],
    [0.25, 1, '0.2'],
    [-0.25, 1, '-0.2'],
    [1 / 64, 5, '0.01562'], // 0.015625 exactly: toFixed gives 0.01563
    [3 / 64, 5, '0.04688'],
    [5 / 64, 5, '0.07812'],
    // not ties: the stored double decides
    [2.675, 2, '2.67'], // 2.67499999999999982236431605997495353221893310546875
    [0.000005, 5, '0.00001'], // 5.00000000000000040902e-06
    [0.123455, 5, '0.12345'], // stored just below the tie
    [0.000125, 5, '0.00013'], // stored just above the tie
    [1.00005, 4, '1.0001'],
    [0.00015, 4, '0.0001'],
    [0.15, 1, '0.1'],
    [1e-7, 5, '0.00000'],
    [5e-324, 5, '0.00000'],
    // signs: Python keeps "-" on negative values and -0.0 that round to zero
    [-0, 2, '-0.00'],
    [-0.001, 2, '-0.00'],
    [0, 2, '0.00'],
    // large values print every digit
    [1e22, 2, '10000000000000000000000.00'],
    [1e21, 1, '1000000000000000000000.0'],
    [123456789012345678901234567890, 3, '123456789012345677877719597056.000'],
  ])('%s with %i digits -> %s', (x, d, want) => {
    expect(formatFixed(x, d)).toBe(want);
  });

  it('prints non-finite values like Python', () => {
    expect(formatFixed(Infinity, 2)).toBe('inf');
    expect(formatFixed(-Infinity, 2)).toBe('-inf');
    expect(formatFixed(NaN, 2)).toBe('nan');
  });

  it('rejects a bad digit count', () => {
    expect(() => formatFixed(1, -1)).toThrow(RangeError);
    expect(() => formatFixed(1, 1.5)).toThrow(RangeError);
  });
});

describe('roundHalfEven = Python round(x, d)', () => {
  it.each([
    [0.125, 2, 0.12],
    [2.675, 2, 2.67],
    [0.000005, 5, 0.00001],
    [1e-7, 5, 0],
    [0.123455, 5, 0.12345],
    [0.000125, 5, 0.00013],
    [1 / 64, 5, 0.01562],
    [3 / 64, 5, 0.04688],
    [0.994999, 5, 0.995],
    [0.46474, 5, 0.46474],
    [2.5, 0, 2],
    [3.5, 0, 4],
    [-2.5, 0, -2],
    [1234.5, -1, 1230],
    [1235, -1, 1240],
    [1245, -1, 1240],
  ])('round(%s, %i) = %s', (x, d, want) => {
    expect(roundHalfEven(x, d)).toBe(want);
  });

  it('keeps the sign of zero like Python (round(-1e-7, 5) == -0.0)', () => {
    expect(Object.is(roundHalfEven(-1e-7, 5), -0)).toBe(true);
    expect(Object.is(roundHalfEven(-0, 2), -0)).toBe(true);
    expect(Object.is(roundHalfEven(1e-7, 5), 0)).toBe(true);
  });

  it('returns non-finite values unchanged', () => {
    expect(roundHalfEven(Infinity, 5)).toBe(Infinity);
    expect(Number.isNaN(roundHalfEven(NaN, 5))).toBe(true);
  });
});

describe('formatPercent = the official f"{round(mean, 5) * 100:.2f}"', () => {
  it.each([
    [0.46474, '46.47'], // 46.474
    [0.15129, '15.13'], // 15.129000000000001
    [0.08639, '8.64'], // 8.639
    [0.285, '28.50'], // 28.499999999999996 still rounds up at 2 decimals
    [0.00125, '0.12'], // 0.125 exactly: tie to even (toFixed: 0.13)
    [0.994999, '99.50'],
    [0.99995, '100.00'],
    [1, '100.00'],
    [0, '0.00'],
    [1.5e-5, '0.00'],
    // the two-step rounding differs from rounding the raw mean once (python: 1.05 vs 1.04)
    [0.010452961672473868, '1.04'],
    [0.015648780353319628, '1.57'],
  ])('%s -> %s', (x, want) => {
    expect(formatPercent(x)).toBe(want);
  });

  // Made by scripts/make-rounding-fixture.py (python3): means from k/n counts, NDCG-like sums and
  // values at/around the 5-decimal and 2-decimal ties.
  const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'rounding', 'official-percent.json'), 'utf8')) as {
    rows: [string, string, string][];
  };

  it(`prints every one of ${fixture.rows.length} means exactly as Python does`, () => {
    expect(fixture.rows.length).toBeGreaterThan(4000);
    const wrong = fixture.rows.filter(([m, official]) => formatPercent(Number(m)) !== official);
    expect(wrong).toEqual([]);
    // the fixture exercises the difference: a few percent of the means print differently when rounded once
    const differ = fixture.rows.filter(([, official, naive]) => official !== naive).length;
    expect(differ).toBeGreaterThan(100);
    expect(fixture.rows.filter(([m, , naive]) => formatFixed(Number(m) * 100, 2) !== naive)).toEqual([]);
  });

  it('officialFraction is Python round(mean, 5)', () => {
    expect(officialFraction(0.010452961672473868)).toBe(0.01045);
    expect(officialFraction(0.123455)).toBe(0.12345);
  });

  it('Δ is the difference of the printed cells, in exact hundredths', () => {
    // printed 1.04 and 1.57 -> +0.53, though the raw means differ by 0.5195…
    expect(formatPercentDelta(0.010452961672473868, 0.015648780353319628)).toBe('+0.53');
    expect(formatPercentDelta(0.015648780353319628, 0.010452961672473868)).toBe('-0.53');
    expect(formatPercentDelta(0.5, 0.5)).toBe('+0.00');
    expect(formatPercentDelta(0.46474, 0.99995)).toBe('+53.53');
    expect(formatPercentDelta(Number.NaN, 0.5)).toBe('–');
    for (const [a, pa] of fixture.rows.slice(0, 200)) {
      for (const [b, pb] of fixture.rows.slice(-3)) {
        const want = Math.round(Number(pb) * 100) - Math.round(Number(pa) * 100);
        const got = formatPercentDelta(Number(a), Number(b));
        expect(Math.round(Number(got) * 100)).toBe(want);
      }
    }
    expect(percentHundredths(0.46474)).toBe(4647);
    expect(percentDeltaFromPublished(0.010452961672473868, 1.05)).toBe(-0.01);
    expect(percentDeltaFromPublished(0.46474, 46.47)).toBe(0);
  });

  it('signed percentages of differences', () => {
    expect(formatSignedPercent(0.0125)).toBe('+1.25');
    expect(formatSignedPercent(-0.0007)).toBe('-0.07');
    expect(formatSignedPercent(Number.NaN)).toBe('–');
  });
});
