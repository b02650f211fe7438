/**
 * Reads a qrels file of either kind, told apart by its first non-blank character: `{` means
 * SkillRet JSONL (`{"query_id","skill_id","relevance"}` per line), anything else TREC
 * (`qid iter docid rel`). An empty file is an error (nothing to score against).
 */
import { UserError, where } from '../core/errors.js';
import type { Qrels } from '../core/types.js';
import { firstNonBlankChar } from './lines.js';
import { readTrecQrels } from './trec-qrels.js';

export type QrelsFileKind = 'trec' | 'jsonl';

/** Which reader a qrels file needs, from its first non-blank character; an empty file is an error. */
export async function detectQrelsFile(path: string): Promise<QrelsFileKind> {
  const c = await firstNonBlankChar(path);
  if (c === undefined) throw new UserError(`${where(path)}qrels file is empty`);
  return c === '{' ? 'jsonl' : 'trec';
}

export async function readQrelsFile(path: string): Promise<Qrels> {
  if ((await detectQrelsFile(path)) === 'trec') return readTrecQrels(path);
  // loaded only for JSONL qrels: scoring TREC files starts up without it
  const { readQrelsJsonl } = await import('./qrels-jsonl.js');
  return readQrelsJsonl(path);
}
