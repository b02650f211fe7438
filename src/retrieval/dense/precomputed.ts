/**
 * Dense retrieval over vectors computed elsewhere (a Python script's .npy, .safetensors, JSONL or
 * Parquet files, src/formats/vector-file.ts): the document and query vectors are read and checked,
 * put in corpus and query order, optionally brought to unit length, and searched exactly like an
 * embedder's vectors (search.ts: exact inner product or HNSW with the exact top-k for the audit,
 * both through their caches, keyed by the vectors' bytes).
 *
 * Checks, each a one-line UserError naming the file (and line or row): every skill of the corpus
 * and every evaluated query has a vector; with `extraIds: 'error'` every vector's id is one of
 * them; documents and queries have one dimension. The readers check the rest (format, ids count,
 * duplicates, finite values).
 *
 * Normalisation (`normalize: true`, the default, for cosine similarity as sentence-transformers'
 * `normalize_embeddings`): a vector whose L2 norm differs from 1 by more than `UNIT_TOLERANCE` is
 * divided by max(norm, 1e-12) in float32 (pooling.ts's formula); one that is unit length already
 * is used bit for bit, so vectors a model normalised score exactly as that model's own search.
 * How many were rescaled is logged in one line and recorded in the stage info.
 */
import type { StageContext } from '../../core/context.js';
import { UserError } from '../../core/errors.js';
import type { DocStore } from '../../core/stages.js';
import type { Run } from '../../core/types.js';
import { readVectorSource, type FileDigest, type LoadedVectors, type VectorFormat, type VectorSource } from '../../formats/vector-file.js';
import type { VectorDtype } from '../../formats/vector-table.js';
import type { VectorMatrix } from './indexes/exact.js';
import { searchVectors, type IndexInfo, type IndexSpec } from './indexes/search.js';

/** |norm − 1| up to which a vector counts as unit length (float32 normalisation is within ~1e-7). */
export const UNIT_TOLERANCE = 1e-6;

export interface PrecomputedSpec {
  id: string;
  documents: VectorSource;
  queries: VectorSource;
  /** Bring every vector to unit length (cosine similarity); false: inner product of the vectors as written. */
  normalize: boolean;
  /** A vector whose id the run does not use (not in the corpus / not an evaluated query): refused, or skipped. */
  extraIds: 'error' | 'ignore';
  topK: number;
  index: IndexSpec;
  /** Threads of the exact search. */
  threads?: number;
}

export interface PrecomputedSideInfo {
  format: VectorFormat;
  vectors: FileDigest;
  ids: FileDigest | null;
  tensor?: string;
  dtype: VectorDtype;
  rows: number;
  dims: number;
  /** Vectors of ids the run does not use, skipped (`extra_ids: ignore`). */
  extraIgnored: number;
  /** Vectors whose norm was not within UNIT_TOLERANCE of 1, as read. */
  notUnit: number;
  /** Of those, rescaled to unit length (normalize: true). */
  normalized: number;
}

export interface PrecomputedInfo {
  id: string;
  documents: PrecomputedSideInfo;
  queries: PrecomputedSideInfo;
  dims: number;
  normalize: boolean;
  unitTolerance: number;
  topK: number;
  threads: number | null;
  timings: Record<string, number>;
  index: IndexInfo;
}

interface Role {
  /** `skill`, `query`. */
  one: string;
  /** `skills of the corpus`, `evaluated queries`. */
  all: string;
  /** What an unknown id is not. */
  notOne: string;
  /** Example of vectors the run does not use. */
  example: string;
}

const DOCUMENTS: Role = { one: 'skill', all: 'skills of the corpus', notOne: 'a skill of the corpus', example: 'skills outside dataset.skill_filter' };
const QUERIES: Role = { one: 'query', all: 'evaluated queries', notOne: 'an evaluated query', example: 'queries without gold' };

/**
 * The rows of `t` in the order of `wanted` (ids), as a float32 matrix (copied). A wanted id with
 * no vector is an error; so is a vector of an id not wanted, unless `extraIds` is `ignore`.
 */
