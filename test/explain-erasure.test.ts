import { describe, expect, it } from 'vitest';
import { buildBm25Index } from '../src/retrieval/bm25/build.js';
import { tokenize } from '../src/retrieval/bm25/tokenize.js';
import { bm25ScoresAll, bm25ScoreText } from '../src/explain/bm25-scores.js';
import { sentenceErasure } from '../src/explain/erasure.js';
import { concentrationShares, summarizeConcentration, wordCount } from '../src/explain/concentration.js';
import { fieldVariants } from '../src/explain/fields.js';
import { rankAmong } from '../src/explain/rank.js';
import { splitSentences, withoutSentence } from '../src/query/segment.js';

const f32 = Math.fround;
/*
 * The toy corpus of test/bm25-score.test.ts (k1 1.5, b 0.75; avgdl 2):
 *   d0 "cat cat dog", d1 "dog bird", d2 "the fish".
 *   cat@d0 = f32(idf1 · 2 / 4.0625), dog@d0 = f32(idf2 · 1 / 3.0625), dog@d1 = f32(idf2 / 2.5),
 *   bird@d1 = f32(idf1 / 2.5), with idf1 = f32(ln(8/3)), idf2 = f32(ln 1.6).
 * Query "Cat. Dog bird. Zebra." → sentences "Cat.", "Dog bird.", "Zebra." (zebra is not indexed).
 *   whole:         d0 = f32(cat@d0 + dog@d0), d1 = f32(dog@d1 + bird@d1), d2 = 0 → d0 rank 1
 *   without "Cat.":      d0 = dog@d0 (0.153) < d1 (0.580)  → d0 rank 2: drop = whole − dog@d0, rank drop 1
 *   without "Dog bird.": d0 = cat@d0, d1 = 0               → rank 1: drop = whole − cat@d0, rank drop 0
 *   without "Zebra.":    unchanged                         → drop 0, rank drop 0
 */
const IDF1 = f32(Math.log(1 + 2.5 / 1.5));
const IDF2 = f32(Math.log(1 + 1.5 / 2.5));
const CAT0 = f32(IDF1 * (2 / 4.0625));
const DOG0 = f32(IDF2 * (1 / 3.0625));
const DOG1 = f32(IDF2 * (1 / 2.5));
const BIRD1 = f32(IDF1 * (1 / 2.5));
const WHOLE0 = f32(CAT0 + DOG0);
const WHOLE1 = f32(DOG1 + BIRD1);

const ids = ['d0', 'd1', 'd2'];
const index = buildBm25Index(['cat cat dog', 'dog bird', 'the fish'].map((t) => tokenize(t)));
const table = (q: string) => {
  const s = bm25ScoresAll(index, q);
  return new Map(ids.map((id, i) => [id, s[i]!]));
};

describe('sentence erasure with BM25 (hand computation)', () => {
  const query = 'Cat. Dog bird. Zebra.';
  const sentences = splitSentences(query);
  const e = sentenceErasure(
    table(query),
    sentences.map((_, i) => table(withoutSentence(query, sentences, i))),
    'd0',
  );
  it('scores every document exactly as the index does', () => {
    expect(sentences.map((s) => s.text)).toEqual(['Cat.', 'Dog bird.', 'Zebra.']);
    const whole = table(query);
    expect([whole.get('d0'), whole.get('d1'), whole.get('d2')]).toEqual([WHOLE0, WHOLE1, 0]);
  });
  it('score and rank drops per sentence', () => {
    expect(e.score).toBe(WHOLE0);
    expect(e.rank).toBe(1);
    expect(e.sentences).toEqual([
      { index: 0, score: DOG0, score_drop: WHOLE0 - DOG0, rank: 2, rank_drop: 1 },
      { index: 1, score: CAT0, score_drop: WHOLE0 - CAT0, rank: 1, rank_drop: 0 },
      { index: 2, score: WHOLE0, score_drop: 0, rank: 1, rank_drop: 0 },
    ]);
  });
  it('concentration of the importance', () => {
    const shares = concentrationShares(e.sentences.map((s) => s.score_drop))!;
    const a = WHOLE0 - DOG0;
    const b = WHOLE0 - CAT0;
    expect(shares.top1).toBeCloseTo(a / (a + b), 12);
    expect(shares.top2).toBe(1);
    expect(shares.top3).toBe(1);
    expect(concentrationShares([0, -1, NaN])).toBeUndefined();
  });
  it('a variant document is scored with the index statistics', () => {
    expect(bm25ScoreText(index, 'cat dog', 'cat cat dog')).toBe(WHOLE0);
    // "cat" alone: dl 1, K = 1.5 · (0.25 + 0.75 / 2) = 0.9375
    expect(bm25ScoreText(index, 'cat', 'cat')).toBe(f32(IDF1 * (1 / 1.9375)));
    expect(bm25ScoreText(index, 'zebra', 'cat')).toBe(0);
  });
});

describe('ranks, fields and concentration summaries', () => {
  it('rankAmong follows trec order (ties: doc id descending)', () => {
    const m = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 1],
    ]);
    expect(rankAmong(m, 'a', 1)).toBe(3); // b, then c (ties: "c" > "a")
    expect(rankAmong(m, 'c', 1)).toBe(2);
    expect(rankAmong(m, 'a', 5)).toBe(1);
    expect(rankAmong(m, 'z', 1)).toBe(2); // a new doc "z" beats a and c on the tie
  });
  it('field variants follow the configured fields and separator', () => {
    const skill = { id: 's', name: ' Pg ', description: 'backup', skillMd: 'body text' };
    expect(fieldVariants(skill, ['name', 'description', 'skill_md'], ' | ')).toEqual([
      { variant: 'only_name', text: 'Pg' },
      { variant: 'only_description', text: 'backup' },
      { variant: 'only_body', text: 'body text' },
      { variant: 'without_name', text: 'backup | body text' },
      { variant: 'without_description', text: 'Pg | body text' },
      { variant: 'without_body', text: 'Pg | backup' },
    ]);
    expect(fieldVariants(skill, ['description'], ' | ')).toEqual([{ variant: 'only_description', text: 'backup' }]);
  });
  it('summary by query-length slice', () => {
    const s = summarizeConcentration(
      [
        { words: 50, shares: { top1: 0.5, top2: 1, top3: 1 } },
        { words: 150, shares: { top1: 1, top2: 1, top3: 1 } },
        { words: 60, shares: { top1: 0.3, top2: 0.6, top3: 0.9 } },
      ],
      2,
    );
    expect(s.pairs).toBe(3);
    expect(s.without_signal).toBe(2);
    expect(s.top1.mean).toBeCloseTo(0.6, 12);
    expect(s.top1.quantiles['0.5']).toBe(0.5);
    expect(s.by_length[0]).toMatchObject({ pairs: 2, top1: 0.4 });
    expect(s.by_length[1]).toMatchObject({ pairs: 1, top1: 1 });
    expect(s.by_length[2]!.pairs).toBe(0);
    expect(wordCount('  a b\n c ')).toBe(3);
  });
});
