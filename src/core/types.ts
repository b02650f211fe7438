/**
 * The nouns of skillret-eval. Everything else (loading, retrieving, scoring,
 * reporting) speaks in these types.
 */

/** One skill of the corpus, after the official fallbacks were applied. */
export interface Skill {
  id: string;
  name: string;
  description: string;
  /** SKILL.md text (falls back to `description` when missing or blank). */
  skillMd: string;
  /** Taxonomy labels, for breakdowns only. */
  major?: string;
  sub?: string;
  /** Where the skill was published (untrusted text; only an http(s) URL is ever linked). */
  sourceUrl?: string;
}

/** One benchmark query. */
export interface Query {
  id: string;
  text: string;
  /** The model that wrote the query, when the data says (for slices). */
  generatorModel?: string;
}

/** Relevance judgements: query id -> (skill id -> integer grade). Relevant = grade >= 1. */
export type Qrels = Map<string, Map<string, number>>;

/** One retrieved document with its score. */
export interface ScoredDoc {
  docId: string;
  score: number;
}

/**
 * A run: query id -> retrieved documents. The order inside the array carries no
 * meaning for scoring: metrics re-rank by trec_eval's rule (score desc, doc id desc).
 * A query present with an empty array was run and retrieved nothing (scores 0).
 */
export type Run = Map<string, ScoredDoc[]>;
