/**
 * The results history: every finished run, kept in an embedded SQLite database
 * (`<cache root>/history/results.sqlite`, through sql.js, SQLite compiled to WebAssembly: no native
 * build). Results folders stay the source of truth (`leaderboard --rebuild` recreates the store from
 * them); the store keeps what a leaderboard needs after the folders are gone: each run's metrics.json,
 * its per-query records, its per-category means and the facts of the experiment it came from.
 *
 * Schema version 1 (table `meta` holds `schema_version`; a store of another version is refused with
 * one line naming it). A run's per-query values are one row: its query ids and metric keys as JSON
 * and the values as a float64 blob (query-major), bit for bit what was measured, with the gold ids
 * and graded judgements the comparison checks; the rankings are not kept (about 0.5 MB per run of
 * 4,392 queries and 15 metrics). The whole database is read on open and written back atomically on save, under
 * a lock file beside it, so two runs finishing together do not lose each other's entries.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { UserError } from '../core/errors.js';
import type { PerQueryRecord } from '../formats/per-query-jsonl.js';
import { writeFileAtomicWith } from '../util/atomic.js';
import { cacheWriteFault } from '../cache/write-failures.js';
import { acquireLock } from '../util/folder-lock.js';

export const SCHEMA_VERSION = 1;
export const HISTORY_SUBFOLDER = 'history';
export const HISTORY_FILE = 'results.sqlite';
/** A store larger than this is refused (a stated bound on what is read into memory). */
export const MAX_STORE_BYTES = 2 ** 31;

/** One finished run as the store keeps it. */
export interface HistoryEntry {
  id: number;
  /** When its experiment finished (manifest.json `finished_at`). */
  finishedAt: string;
  experiment: string;
  retriever: string;
  reranker: string;
  /** The results folder it was read from or written to (absolute). */
  resultsDir: string;
  /** SHA-256 over the dataset files and the evaluation policy: runs with the same one are comparable. */
  dataset: string;
  /** The experiment config's resolved SHA-256. */
  config: string;
  tool: string;
  /** The models of its stages (first stage, reranker), as the manifest describes them. */
  models: Record<string, unknown>;
  tags: string[];
  /** Its metrics.json object. */
  metricsJson: Record<string, unknown>;
  /** Main metric per major category (breakdown.json), when the run has categories. */
  categories: Record<string, number>;
}

export type NewEntry = Omit<HistoryEntry, 'id'> & { records: ReadonlyMap<string, PerQueryRecord> };

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  finished_at TEXT NOT NULL,
  experiment TEXT NOT NULL,
  retriever TEXT NOT NULL,
  reranker TEXT NOT NULL,
  results_dir TEXT NOT NULL,
  dataset TEXT NOT NULL,
  config TEXT NOT NULL,
  tool TEXT NOT NULL,
  models TEXT NOT NULL,
  tags TEXT NOT NULL,
  metrics_json TEXT NOT NULL,
  categories TEXT NOT NULL,
  UNIQUE (results_dir, retriever, reranker, finished_at)
);
CREATE TABLE per_query (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  qids TEXT NOT NULL,
  keys TEXT NOT NULL,
  vals BLOB NOT NULL,
  gold TEXT NOT NULL,
  relevance TEXT NOT NULL
);
CREATE INDEX runs_dataset ON runs(dataset);
`;

let sqlJs: Promise<SqlJsStatic> | undefined;

function loadSqlJs(): Promise<SqlJsStatic> {
  // sql.js is CommonJS; its wasm file sits beside its entry point.
  const require = createRequire(import.meta.url);
  const init = require('sql.js') as (o?: { locateFile?: (f: string) => string }) => Promise<SqlJsStatic>;
  const dist = dirname(require.resolve('sql.js'));
  sqlJs ??= init({ locateFile: (f) => join(dist, f) });
  return sqlJs;
}

/** The store file under a cache root. */
export function historyFile(cacheDir: string): string {
  return join(cacheDir, HISTORY_SUBFOLDER, HISTORY_FILE);
}

const json = (v: unknown) => JSON.stringify(v);

function parse<T>(file: string, text: SqlValue, what: string): T {
  try {
    return JSON.parse(String(text)) as T;
  } catch {
    throw new UserError(`${file}: ${what}: not JSON (the store is damaged; \`leaderboard --rebuild\` recreates it from results folders)`);
  }
}

