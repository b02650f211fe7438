/**
 * Finds and reads finished runs from the paths a user names: whole results folders (every run its
 * manifest.json lists, or every `<retriever>/<reranker>/per-query.jsonl` below it without one), run
 * folders (holding per-query.jsonl) and per-query.jsonl files themselves. Reads results files only.
 *
 * Each run gets a label: `<retriever>/<reranker>` (from its metrics.json, else its folder names);
 * when two runs share one, `<experiment>: <retriever>/<reranker>`; when that still collides, the path
 * of its per-query.jsonl.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { UserError } from '../core/errors.js';
import { PER_QUERY_FILE as PER_QUERY, readPerQueryRecords, type PerQueryRecords } from './per-query-jsonl.js';

export const METRICS = 'metrics.json';
export const MANIFEST = 'manifest.json';

export interface RunFolder extends PerQueryRecords {
  /** The run's folder (the per-query.jsonl's folder). */
  dir: string;
  label: string;
  retriever?: string;
  reranker?: string;
  experiment?: string;
  /** Its metrics.json, when present. */
  metricsJson?: Record<string, unknown>;
  /** The results folder it was found in, when named as one. */
  resultsDir?: string;
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let v: unknown;
  try {
    v = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UserError(`${file}: cannot read as JSON (${(e as Error).message.replace(/\s+/g, ' ')})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UserError(`${file}: expected a JSON object`);
  return v as Record<string, unknown>;
}

export async function readManifest(dir: string): Promise<Record<string, unknown> | undefined> {
  const f = join(dir, MANIFEST);
  return existsSync(f) ? readJsonObject(f) : undefined;
}

/** stat that answers undefined for anything that is not there, also below a file (ENOTDIR). */
function statOf(p: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
const isDir = (p: string) => statOf(p)?.isDirectory() === true;
const isFile = (p: string) => statOf(p)?.isFile() === true;
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The per-query.jsonl files a path stands for, with the results folder when it is one. */
async function runFilesOf(path: string): Promise<{ files: string[]; resultsDir?: string }> {
  const s = statOf(path);
  if (s === undefined) throw new UserError(`${path}: no such results folder, run folder or file`);
  if (s.isFile()) return { files: [path] };
  if (!s.isDirectory()) throw new UserError(`${path}: not a results folder, run folder or per-query.jsonl (a device, FIFO or socket)`);
  if (isFile(join(path, PER_QUERY))) return { files: [join(path, PER_QUERY)] };
  const manifest = await readManifest(path);
  if (manifest !== undefined) {
    const runs = manifest.runs;
    if (!Array.isArray(runs)) throw new UserError(`${join(path, MANIFEST)}: runs: expected an array`);
    const files = runs.map((r, i) => {
      const d = (r as { dir?: unknown } | null)?.dir;
      if (typeof d !== 'string' || d === '') throw new UserError(`${join(path, MANIFEST)}: runs[${i}].dir: expected a folder name`);
      const f = join(path, d, PER_QUERY);
      if (!isFile(f)) throw new UserError(`${f}: not found (listed in ${join(path, MANIFEST)} runs[${i}])`);
      return f;
    });
    if (files.length === 0) throw new UserError(`${join(path, MANIFEST)}: runs: no runs listed`);
    return { files, resultsDir: path };
  }
  const list = (dir: string): string[] => {
    try {
      return readdirSync(dir).sort(byteOrder);
    } catch (e) {
      throw new UserError(`${dir}: cannot list the folder (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  };
  const files: string[] = [];
  for (const a of list(path)) {
    if (!isDir(join(path, a))) continue;
    // A retriever's folder: its runs are one level down.
    if (isFile(join(path, a, PER_QUERY))) {
      files.push(join(path, a, PER_QUERY));
      continue;
    }
    for (const b of list(join(path, a))) if (isFile(join(path, a, b, PER_QUERY))) files.push(join(path, a, b, PER_QUERY));
  }
  if (files.length === 0) throw new UserError(`${path}: no runs here (expected ${PER_QUERY} in it, or a results folder written by skillret-eval run)`);
  return { files, resultsDir: path };
}

async function readRun(file: string, resultsDir: string | undefined): Promise<RunFolder> {
  const pq = await readPerQueryRecords(file);
  const dir = dirname(file);
  const mj = isFile(join(dir, METRICS)) ? await readJsonObject(join(dir, METRICS)) : undefined;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const retriever = str(mj?.retriever) ?? (resultsDir !== undefined ? basename(dirname(dir)) : undefined);
  const reranker = str(mj?.reranker) ?? (resultsDir !== undefined ? basename(dir) : undefined);
  const experiment = str(mj?.experiment);
  const label = retriever !== undefined && reranker !== undefined ? `${retriever}/${reranker}` : relative('.', file) || file;
  return {
    ...pq,
    dir,
    label,
    ...(retriever !== undefined ? { retriever } : {}),
    ...(reranker !== undefined ? { reranker } : {}),
    ...(experiment !== undefined ? { experiment } : {}),
    ...(mj !== undefined ? { metricsJson: mj } : {}),
    ...(resultsDir !== undefined ? { resultsDir } : {}),
  };
}

function disambiguate(runs: RunFolder[]): void {
  const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  let c = count(runs.map((r) => r.label));
  for (const r of runs) if (c.get(r.label)! > 1 && r.experiment !== undefined) r.label = `${r.experiment}: ${r.label}`;
  c = count(runs.map((r) => r.label));
  for (const r of runs) if (c.get(r.label)! > 1) r.label = r.file;
}

/**
 * Every run the paths stand for, in argument order (a results folder's runs in manifest order).
 * The same per-query.jsonl named twice is a UserError.
 */
export async function collectRuns(paths: readonly string[]): Promise<RunFolder[]> {
  if (paths.length === 0) throw new UserError('compare: name at least one results folder or run folder');
  const runs: RunFolder[] = [];
  const seen = new Map<string, string>();
  for (const p of paths) {
    const { files, resultsDir } = await runFilesOf(p);
    for (const f of files) {
      const key = relative('.', f);
      if (seen.has(key)) throw new UserError(`${p}: names ${f} a second time (already from ${seen.get(key)})`);
      seen.set(key, p);
      runs.push(await readRun(f, resultsDir));
    }
  }
  disambiguate(runs);
  return runs;
}
