/**
 * Vectors in a Parquet file: an id column (strings) and a vector column (a list or fixed-size
 * list of floats), one row per vector, e.g. `pandas.DataFrame({"id": ids, "vector": list(x)})
 * .to_parquet(path)`. The checks (ids, one dimension, finite values) are vector-records.ts's, row
 * by row (0-based rows).
 *
 * Decoding Parquet itself needs a library: the seam is `ParquetColumnReader`, which returns the two
 * columns of a file. None is wired yet (the pure-JS reader `hyparquet` is not a dependency of this
 * build), so `parseVectorParquet` refuses a Parquet file in one line; tests pass their own reader.
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

/** The reader `type: embeddings` uses; undefined until a Parquet library is a dependency. */
export const PARQUET_READER: ParquetColumnReader | undefined = undefined;

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
