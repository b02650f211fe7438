/** `type: bm25`: the official bm25s 0.3.3 baseline (src/retrieval/bm25/). */
import { z } from 'zod';
import { defineFirstStage } from '../../core/stages.js';
import { bm25Stage, loadBm25IndexCached } from '../../retrieval/bm25/stage.js';
import { bm25ScoresAll, bm25ScoreText } from '../../explain/bm25-scores.js';
import { idSchema, posInt } from '../kind-config/config-parts.js';
import { retrieverQuerySchema } from '../kind-config/query-config.js';

/** The protocol's parameters (bm25s 0.3.3 defaults). */
const PAPER_K1 = 1.5;
const PAPER_B = 0.75;

export const bm25Retriever = defineFirstStage({
  type: 'bm25',
  schema: z.strictObject({
    id: idSchema,
    type: z.literal('bm25'),
    top_k: posInt.default(20),
    k1: z.number().positive().default(PAPER_K1),
    b: z.number().min(0).max(1).default(PAPER_B),
    query: retrieverQuerySchema.optional(),
  }),
  describe: (r) => `bm25 (k1=${r.k1}, b=${r.b}, top_k=${r.top_k})`,
  paperCounterpart(r) {
    // The protocol's BM25 is bm25s 0.3.3 with its defaults.
    const deviations: string[] = [];
    if (r.k1 !== PAPER_K1) deviations.push(`k1 ${r.k1} (paper ${PAPER_K1})`);
    if (r.b !== PAPER_B) deviations.push(`b ${r.b} (paper ${PAPER_B})`);
    return { model: 'BM25', deviations };
  },
  async explainScorer(ctx, r, docs) {
    const index = loadBm25IndexCached(ctx, docs.map((d) => d.text), { k1: r.k1, b: r.b });
    return {
      detail: `k1=${r.k1}, b=${r.b}`,
      scoreAll: async (texts) => texts.map((t) => bm25ScoresAll(index, t)),
      scoreDocs: async (query, texts) => texts.map((t) => bm25ScoreText(index, query, t)),
    };
  },
  async run(ctx, r, { docs, queries }) {
    const out = await bm25Stage(ctx, { k1: r.k1, b: r.b, topK: r.top_k }, docs, queries.map((q) => ({ id: q.id, text: q.text })));
    return { run: out.run, info: { type: 'bm25', k1: r.k1, b: r.b, top_k: r.top_k, ...out.info } };
  },
});