export function alignVectors(t: LoadedVectors, wanted: readonly string[], role: Role, extraIds: 'error' | 'ignore'): { matrix: VectorMatrix; extra: number } {
  const rowOf = new Map<string, number>();
  t.ids.forEach((id, r) => rowOf.set(id, r));
  const missing = wanted.filter((id) => !rowOf.has(id));
  if (missing.length > 0)
    throw new UserError(`${t.idsFile}: no vector for ${role.one} ${JSON.stringify(missing[0])} (${missing.length} of the ${wanted.length} ${role.all} ${missing.length === 1 ? 'has' : 'have'} none)`);
  let extra = 0;
  if (t.rows > wanted.length || extraIds === 'error') {
    const want = new Set(wanted);
    for (let r = 0; r < t.rows; r++) {
      if (want.has(t.ids[r]!)) continue;
      if (extraIds === 'error')
        throw new UserError(
          `${t.idAt(r)}id ${JSON.stringify(t.ids[r])} is not ${role.notOne} (set extra_ids: ignore to skip vectors the run does not use, e.g. of ${role.example})`,
        );
      extra++;
    }
  }
  const d = t.dim;
  const data = new Float32Array(wanted.length * d);
  wanted.forEach((id, i) => {
    const r = rowOf.get(id)!;
    data.set(t.data.subarray(r * d, (r + 1) * d), i * d);
  });
  return { matrix: { data, rows: wanted.length, dim: d }, extra };
}

/** Rows whose L2 norm (double precision over the float32 values) is not within UNIT_TOLERANCE of 1. */
function notUnitRows(m: VectorMatrix): number[] {
  const out: number[] = [];
  for (let r = 0; r < m.rows; r++) {
    let ss = 0;
    const o = r * m.dim;
    for (let j = 0; j < m.dim; j++) ss += m.data[o + j]! * m.data[o + j]!;
    if (Math.abs(Math.sqrt(ss) - 1) > UNIT_TOLERANCE) out.push(r);
  }
  return out;
}

/** Divides each of `rows` of `m` by max(norm, 1e-12), in place (float32 results). */
export function unitRows(m: VectorMatrix, rows: readonly number[]): void {
  for (const r of rows) {
    const o = r * m.dim;
    let ss = 0;
    for (let j = 0; j < m.dim; j++) ss += m.data[o + j]! * m.data[o + j]!;
    const n = Math.max(Math.sqrt(ss), 1e-12);
    for (let j = 0; j < m.dim; j++) m.data[o + j] = m.data[o + j]! / n;
  }
}

function sideInfo(t: LoadedVectors, extra: number, notUnit: number, normalized: number): PrecomputedSideInfo {
  return {
    format: t.format,
    vectors: t.files.vectors,
    ids: t.files.ids,
    ...(t.tensor !== undefined ? { tensor: t.tensor } : {}),
    dtype: t.dtype,
    rows: t.rows,
    dims: t.dim,
    extraIgnored: extra,
    notUnit,
    normalized,
  };
}

export async function precomputedRetrieve(
  ctx: StageContext,
  spec: PrecomputedSpec,
  docs: DocStore,
  queries: readonly { id: string }[],
): Promise<{ run: Run; exactRun?: Run; info: PrecomputedInfo }> {
  const timings: Record<string, number> = {};
  const t0 = performance.now();
  const d = await readVectorSource(spec.documents);
  const q = await readVectorSource(spec.queries);
  const docIds = [...docs.ids];
  const queryIds = queries.map((x) => x.id);
  const D = alignVectors(d, docIds, DOCUMENTS, spec.extraIds);
  const Q = alignVectors(q, queryIds, QUERIES, spec.extraIds);
  if (d.dim !== q.dim)
    throw new UserError(`${spec.queries.vectors}: query vectors have dimension ${q.dim}, the document vectors of ${spec.documents.vectors} ${d.dim} (both must come from one model)`);
  timings['read'] = (performance.now() - t0) / 1000;

  const dNot = notUnitRows(D.matrix);
  const qNot = notUnitRows(Q.matrix);
  if (spec.normalize) {
    unitRows(D.matrix, dNot);
    unitRows(Q.matrix, qNot);
    if (dNot.length + qNot.length > 0)
      ctx.log(
        `embeddings ${spec.id}: ${dNot.length} of ${D.matrix.rows} document vectors and ${qNot.length} of ${Q.matrix.rows} query vectors were not unit length (|norm - 1| > 1e-6); normalised them (normalize: true)`,
      );
  }

  const found = await searchVectors(
    ctx,
    { topK: spec.topK, index: spec.index, ...(spec.threads !== undefined ? { threads: spec.threads } : {}) },
    D.matrix,
    docIds,
    Q.matrix,
    queryIds,
  );
  Object.assign(timings, found.timings);
  const info: PrecomputedInfo = {
    id: spec.id,
    documents: sideInfo(d, D.extra, dNot.length, spec.normalize ? dNot.length : 0),
    queries: sideInfo(q, Q.extra, qNot.length, spec.normalize ? qNot.length : 0),
    dims: d.dim,
    normalize: spec.normalize,
    unitTolerance: UNIT_TOLERANCE,
    topK: spec.topK,
    threads: spec.threads ?? null,
    timings,
    index: found.index,
  };
  return found.exactRun ? { run: found.run, exactRun: found.exactRun, info } : { run: found.run, info };
}
