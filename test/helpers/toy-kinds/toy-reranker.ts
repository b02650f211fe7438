/**
 * A toy reranker kind, defined outside src/ as a plugin would be: `type: toy-rr` scores a (query,
 * document) pair by the share of query words in the document. One file: its schema, plan line and
 * loader.
 */
import { z } from 'zod';
import { defineReranker } from '../../../src/index.js';

const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9]+/g) ?? []);

export const toyReranker = defineReranker({
  type: 'toy-rr',
  schema: z.strictObject({ id: z.string().min(1), type: z.literal('toy-rr'), depth: z.number().int().positive().default(10), oracle: z.boolean().default(false) }),
  describe: (r) => `toy-rr share of query words depth=${r.depth}`,
  async load() {
    let pairs = 0;
    return {
      describe: () => ({ scorer: 'toy-rr' }),
      async score(ps, onProgress) {
        pairs += ps.length;
        onProgress?.(ps.length);
        return ps.map(({ query, doc }) => {
          const q = words(query);
          const d = words(doc);
          let n = 0;
          for (const w of q) if (d.has(w)) n++;
          return q.size ? n / q.size : 0;
        });
      },
      stats: () => ({ pairs, truncatedPairs: 0, cachedPairs: 0 }),
    };
  },
});
