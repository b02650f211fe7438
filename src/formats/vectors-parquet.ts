/**
 * Vectors in a Parquet file: an id column (strings) and a vector column (a list or fixed-size
 * list of floats), one row per vector, e.g. `pandas.DataFrame({"id": ids, "vector": list(x)})
 * .to_parquet(path)`. The checks (ids, one dimension, finite values) are vector-records.ts's, row
 * by row (0-based rows).
 *
 * Decoding Parquet is hyparquet's (a pure-JS reader; loaded only when a Parquet file is read):
 * `hyparquetReader` reads the two columns, naming a missing one; PLAIN, dictionary and the snappy
 * codec pyarrow and pandas write by default are read. The seam `ParquetColumnReader` lets tests pass
 * their own reader. A FLOAT column is float32, a DOUBLE one float64 (then rounded to float32 like
 * every vector, see vector-records.ts).
 */
import { UserError } from '../core/errors.js';
import { VectorRecordsBuilder, type RecordVectors } from './vector-records.js';
import type { VectorDtype } from './vector-table.js';

/** Column names of the id and the vector. */
export interface ParquetColumnNames {
  id: string;
  vector: string;
}

/** The id and vector columns of every row of a Parquet file, in row order (a missing column: a UserError naming it). */
export type ParquetColumnReader = (bytes: Uint8Array, file: string, columns: ParquetColumnNames) => Promise<{ ids: readonly unknown[]; vectors: readonly unknown[]; dtype?: VectorDtype }>;

/** The two columns of a Parquet file, through hyparquet. */
export const hyparquetReader: ParquetColumnReader = async (bytes, file, columns) => {
  const { parquetMetadata, parquetReadObjects } = await import('hyparquet');
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let meta;
  try {
    meta = parquetMetadata(buffer);
  } catch (e) {
    throw new UserError(`${file}: not a Parquet file (${e instanceof Error ? e.message : String(e)})`);
  }
  // The top-level columns (children of the root) and where each starts in the flattened schema.
  const top: { name: string; at: number }[] = [];
  for (let i = 1; i < meta.schema.length; ) {
    top.push({ name: meta.schema[i]!.name, at: i });
    let pending = 1;
    while (pending > 0 && i < meta.schema.length) pending += (meta.schema[i++]!.num_children ?? 0) - 1;
  }
  for (const [key, name] of [['id_column', columns.id], ['vector_column', columns.vector]] as const) {
    if (!top.some((c) => c.name === name)) throw new UserError(`${file}: no column ${JSON.stringify(name)} (${key}; the file has ${top.map((c) => c.name).join(', ')})`);
  }
  // The leaf element of the vector column: FLOAT → float32, DOUBLE → float64.
  const vectorAt = top.find((c) => c.name === columns.vector)!.at;
  const leaf = meta.schema.slice(vectorAt).find((x) => x.type !== undefined);
  let rows: Record<string, unknown>[];
  try {
    rows = (await parquetReadObjects({ file: buffer, columns: [columns.id, columns.vector] })) as Record<string, unknown>[];
  } catch (e) {
    throw new UserError(`${file}: cannot read the Parquet columns (${e instanceof Error ? e.message : String(e)})`);
  }
  return {
    ids: rows.map((r) => r[columns.id]),
    vectors: rows.map((r) => r[columns.vector]),
    dtype: leaf?.type === 'DOUBLE' ? 'float64' : 'float32',
  };
};

/** The reader `type: embeddings` uses. */
export const PARQUET_READER: ParquetColumnReader | undefined = hyparquetReader;

/** Why Parquet cannot be read in this build, or null when it can. */
export function parquetUnavailable(file: string, read: ParquetColumnReader | undefined = PARQUET_READER): string | null {
  return read
    ? null
    : `${file}: reading Parquet needs the pure-JS Parquet reader hyparquet, which this build does not include yet: write the vectors as .npy, .safetensors or JSONL instead`;
}

export async function parseVectorParquet(
  bytes: Uint8Array,
  file: string,
  columns: ParquetColumnNames,
  read: ParquetColumnReader | undefined = PARQUET_READER,
): Promise<RecordVectors> {
  const problem = parquetUnavailable(file, read);
  if (problem !== null || !read) throw new UserError(problem!);
  const { ids, vectors, dtype } = await read(bytes, file, columns);
  if (ids.length !== vectors.length) throw new UserError(`${file}: ${ids.length} ids but ${vectors.length} vectors`);
  const b = new VectorRecordsBuilder(' (null)');
  for (let r = 0; r < ids.length; r++) b.add(`${file}: row ${r}: `, `row ${r}`, ids[r], vectors[r]);
  return b.finish(dtype ?? 'float32');
}
