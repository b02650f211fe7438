/**
 * One side (documents or queries) of precomputed vectors, in any of the formats Python tools write,
 * read into a checked `VectorTable`:
 *
 *   npy          `{vectors: x.npy, ids: x.txt}`: a 2-D float32/float16 array (npy.ts) + ids file
 *   safetensors  `{vectors: x.safetensors, ids: x.txt, tensor?}`: a 2-D F32/F16/BF16 tensor
 *                (safetensors.ts) + ids file (ids-file.ts: one id per line, in row order)
 *   jsonl        `{vectors: x.jsonl}`: `{"id", "vector"}` per line (vectors-jsonl.ts)
 *   parquet      `{vectors: x.parquet, id_column?, vector_column?}` (vectors-parquet.ts)
 *
 * Checks, each a one-line UserError naming the file and, where it applies, the line or row: the
 * format's own (magic, header, dtype, shape, truncation), as many ids as rows, no duplicate id,
 * every component finite. Every file read is hashed (SHA-256 of the bytes parsed), for the manifest.
 * `checkVectorSource` does the checks that need no more than the files' headers (pre-flight).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { UserError, where } from '../core/errors.js';
import { requireFile } from '../util/files.js';
import { parseIdsFile } from './ids-file.js';
import { parseNpy, readNpyHeader } from './npy.js';
import { parseSafetensors, readSafetensorsTensor } from './safetensors.js';
import { requireFinite, requireUniqueIds, type VectorRows, type VectorTable } from './vector-table.js';
import { parseVectorJsonl } from './vectors-jsonl.js';
import { parquetUnavailable, parseVectorParquet } from './vectors-parquet.js';
import type { RecordVectors } from './vector-records.js';

export const VECTOR_FORMATS = ['npy', 'safetensors', 'jsonl', 'parquet'] as const;
export type VectorFormat = (typeof VECTOR_FORMATS)[number];

/** Formats whose files hold no ids (a companion ids file gives them). */
export const NEEDS_IDS_FILE: readonly VectorFormat[] = ['npy', 'safetensors'];

const BY_EXTENSION: Record<string, VectorFormat> = {
  '.npy': 'npy',
  '.safetensors': 'safetensors',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.parquet': 'parquet',
  '.pq': 'parquet',
};

/** The format a file name's extension says, or undefined. */
export function formatFromPath(path: string): VectorFormat | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

export const VECTOR_EXTENSIONS = Object.keys(BY_EXTENSION);

/** Where one side's vectors are (paths absolute). */
export interface VectorSource {
  format: VectorFormat;
  vectors: string;
  /** The ids file (npy, safetensors). */
  ids?: string;
  /** safetensors: the tensor to read. */
  tensor?: string;
  /** parquet: column names (default `id`, `vector`). */
  idColumn?: string;
  vectorColumn?: string;
}

export interface FileDigest {
  path: string;
  bytes: number;
  sha256: string;
}

export interface LoadedVectors extends VectorTable {
  format: VectorFormat;
  /** `where()` prefix of the place row `r`'s id is written: its line of the ids file, or its record. */
  idAt(r: number): string;
  files: { vectors: FileDigest; ids: FileDigest | null };
  /** safetensors: the tensor read. */
  tensor?: string;
}

function readBytes(path: string): { bytes: Buffer; digest: FileDigest } {
  requireFile(path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${where(path)}cannot read file (${code ?? (e instanceof Error ? e.message : String(e))})`);
  }
  return { bytes, digest: { path, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } };
}

function needIds(src: VectorSource): string {
  if (src.ids === undefined) throw new UserError(`${src.vectors}: a .${src.format === 'npy' ? 'npy' : 'safetensors'} file holds no ids: give an ids file (one id per line, in row order)`);
  return src.ids;
}

/** Reads, hashes and checks one side's vectors. */
export async function readVectorSource(src: VectorSource): Promise<LoadedVectors> {
  const file = src.vectors;
  const v = readBytes(file);
  if (src.format === 'npy' || src.format === 'safetensors') {
    const idsPath = needIds(src);
    let rows: VectorRows;
    let tensor: string | undefined;
    if (src.format === 'npy') rows = parseNpy(v.bytes, file);
    else {
      const st = parseSafetensors(v.bytes, file, src.tensor);
      rows = st;
      tensor = st.tensor;
    }
    const idsRead = readBytes(idsPath);
    const ids = parseIdsFile(idsRead.bytes, idsPath);
    if (ids.length !== rows.rows)
      throw new UserError(`${idsPath}: ${ids.length} ids for the ${rows.rows} vector rows of ${file} (one id per line, in row order)`);
    requireUniqueIds(ids, (r) => where(idsPath, r + 1), (r) => `line ${r + 1}`);
    const at = (r: number) => `${file}: row ${r} (id ${JSON.stringify(ids[r])}): `;
    requireFinite(rows, at);
    return {
      data: rows.data,
      rows: rows.rows,
      dim: rows.dim,
      dtype: rows.dtype,
      ids,
      at,
      idAt: (r) => where(idsPath, r + 1),
      idsFile: idsPath,
      format: src.format,
      files: { vectors: v.digest, ids: idsRead.digest },
      ...(tensor !== undefined ? { tensor } : {}),
    };
  }
  let rec: RecordVectors;
  if (src.format === 'jsonl') rec = parseVectorJsonl(v.bytes, file);
  else rec = await parseVectorParquet(v.bytes, file, { id: src.idColumn ?? 'id', vector: src.vectorColumn ?? 'vector' });
  requireUniqueIds(rec.ids, (r) => rec.locations[r]!, (r) => rec.labels[r]!);
  return { data: rec.data, rows: rec.rows, dim: rec.dim, dtype: rec.dtype, ids: rec.ids, at: (r) => rec.locations[r]!, idAt: (r) => rec.locations[r]!, idsFile: file, format: src.format, files: { vectors: v.digest, ids: null } };
}

/**
 * The checks that read no more than headers: the files exist; a .npy or .safetensors header is
 * sound (dtype, 2-D shape, the file as long as the array); Parquet can be read in this build.
 * Returns the (rows, dim) a header announces, when it does.
 */
export function checkVectorSource(src: VectorSource): { rows: number; dim: number } | null {
  requireFile(src.vectors);
  if (src.format === 'npy' || src.format === 'safetensors') {
    requireFile(needIds(src));
    const h = src.format === 'npy' ? readNpyHeader(src.vectors) : readSafetensorsTensor(src.vectors, src.tensor);
    return { rows: h.rows, dim: h.dim };
  }
  if (src.format === 'parquet') {
    const problem = parquetUnavailable(src.vectors);
    if (problem !== null) throw new UserError(problem);
  }
  return null;
}
