/** Measure keys, the measure parser and the default list. */
import { describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { defaultComparedKeys, defaultMeasures, experimentMeasures, mainKey, measureKey, parseMeasure, parseMeasures } from '../src/metrics/measures.js';
import { parseConfig } from '../src/pipeline/config.js';
import { configError } from './helpers/cli.js';

describe('measureKey / parseMeasure', () => {
  it.each([
    ['NDCG@10', 'NDCG@10'],
    ['nDCG@5', 'NDCG@5'],
    ['ndcg_cut_5', 'NDCG@5'],
    ['ndcg_cut.15', 'NDCG@15'],
    ['MAP@5', 'MAP@5'],
    ['map_cut_5', 'MAP@5'],
    ['AP@10', 'MAP@10'],
    ['Recall@15', 'Recall@15'],
    ['recall_5', 'Recall@5'],
    ['R@5', 'Recall@5'],
    ['P@5', 'Precision@5'],
    ['P_10', 'Precision@10'],
    ['Precision@5', 'Precision@5'],
    ['Completeness@10', 'Completeness@10'],
    ['Comp@5', 'Completeness@5'],
    ['MRR@10', 'MRR@10'],
    ['RR@10', 'MRR@10'],
    ['recip_rank@10', 'MRR@10'],
    [' ndcg@10 ', 'NDCG@10'],
  ])('%s -> %s', (s, key) => {
    expect(measureKey(parseMeasure(s))).toBe(key);
  });

  it.each(['', 'NDCG', 'NDCG@', 'NDCG@0', 'NDCG@-1', 'NDCG@1.5', 'NDCG@x', 'foo@5', '@5', 'NDCG@99999999', 'mrr', 'recip'])(
    'rejects %j with a UserError',
    (s) => {
      expect(() => parseMeasure(s)).toThrow(UserError);
    },
  );

  it('says a bare name needs a cutoff', () => {
    expect(() => parseMeasure('ndcg')).toThrow(/needs a cutoff, e\.g\. NDCG@10$/);
    expect(() => parseMeasure('MRR')).toThrow(/needs a cutoff, e\.g\. MRR@10 \(or recip_rank: the whole ranking, as trec_eval\)$/);
  });

  it('recip_rank alone: MRR over the whole ranking (trec_eval), keyed recip_rank (test/score-recip-rank.test.ts)', () => {
    expect(parseMeasure('recip_rank')).toEqual({ name: 'MRR', k: Number.POSITIVE_INFINITY });
    expect(measureKey(parseMeasure('recip_rank'))).toBe('recip_rank');
  });

  it('parseMeasures keeps order and drops repeats', () => {
    expect(parseMeasures(['P@5', 'NDCG@10', 'P_5', 'ndcg_cut_10']).map(measureKey)).toEqual(['Precision@5', 'NDCG@10']);
  });
});

describe('defaultMeasures', () => {
  it('lists the official key order, then MRR', () => {
    expect(defaultMeasures([5, 10, 15]).map(measureKey)).toEqual([
      'NDCG@5', 'NDCG@10', 'NDCG@15',
      'MAP@5', 'MAP@10', 'MAP@15',
      'Recall@5', 'Recall@10', 'Recall@15',
      'Precision@5', 'Precision@10', 'Precision@15',
      'Completeness@5', 'Completeness@10', 'Completeness@15',
      'MRR@5', 'MRR@10', 'MRR@15',
    ]);
  });

  it('sorts and deduplicates cutoffs', () => {
    expect(defaultMeasures([10, 5, 10]).map(measureKey).slice(0, 2)).toEqual(['NDCG@5', 'NDCG@10']);
  });

  it('rejects bad cutoffs', () => {
    expect(() => defaultMeasures([])).toThrow(UserError);
    expect(() => defaultMeasures([0])).toThrow(UserError);
    expect(() => defaultMeasures([2.5])).toThrow(UserError);
  });
});

describe('mainKey / defaultComparedKeys (the one home of each rule)', () => {
  it('mainKey: NDCG@10 when there, else NDCG at the smallest k, else the first key', () => {
    expect(mainKey(['Recall@10', 'NDCG@5', 'NDCG@10'])).toBe('NDCG@10');
    expect(mainKey(['Recall@5', 'NDCG@15', 'NDCG@5'])).toBe('NDCG@5');
    expect(mainKey(['MRR@10', 'Recall@5'])).toBe('MRR@10');
    expect(mainKey(['custom', 'other'])).toBe('custom');
    expect(() => mainKey([])).toThrow();
  });

  it('defaultComparedKeys: NDCG, Recall, Completeness keys by name then k; every key when there are none', () => {
    expect(defaultComparedKeys(['MAP@5', 'Completeness@10', 'NDCG@10', 'Recall@5', 'NDCG@5', 'MRR@10', 'Completeness@5'])).toEqual([
      'NDCG@5',
      'NDCG@10',
      'Recall@5',
      'Completeness@5',
      'Completeness@10',
    ]);
    expect(defaultComparedKeys(['MAP@5', 'MRR@10'])).toEqual(['MAP@5', 'MRR@10']);
    // only canonical keys are picked (a trec_eval spelling is not a results-file key)
    expect(defaultComparedKeys(['ndcg_cut_10', 'NDCG@10'])).toEqual(['NDCG@10']);
  });
});

describe('experimentMeasures (a config\'s measures:)', () => {
  it('the defaults at each k, then the extra ones in order, without repeats; a bare name is that measure at each k', () => {
    expect(experimentMeasures([10, 5]).map(measureKey)).toEqual(defaultMeasures([5, 10]).map(measureKey));
    expect(experimentMeasures([5, 10], ['Hit@1', 'success_5', 'recall.50', 'Recall@10', 'Judged', 'recip_rank', 'FullCoverage@5']).map(measureKey).slice(12)).toEqual([
      'Hit@1',
      'Hit@5',
      'Recall@50',
      'Judged@5',
      'Judged@10',
      'recip_rank',
    ]);
  });

  it('a bad entry is one line naming the config line and the entry', () => {
    const base = 'name: x\ndataset: { path: /d }\nretrievers:\n  - { id: bm25, type: bm25 }\noutput: /o\n';
    expect(configError(`${base}measures: [Hit@1, Foo@2]\n`)).toBe('/cfg/x.yaml:6: measures[1]: measure "Foo@2": unknown name "Foo" (known: NDCG, MAP, Recall, Precision, Completeness, MRR, Hit, Judged)');
    expect(configError(`${base}measures: [Hit@0]\n`)).toMatch(/^\/cfg\/x\.yaml:6: measures\[0\]: measure "Hit@0": cutoff must be an integer from 1 to 1000000, got 0$/);
    expect(parseConfig(`${base}measures: [Hit, Judged@10]\n`, '/cfg/x.yaml').measures).toEqual(['Hit', 'Judged@10']);
  });
});
