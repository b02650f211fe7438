/** `type: bm25`: the official bm25s 0.3.3 baseline (src/retrieval/bm25/). */
import { z } from 'zod';
import { defineFirstStage } from '../../core/stages.js';
import { bm25Stage } from '../../retrieval/bm25/stage.js';
import { idSchema, posInt } from '../kind-config/config-parts.js';
import { retrieverQuerySchema } from '../kind-config/query-config.js';

export const bm25Retriever = defineFirstStage({
  type: 'bm25',
  schema: z.strictObject({
    id: idSchema,
    type: z.literal('bm25'),
    top_k: posInt.default(20),
    k1: z.number().positive().default(1.5),
    b: z.number().min(0).max(1).default(0.75),
    query: retrieverQuerySchema.optional(),
  }),
  describe: (r) => `bm25 (k1=${r.k1}, b=${r.b}, top_k=${r.top_k})`,
  async run(ctx, r, { docs, queries }) {
    const out = await bm25Stage(ctx, { k1: r.k1, b: r.b, topK: r.top_k }, docs, queries.map((q) => ({ id: q.id, text: q.text })));
    return { run: out.run, info: { type: 'bm25', k1: r.k1, b: r.b, top_k: r.top_k, ...out.info } };
  },
});
