/**
 * Reads a qrels file of either kind, told apart by its first non-blank character: `{` means
 * SkillRet JSONL (`{"query_id","skill_id","relevance"}` per line), anything else TREC
 * (`qid iter docid rel`). An empty file is an error (nothing to score against).
 */
import { UserError, where } from '../core/errors.js';
import type { Qrels } from '../core/types.js';
import { firstNonBlankChar } from './lines.js';
import { readQrelsJsonl } from './qrels-jsonl.js';
import { readTrecQrels } from './trec-qrels.js';

export async function readQrelsFile(path: string): Promise<Qrels> {
  const c = await firstNonBlankChar(path);
  if (c === undefined) throw new UserError(`${where(path)}qrels file is empty`);
  return c === '{' ? readQrelsJsonl(path) : readTrecQrels(path);
}
