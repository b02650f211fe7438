/**
 * Training files of mined hard negatives, one JSON object per line (UTF-8, `\n` after each line):
 * - `st` (sentence-transformers triplets, the `output_format="triplet"` of its
 *   `mine_hard_negatives`): `{"query": …, "pos": …, "neg": …}`, one line per (query, positive,
 *   negative): each positive of a query with each of its negatives, positives in judgement order,
 *   negatives in rank order. Three string columns in that order, nothing else (sentence-transformers
 *   feeds every column to the loss, by position).
 * - `flag` (FlagEmbedding's fine-tuning data): `{"query": …, "pos": [...], "neg": [...]}`, one line
 *   per query.
 */

export type TripletFormat = 'st' | 'flag';

export const TRIPLET_FORMATS: readonly TripletFormat[] = ['st', 'flag'];

/** One query's training example, as texts. */
export interface TrainingExample {
  query: string;
  pos: readonly string[];
  neg: readonly string[];
}

/** The lines of one example in `format`, each ending in `\n`. */
export function exampleLines(e: TrainingExample, format: TripletFormat): string[] {
  if (format === 'flag') return [JSON.stringify({ query: e.query, pos: e.pos, neg: e.neg }) + '\n'];
  const lines: string[] = [];
  for (const pos of e.pos) for (const neg of e.neg) lines.push(JSON.stringify({ query: e.query, pos, neg }) + '\n');
  return lines;
}
