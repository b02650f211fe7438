/**
 * src/retrieval/dense/precomputed.ts on a toy corpus: vectors put in corpus and query order whatever
 * the file order, unit-length normalisation (`normalize: true` rescales only vectors that are not
 * unit length already, and says so in one line; `false` searches the inner product of the vectors as
 * written), `extra_ids: ignore`, and the plan line of the kind.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryDocStore } from '../src/data/doc-store.js';
import { parseConfig } from '../src/pipeline/config.js';
import { formatPlan } from '../src/pipeline/plan.js';
import { precomputedRetrieve, type PrecomputedSpec } from '../src/retrieval/dense/precomputed.js';
import { silentProgress } from '../src/util/progress.js';
import { userError } from './helpers/cli.js';
import { idsText, npyBytes, vectorJsonl } from './helpers/vector-files.js';

const dir = mkdtempSync(join(tmpdir(), 'emb-retrieve-'));
let n = 0;
function put(name: string, bytes: string | Uint8Array): string {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, bytes);
  return p;
}

const docs = new MemoryDocStore(['a', 'b', 'c', 'd'].map((id) => ({ id, text: '' })));
const queries = [{ id: 'q1' }, { id: 'q2' }];
// Unit vectors in 3-d; d is long (norm 10) but points where q1 looks.
const DOCS: Record<string, number[]> = { a: [1, 0, 0], b: [0, 1, 0], c: [0.6, 0.8, 0], d: [0, 0, 10] };
const QUERIES: Record<string, number[]> = { q1: [0, 0.6, 0.8], q2: [1, 0, 0] };

function spec(o: Partial<PrecomputedSpec> & { docOrder?: string[]; scale?: number } = {}): PrecomputedSpec {
  const order = o.docOrder ?? ['d', 'c', 'b', 'a'];
  return {
    id: 'e',
    documents: { format: 'npy', vectors: put('d.npy', npyBytes(order.map((id) => DOCS[id]!))), ids: put('d.txt', idsText(order)) },
    queries: { format: 'jsonl', vectors: put('q.jsonl', vectorJsonl(['q2', 'q1'], [QUERIES['q2']!, QUERIES['q1']!.map((x) => x * (o.scale ?? 1))])) },
    normalize: true,
    extraIds: 'error',
    topK: 4,
    index: { type: 'exact' },
    ...o,
  };
}
/** The documents with d written unit length. */
const unitDocs = () => ({ format: 'npy' as const, vectors: put('u.npy', npyBytes([[0, 0, 1], DOCS['c']!, DOCS['b']!, DOCS['a']!])), ids: put('u.txt', idsText(['d', 'c', 'b', 'a'])) });
const ctx = (logs: string[] = []) => ({ cacheDir: dir, useCache: false, offline: true, progress: silentProgress, log: (l: string) => logs.push(l) });
const ranking = (run: Map<string, { docId: string; score: number }[]>, q: string) => run.get(q)!.map((d) => d.docId);

