/**
 * A toy first-stage kind, defined outside src/ as a plugin would be: `type: toy` scores every skill by
 * how many distinct query words its text holds (ties by id). One file: its schema, plan line, the
 * resources it needs (none), the run, and the corpus scorer `explain` uses.
 */
import { z } from 'zod';
import { defineFirstStage } from '../../../src/index.js';

const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const overlap = (q: Set<string>, text: string) => {
  let n = 0;
  for (const w of words(text)) if (q.has(w)) n++;
  return n;
};

export const toyRetriever = defineFirstStage({
  type: 'toy',
  schema: z.strictObject({ id: z.string().min(1), type: z.literal('toy'), top_k: z.number().int().positive().default(20), weight: z.number().positive().default(1) }),
  describe: (r) => `toy word overlap (weight=${r.weight}, top_k=${r.top_k})`,
  async run(_ctx, r, { docs, queries }) {
    const texts = [...docs.texts()];
    const run = new Map(
      queries.map((q) => {
        const qw = words(q.text);
        return [q.id, texts.map((t, i) => ({ docId: docs.ids[i]!, score: r.weight * overlap(qw, t) }))];
      }),
    );
    return { run, info: { type: 'toy', weight: r.weight, documents: texts.length } };
  },
  async explainScorer(_ctx, r, docs) {
    return {
      detail: `weight=${r.weight}`,
      scoreAll: async (texts) => texts.map((t) => docs.map((d) => r.weight * overlap(words(t), d.text))),
      scoreDocs: async (query, texts) => texts.map((t) => r.weight * overlap(words(query), t)),
    };
  },
});
