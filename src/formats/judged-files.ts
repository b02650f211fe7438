/**
 * Reads a qrels file and a run file (either kind of each, see qrels-file.ts and run-file.ts) as one
 * `JudgedRun` (metrics/tables.ts) for `evaluateTables`. Two TREC files are read straight into
 * typed arrays with one doc-id interner (no object per line); any other pair goes through the Map
 * forms. The qrels file is read first, so its errors come first.
 */
import { type JudgedRun, qrelsFromTable, tablesFromMaps } from '../metrics/tables.js';
import { detectQrelsFile, readQrelsFile } from './qrels-file.js';
import { detectRunFile, readRunFile, type RunFileOptions } from './run-file.js';
import { ColumnInterner } from './trec-columns.js';
import { readTrecQrelsTable } from './trec-qrels.js';
import { readTrecRunTable } from './trec-run.js';

export async function readJudgedFiles(qrelsPath: string, runPath: string, opts: RunFileOptions = {}): Promise<JudgedRun> {
  if ((await detectQrelsFile(qrelsPath)) === 'jsonl') return tablesFromMaps(await readQrelsFile(qrelsPath), await readRunFile(runPath, opts));
  const docIds = new ColumnInterner();
  const qrels = await readTrecQrelsTable(qrelsPath, docIds);
  if ((await detectRunFile(runPath)) === 'trec') return { docIds: docIds.strings, qrels, run: await readTrecRunTable(runPath, docIds) };
  return tablesFromMaps(qrelsFromTable(qrels, docIds.strings), await readRunFile(runPath, opts));
}
