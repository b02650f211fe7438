/**
 * A single SkillRet-style qrels JSONL file: one `{"query_id", "skill_id", "relevance"}` object per
 * non-blank line (the dataset loader, src/data/dataset.ts, owns whole dataset folders). Ids must be
 * non-empty strings, relevance an integer; the same (query_id, skill_id) twice is an error naming
 * both lines. Queries keep their first-appearance order.
 */
import { UserError, where } from '../core/errors.js';
import type { Qrels } from '../core/types.js';
import { requireId, requireInteger } from '../data/fields.js';
import { readJsonlFile } from '../data/jsonl.js';

export async function readQrelsJsonl(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  const lines = new Map<string, Map<string, number>>();
  await readJsonlFile(path, (rec, line) => {
    const at = { file: path, line };
    const qid = requireId(rec, 'query_id', at);
    const docId = requireId(rec, 'skill_id', at);
    const rel = requireInteger(rec, 'relevance', at);
    let judged = qrels.get(qid);
    let seen = lines.get(qid);
    if (judged === undefined || seen === undefined) {
      judged = new Map();
      seen = new Map();
      qrels.set(qid, judged);
      lines.set(qid, seen);
    }
    const first = seen.get(docId);
    if (first !== undefined) {
      throw new UserError(`${where(path, line, 'skill_id')}${JSON.stringify(docId)} judged twice for query ${JSON.stringify(qid)} (first at line ${first})`);
    }
    seen.set(docId, line);
    judged.set(docId, rel === 0 ? 0 : rel);
  });
  return qrels;
}
