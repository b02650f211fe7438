/**
 * What the vector-file readers (npy.ts, safetensors.ts, vectors-jsonl.ts, vectors-parquet.ts,
 * vector-file.ts) return: a row-major float32 matrix as the file stores it (float16 and bfloat16
 * decoded exactly), and, once ids are attached, where each row came from for one-line messages.
 */
import { UserError } from '../core/errors.js';

export type VectorDtype = 'float32' | 'float16' | 'bfloat16' | 'float64' | 'json';

/** Vectors as stored, converted to float32: row r = data[r*dim .. (r+1)*dim). */
export interface VectorRows {
  data: Float32Array;
  rows: number;
  dim: number;
  /** The element type the file stores (`float64`, `json`: numbers rounded to float32 as read). */
  dtype: VectorDtype;
}

/** Vectors with their ids (row order) and the location of each row, for messages. */
export interface VectorTable extends VectorRows {
  ids: string[];
  /** `where()`-style prefix naming the file and the row (or line) of row `r`, e.g. `docs.npy: row 3 (id "x"): `. */
  at(r: number): string;
  /** The file the ids come from (the ids file of a .npy/.safetensors, else the vectors file). */
  idsFile: string;
}

/** Describes a non-finite float for messages. */
function nonFiniteName(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

/** Throws a one-line UserError at the first NaN or ±Infinity (row-major order), located by `at`. */
export function requireFinite(t: VectorRows, at: (r: number) => string): void {
  const { data, rows, dim } = t;
  for (let r = 0; r < rows; r++) {
    const o = r * dim;
    for (let j = 0; j < dim; j++) {
      const v = data[o + j]!;
      if (v - v !== 0) throw new UserError(`${at(r)}component ${j} is ${nonFiniteName(v)} (every vector component must be a finite number)`);
    }
  }
}

/** The same ids in a Map id → first row, or a one-line UserError at the first repeated id. */
export function requireUniqueIds(ids: readonly string[], at: (r: number) => string, rowName: (r: number) => string): Map<string, number> {
  const seen = new Map<string, number>();
  ids.forEach((id, r) => {
    const first = seen.get(id);
    if (first !== undefined) throw new UserError(`${at(r)}duplicate id ${JSON.stringify(id)} (also ${rowName(first)})`);
    seen.set(id, r);
  });
  return seen;
}
