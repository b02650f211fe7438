/**
 * The completion marker of a converted model folder (the bundled GloVe and Universal Sentence
 * Encoder Lite models): a JSON file written last, after every other file, naming the model, the
 * converter version and the source, and listing each file's size and SHA-256. A folder counts as
 * built only when its marker names the expected model and the current converter version (an older
 * converter's folder is rebuilt) and its ONNX file is there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeJsonAtomic } from '../util/atomic.js';
import { sha256Hex } from '../util/hash.js';

/** What a converter records about its model; `files` is added by `writeCompletionMarker`. */
export interface MarkerFields {
  name: string;
  converter_version: number;
  source: string;
  /** Converter-specific fields (e.g. the GloVe word count), after the common ones. */
  [extra: string]: string | number;
}

/** Every file under `dir`, recursively, sorted. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out.sort();
}

/**
 * Writes `<dir>/<markerFile>`: `fields` (in their order), then `files` (relative path → bytes and
 * sha256 of every file already in the folder). Returns the folder's size in bytes, marker included.
 */
export function writeCompletionMarker(dir: string, markerFile: string, fields: MarkerFields): number {
  const files: Record<string, { bytes: number; sha256: string }> = {};
  let total = 0;
  for (const f of listFiles(dir)) {
    const data = readFileSync(f);
    total += data.length;
    files[relative(dir, f).split('\\').join('/')] = { bytes: data.length, sha256: sha256Hex(data) };
  }
  writeJsonAtomic(join(dir, markerFile), { ...fields, files });
  return total + statSync(join(dir, markerFile)).size;
}

/** true when `dir` holds a complete model `name` written by converter version `version`. */
export function markedComplete(dir: string, markerFile: string, name: string, version: number): boolean {
  const p = join(dir, markerFile);
  if (!existsSync(p)) return false;
  try {
    const m = JSON.parse(readFileSync(p, 'utf8')) as Partial<MarkerFields>;
    return m.name === name && m.converter_version === version && existsSync(join(dir, 'onnx', 'model.onnx'));
  } catch {
    return false;
  }
}