describe('precomputed vectors', () => {
  it('normalize: true = cosine; only vectors that are not unit length are rescaled, and it is said in one line', async () => {
    const logs: string[] = [];
    const out = await precomputedRetrieve(ctx(logs), spec({ scale: 3 }), docs, queries);
    expect(ranking(out.run, 'q1')).toEqual(['d', 'b', 'c', 'a']);
    const scores = out.run.get('q1')!.map((d) => d.score);
    [0.8, 0.6, 0.48, 0].forEach((s, i) => expect(scores[i]).toBeCloseTo(s, 6));
    // The same ranking and scores as with unit vectors written (cosine ignores the length).
    expect((await precomputedRetrieve(ctx(), spec({ documents: unitDocs() }), docs, queries)).run.get('q1')!.map((d) => d.docId)).toEqual(['d', 'b', 'c', 'a']);
    expect(out.info.documents).toMatchObject({ notUnit: 1, normalized: 1, rows: 4, dims: 3, dtype: 'float32', format: 'npy' });
    expect(out.info.queries).toMatchObject({ notUnit: 1, normalized: 1, format: 'jsonl', dtype: 'json' });
    expect(logs).toEqual(['embeddings e: 1 of 4 document vectors and 1 of 2 query vectors were not unit length (|norm - 1| > 1e-6); normalised them (normalize: true)']);
  });

  it('normalize: false = inner product of the vectors as written', async () => {
    const logs: string[] = [];
    const out = await precomputedRetrieve(ctx(logs), spec({ normalize: false }), docs, queries);
    expect(out.run.get('q1')![0]).toEqual({ docId: 'd', score: 8 });
    expect(out.info.documents).toMatchObject({ notUnit: 1, normalized: 0 });
    expect(logs).toEqual([]);
  });

  it('the order of the file rows does not matter', async () => {
    const a = await precomputedRetrieve(ctx(), spec({ docOrder: ['a', 'b', 'c', 'd'] }), docs, queries);
    const b = await precomputedRetrieve(ctx(), spec({ docOrder: ['c', 'a', 'd', 'b'] }), docs, queries);
    expect(a.run).toEqual(b.run);
  });

  it('extra ids: refused by default, skipped and counted with ignore', async () => {
    const order = ['d', 'c', 'x', 'b', 'a'];
    const withExtra = (extraIds: 'error' | 'ignore') =>
      spec({ extraIds, documents: { format: 'npy', vectors: put('d.npy', npyBytes(order.map((id) => DOCS[id] ?? [1, 1, 1]))), ids: put('d.txt', idsText(order)) } });
    const s = withExtra('error');
    expect(await userError(precomputedRetrieve(ctx(), s, docs, queries))).toBe(
      `${s.documents.ids}:3: id "x" is not a skill of the corpus (set extra_ids: ignore to skip vectors the run does not use, e.g. of skills outside dataset.skill_filter)`,
    );
    const out = await precomputedRetrieve(ctx(), withExtra('ignore'), docs, queries);
    expect(out.info.documents.extraIgnored).toBe(1);
    expect(ranking(out.run, 'q2')).toEqual(['a', 'c', 'd', 'b']);
    const q = spec();
    expect(await userError(precomputedRetrieve(ctx(), q, docs, [...queries, { id: 'q3' }]))).toBe(`${q.queries.vectors}: no vector for query "q3" (1 of the 3 evaluated queries has none)`);
    expect(await userError(precomputedRetrieve(ctx(), spec(), docs, [{ id: 'q1' }]))).toMatch(/:1: id "q2" is not an evaluated query \(set extra_ids: ignore to skip vectors the run does not use, e\.g\. of queries without gold\)$/);
  });

  it('HNSW gives the exact run too, for the audit', async () => {
    const out = await precomputedRetrieve(ctx(), spec({ index: { type: 'hnsw', M: 8, efConstruction: 50, efSearch: 50, seed: 1 } }), docs, queries);
    expect(out.exactRun).toEqual(out.run);
    expect(out.info.index.type).toBe('hnsw');
  });

  it('run --dry-run describes the entry', () => {
    const c = parseConfig(
      `name: x
dataset: { path: /data }
retrievers:
  - id: e
    type: embeddings
    documents: { vectors: v/d.safetensors, ids: v/d.txt, tensor: emb }
    queries: { vectors: v/q.jsonl }
    index: { type: hnsw }
output: ./o
`,
      '/cfg/x.yaml',
    );
    expect(formatPlan(c, { cacheDir: '/c', offline: true, useCache: true })).toContain(
      '  - e: embeddings documents=/cfg/v/d.safetensors (safetensors + ids /cfg/v/d.txt, tensor=emb) queries=/cfg/v/q.jsonl (jsonl) normalize=true extra_ids=error index=hnsw(M=32, ef_construction=200, ef_search=200, seed=100) top_k=20\n',
    );
  });
});