/** A run's per-query records packed for the store (see the module comment). */
function packRecords(records: ReadonlyMap<string, PerQueryRecord>): { qids: string[]; keys: string[]; vals: Uint8Array; gold: (string[] | null)[]; relevance: Record<string, Record<string, number>> } {
  const qids = [...records.keys()];
  const first = records.values().next();
  const keys = first.done ? [] : Object.keys(first.value.metrics);
  const vals = new Float64Array(qids.length * keys.length);
  const gold: (string[] | null)[] = [];
  const relevance = Object.create(null) as Record<string, Record<string, number>>;
  qids.forEach((q, i) => {
    const r = records.get(q)!;
    keys.forEach((k, j) => {
      const v = r.metrics[k];
      if (v === undefined) throw new Error(`history: query ${q} has no ${k} (its first query has)`);
      vals[i * keys.length + j] = v;
    });
    gold.push(r.gold ?? null);
    if (r.relevance) relevance[q] = r.relevance;
  });
  return { qids, keys, vals: new Uint8Array(vals.buffer), gold, relevance };
}

export class HistoryStore {
  private constructor(
    readonly file: string,
    private readonly db: Database,
  ) {}

  /** Opens the store at `file` (an empty one when it does not exist yet). */
  static async open(file: string): Promise<HistoryStore> {
    const SQL = await loadSqlJs();
    if (!existsSync(file)) {
      const db = new SQL.Database();
      db.run('PRAGMA foreign_keys = ON;');
      db.run(SCHEMA);
      db.run('INSERT INTO meta VALUES (?, ?)', ['schema_version', String(SCHEMA_VERSION)]);
      return new HistoryStore(file, db);
    }
    const st = statSync(file);
    if (!st.isFile()) throw new UserError(`${file}: the results history is not a file`);
    if (st.size > MAX_STORE_BYTES) throw new UserError(`${file}: the results history is ${st.size} bytes, more than the ${MAX_STORE_BYTES} this tool reads; move it away and \`leaderboard --rebuild\``);
    let db: Database;
    let version: string | undefined;
    try {
      db = new SQL.Database(readFileSync(file));
      version = String(db.exec("SELECT value FROM meta WHERE key = 'schema_version'")[0]?.values[0]?.[0] ?? '');
    } catch (e) {
      throw new UserError(`${file}: not a results history (${e instanceof Error ? e.message : String(e)}); move it away, or recreate it with \`leaderboard --rebuild\``);
    }
    if (version !== String(SCHEMA_VERSION)) throw new UserError(`${file}: results history of schema version ${version || '(none)'}, this tool reads version ${SCHEMA_VERSION}; recreate it with \`leaderboard --rebuild\``);
    db.run('PRAGMA foreign_keys = ON;');
    return new HistoryStore(file, db);
  }

