/**
 * Reads a run file of either kind, told apart by its first non-blank character: `{` means the
 * official JSON (a run dict or a result file, see official-json.ts), anything else a TREC run
 * (see trec-run.ts). An empty or blank file is an empty TREC run (no queries).
 */
import type { Run } from '../core/types.js';
import { firstNonBlankChar } from './lines.js';
import { readTrecRun } from './trec-run.js';

export interface RunFileOptions {
  /** Split to read from an official result file (default `test`). */
  split?: string;
}

export type RunFileKind = 'trec' | 'json';

/** Which reader a file needs, from its first non-blank character. */
export async function detectRunFile(path: string): Promise<RunFileKind> {
  return (await firstNonBlankChar(path)) === '{' ? 'json' : 'trec';
}

export async function readRunFile(path: string, opts: RunFileOptions = {}): Promise<Run> {
  if ((await detectRunFile(path)) === 'trec') return readTrecRun(path);
  // loaded only for JSON runs: scoring a TREC run starts up without it
  const { readOfficialJson } = await import('./official-json.js');
  return readOfficialJson(path, opts);
}
