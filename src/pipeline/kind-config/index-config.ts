/**
 * The `index:` option of a vector first stage (dense, embeddings): exact inner product, or an HNSW
 * graph audited against the exact top-k (src/retrieval/dense/indexes/search.ts).
 *
 *   index: { type: exact }
 *   index: { type: hnsw, M: 32, ef_construction: 200, ef_search: 200, seed: 100 }
 */
import { z } from 'zod';
import type { IndexSpec } from '../../retrieval/dense/indexes/search.js';

const posInt = z.number().int().min(1);

const hnswSchema = z.strictObject({
  type: z.literal('hnsw'),
  M: posInt.default(32),
  ef_construction: posInt.default(200),
  ef_search: posInt.default(200),
  seed: z.number().int().min(0).default(100),
});
const exactSchema = z.strictObject({ type: z.literal('exact') });

/** The `index:` key, default exact. */
export const indexSchema = z.discriminatedUnion('type', [hnswSchema, exactSchema]).default({ type: 'exact' });

export type IndexConfig = z.output<typeof indexSchema>;

/** The `index:` mapping as src/retrieval/dense/ takes it. */
export function indexSpecOf(index: IndexConfig): IndexSpec {
  return index.type === 'hnsw'
    ? { type: 'hnsw', M: index.M, efConstruction: index.ef_construction, efSearch: index.ef_search, seed: index.seed }
    : { type: 'exact' };
}

/** The index in a plan line: `exact` or `hnsw(M=…, ef_construction=…, ef_search=…, seed=…)`. */
export function describeIndex(index: IndexConfig): string {
  return index.type === 'hnsw' ? `hnsw(M=${index.M}, ef_construction=${index.ef_construction}, ef_search=${index.ef_search}, seed=${index.seed})` : 'exact';
}