  /**
   * Opens the store, lets `change` modify it and writes it back atomically, all under the store's
   * lock (a concurrent writer is waited for: each attempt 50 ms apart, up to `waitMs`).
   */
  static async update<T>(file: string, change: (s: HistoryStore) => T, waitMs = 10_000): Promise<T> {
    const lockFile = `${file}.lock`;
    mkdirSync(dirname(file), { recursive: true });
    const started = Date.now();
    for (;;) {
      const lock = acquireLock(lockFile, 'skillret-eval results history');
      if (lock.ok) {
        try {
          const s = await HistoryStore.open(file);
          const out = change(s);
          s.save();
          s.close();
          return out;
        } finally {
          lock.release();
        }
      }
      if (Date.now() - started > waitMs) throw new UserError(`${file}: the results history is locked by another process (${lock.reason}); remove ${lockFile} if that process is gone`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Adds runs; an entry already there (same results folder, run and finish time) is replaced. Returns their ids. */
  add(entries: readonly NewEntry[]): number[] {
    const ids: number[] = [];
    this.db.run('BEGIN');
    try {
      for (const e of entries) {
        this.db.run('DELETE FROM runs WHERE results_dir = ? AND retriever = ? AND reranker = ? AND finished_at = ?', [e.resultsDir, e.retriever, e.reranker, e.finishedAt]);
        this.db.run(
          'INSERT INTO runs (finished_at, experiment, retriever, reranker, results_dir, dataset, config, tool, models, tags, metrics_json, categories) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [e.finishedAt, e.experiment, e.retriever, e.reranker, e.resultsDir, e.dataset, e.config, e.tool, json(e.models), json(e.tags), json(e.metricsJson), json(e.categories)],
        );
        const id = Number(this.db.exec('SELECT last_insert_rowid()')[0]!.values[0]![0]);
        const packed = packRecords(e.records);
        this.db.run('INSERT INTO per_query (run_id, qids, keys, vals, gold, relevance) VALUES (?, ?, ?, ?, ?, ?)', [id, json(packed.qids), json(packed.keys), packed.vals, json(packed.gold), json(packed.relevance)]);
        ids.push(id);
      }
      this.db.run('COMMIT');
    } catch (err) {
      this.db.run('ROLLBACK');
      throw err;
    }
    return ids;
  }

  /** Every entry, oldest first (by finish time, then id). */
  list(): HistoryEntry[] {
    const res = this.db.exec('SELECT id, finished_at, experiment, retriever, reranker, results_dir, dataset, config, tool, models, tags, metrics_json, categories FROM runs ORDER BY finished_at, id');
    return (res[0]?.values ?? []).map((v) => ({
      id: Number(v[0]),
      finishedAt: String(v[1]),
      experiment: String(v[2]),
      retriever: String(v[3]),
      reranker: String(v[4]),
      resultsDir: String(v[5]),
      dataset: String(v[6]),
      config: String(v[7]),
      tool: String(v[8]),
      models: parse(this.file, v[9]!, `run ${String(v[0])} models`),
      tags: parse(this.file, v[10]!, `run ${String(v[0])} tags`),
      metricsJson: parse(this.file, v[11]!, `run ${String(v[0])} metrics`),
      categories: parse(this.file, v[12]!, `run ${String(v[0])} categories`),
    }));
  }

  /** The per-query records of entry `id`, in their order (metrics, gold and grades; no rankings). */
  records(id: number): { records: Map<string, PerQueryRecord>; line: Map<string, number> } {
    const row = this.db.exec('SELECT qids, keys, vals, gold, relevance FROM per_query WHERE run_id = ?', [id])[0]?.values[0];
    if (!row) return { records: new Map(), line: new Map() };
    const qids = parse<string[]>(this.file, row[0]!, `run ${id} query ids`);
    const keys = parse<string[]>(this.file, row[1]!, `run ${id} metric keys`);
    const blob = row[2] as Uint8Array;
    if (!(blob instanceof Uint8Array) || blob.byteLength !== qids.length * keys.length * 8) throw new UserError(`${this.file}: run ${id}: per-query values of ${blob?.byteLength ?? 0} bytes, expected ${qids.length * keys.length * 8} (the store is damaged; \`leaderboard --rebuild\` recreates it)`);
    const vals = new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
    const gold = parse<(string[] | null)[]>(this.file, row[3]!, `run ${id} gold`);
    const relevance = parse<Record<string, Record<string, number>>>(this.file, row[4]!, `run ${id} relevance`);
    const records = new Map<string, PerQueryRecord>();
    const line = new Map<string, number>();
    qids.forEach((q, i) => {
      const metrics = Object.create(null) as Record<string, number>;
      keys.forEach((k, j) => (metrics[k] = vals[i * keys.length + j]!));
      const rec: PerQueryRecord = { metrics };
      const g = gold[i];
      if (g) rec.gold = g;
      if (Object.hasOwn(relevance, q)) rec.relevance = relevance[q]!;
      records.set(q, rec);
      line.set(q, i + 1);
    });
    return { records, line };
  }

  /** Removes entries by id; returns the ids that were there. */
  remove(ids: readonly number[]): number[] {
    const there = new Set(this.list().map((e) => e.id));
    const gone = ids.filter((id) => there.has(id));
    for (const id of gone) {
      this.db.run('DELETE FROM per_query WHERE run_id = ?', [id]);
      this.db.run('DELETE FROM runs WHERE id = ?', [id]);
    }
    return gone;
  }

  /** Removes every entry. */
  clear(): void {
    this.db.run('DELETE FROM per_query');
    this.db.run('DELETE FROM runs');
  }

  save(): void {
    const bytes = Buffer.from(this.db.export());
    writeFileAtomicWith(this.file, (fd) => {
      cacheWriteFault();
      writeFileSync(fd, bytes);
    });
  }

  close(): void {
    this.db.close();
  }
}
