/**
 * Builds a vector table from records that carry their own id and vector (JSONL lines, Parquet
 * rows): each record's id must be a non-empty string and its vector a list of finite numbers, all
 * of one length. Values are rounded to float32 (`Math.fround`: a float32 value written out by
 * Python as a decimal comes back as the same float32). Problems are one-line UserErrors at the
 * record's location (`file:line: ` or `file: row r: `).
 */
import { UserError } from '../core/errors.js';
import type { VectorDtype } from './vector-table.js';

export interface RecordVectors {
  ids: string[];
  data: Float32Array;
  rows: number;
  dim: number;
  dtype: VectorDtype;
  /** Location prefix of each row (`file:line: `). */
  locations: string[];
  /** Each row's place in words (`line 3`, `row 2`), for "also at" in messages. */
  labels: string[];
}

export class VectorRecordsBuilder {
  private data = new Float32Array(1024);
  private dim = -1;
  private firstAt = '';
  readonly ids: string[] = [];
  readonly locations: string[] = [];
  readonly labels: string[] = [];

  /** `nonFiniteNote`: what a null component means here (JSON: NaN/Infinity written by Python). */
  constructor(private readonly nonFiniteNote = '') {}

  /** Adds one record found at `at` (a `where()` prefix), `label` its place in words (`line 3`). */
  add(at: string, label: string, id: unknown, vector: unknown): void {
    if (typeof id !== 'string' || id === '') throw new UserError(`${at}"id" must be a non-empty string, got ${describe(id)}`);
    if (vector === undefined) throw new UserError(`${at}no "vector"`);
    if (!isListLike(vector)) throw new UserError(`${at}"vector" must be a list of numbers, got ${describe(vector)}`);
    const n = vector.length;
    if (this.dim < 0) {
      this.dim = n;
      this.firstAt = at;
    } else if (n !== this.dim) throw new UserError(`${at}vector of ${n} components, the first one (${this.firstAt.replace(/: $/, '')}) has ${this.dim}`);
    if (n === 0) throw new UserError(`${at}empty vector`);
    const row = this.ids.length;
    const need = (row + 1) * n;
    if (need > this.data.length) {
      const grown = new Float32Array(Math.max(need, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    const o = row * n;
    for (let j = 0; j < n; j++) {
      const v = vector[j];
      if (typeof v !== 'number') {
        const note = v === null ? this.nonFiniteNote : '';
        throw new UserError(`${at}component ${j} of "vector" is ${describe(v)}${note} (every vector component must be a finite number)`);
      }
      const f = Math.fround(v);
      if (!Number.isFinite(f)) {
        const what = Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? `${v}, beyond the float32 range` : v > 0 ? 'Infinity' : '-Infinity';
        throw new UserError(`${at}component ${j} of "vector" is ${what} (every vector component must be a finite number)`);
      }
      this.data[o + j] = f;
    }
    this.ids.push(id);
    this.locations.push(at);
    this.labels.push(label);
  }

  finish(dtype: VectorDtype): RecordVectors {
    const rows = this.ids.length;
    const dim = Math.max(this.dim, 0);
    return { ids: this.ids, data: this.data.slice(0, rows * dim), rows, dim, dtype, locations: this.locations, labels: this.labels };
  }
}

function isListLike(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 30 ? v.slice(0, 30) + '…' : v)}`;
  return `${typeof v} ${String(v)}`;
}
