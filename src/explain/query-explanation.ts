/**
 * One explanation record per query: its sentences, and for each gold skill the sentence erasure
 * (erasure.ts), the document-field variants (fields.ts) and the concentration of the importance
 * (concentration.ts), all scored by an `ExplainScorer` (BM25, a dense model or a reranker; the
 * scorer decides the candidates a rank is taken among).
 */
import type { Skill } from '../core/types.js';
import type { DocField } from '../data/text.js';
import { splitSentences, withoutSentence, type Sentence } from '../query/segment.js';
import { concentrationShares, summarizeConcentration, wordCount, type ConcentrationSummary, type Shares } from './concentration.js';
import { sentenceErasure, type GoldErasure } from './erasure.js';
import { fieldVariants, type FieldVariant } from './fields.js';
import { rankAmong } from './rank.js';

export interface ExplainScorer {
  /** For each text used as the query `qid`: candidate id → score (every candidate of that query). */
  scoreTexts(qid: string, texts: readonly string[]): Promise<Map<string, number>[]>;
  /** Scores of document texts standing in for one candidate, against the query text. */
  scoreDocTexts(qid: string, query: string, docTexts: readonly string[]): Promise<number[]>;
}

export interface FieldScore {
  variant: FieldVariant;
  score: number;
  /** Rank of the variant among the other candidates (their scores unchanged). */
  rank: number;
  score_drop: number;
}

export interface GoldExplanation extends GoldErasure {
  shares: Shares | null;
  fields: FieldScore[];
}

export interface QueryExplanation {
  id: string;
  words: number;
  sentences: Sentence[];
  gold: GoldExplanation[];
}

export interface ExplainDocs {
  skills: ReadonlyMap<string, Skill>;
  fields: readonly DocField[];
  separator: string;
}

export async function explainQuery(scorer: ExplainScorer, q: { id: string; text: string }, gold: readonly string[], docs: ExplainDocs): Promise<QueryExplanation> {
  const sentences = splitSentences(q.text);
  const tables = await scorer.scoreTexts(q.id, [q.text, ...sentences.map((_, i) => withoutSentence(q.text, sentences, i))]);
  const whole = tables[0]!;
  const out: GoldExplanation[] = [];
  for (const g of gold) {
    const e = sentenceErasure(whole, tables.slice(1), g);
    const skill = docs.skills.get(g);
    const fields: FieldScore[] = [];
    if (skill && whole.has(g)) {
      const variants = fieldVariants(skill, docs.fields, docs.separator);
      const scores = await scorer.scoreDocTexts(q.id, q.text, variants.map((v) => v.text));
      variants.forEach((v, i) => fields.push({ variant: v.variant, score: scores[i]!, rank: rankAmong(whole, g, scores[i]!), score_drop: e.score - scores[i]! }));
    }
    out.push({ ...e, shares: concentrationShares(e.sentences.map((s) => s.score_drop)) ?? null, fields });
  }
  return { id: q.id, words: wordCount(q.text), sentences, gold: out };
}

/** Concentration over every (query, gold) pair of the explanations. */
export function concentrationOf(explanations: readonly QueryExplanation[]): ConcentrationSummary {
  const items: { words: number; shares: Shares }[] = [];
  let without = 0;
  for (const x of explanations)
    for (const g of x.gold) {
      if (g.shares) items.push({ words: x.words, shares: g.shares });
      else without++;
    }
  return summarizeConcentration(items, without);
}
