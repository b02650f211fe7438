/**
 * Holm and Bonferroni by hand (m = 4): p = [0.01, 0.04, 0.03, 0.005] sorted 0.005, 0.01, 0.03, 0.04 →
 * Holm 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06 (the same numbers as
 * statsmodels multipletests(method="holm")); Bonferroni 4·p capped at 1.
 */
import { describe, expect, it } from 'vitest';
import { correctPValues, familySize } from '../src/stats/correction.js';

const close = (xs: number[], ys: number[]) => xs.forEach((x, i) => (Number.isNaN(ys[i]!) ? expect(x).toBeNaN() : expect(x).toBeCloseTo(ys[i]!, 15)));

describe('correctPValues', () => {
  const ps = [0.01, 0.04, 0.03, 0.005];
  it('holm: the step-down adjusted p-values, in input order', () => close(correctPValues(ps, 'holm'), [0.03, 0.06, 0.06, 0.02]));
  it('bonferroni: m·p capped at 1', () => close(correctPValues([...ps, 0.5], 'bonferroni'), [0.05, 0.2, 0.15, 0.025, 1]));
  it('none: unchanged', () => expect(correctPValues(ps, 'none')).toEqual(ps));
  it('holm is monotone and capped at 1', () => close(correctPValues([0.6, 0.2, 0.9], 'holm'), [1, 0.6, 1]));
  it('ties keep input order and get the same adjusted value', () => close(correctPValues([0.02, 0.02], 'holm'), [0.04, 0.04]));
  it('a NaN p-value is not a test: it stays NaN, the others are corrected over the m defined ones (pyterrier PR #440)', () => {
    expect(familySize([0.01, NaN, 0.04])).toBe(2);
    close(correctPValues([0.01, NaN, 0.04], 'holm'), [0.02, NaN, 0.04]);
    close(correctPValues([0.01, NaN, 0.04], 'bonferroni'), [0.02, NaN, 0.08]);
    close(correctPValues([NaN, NaN], 'holm'), [NaN, NaN]);
  });
  it('refuses values outside [0, 1]', () => expect(() => correctPValues([1.5], 'holm')).toThrow(RangeError));
});
