/**
 * The token-count worker thread (started by count-workers.ts): reads the SKILL.md texts of a set of
 * skill records from the skills file by their offsets (data/doc-store.ts, the loader's rules) and
 * counts their cl100k_base tokens (token-count.ts, the same function as in process). When the count
 * cache is on, it is first given the hashes the cache holds; it then hashes each text too
 * (token-cache.ts) and does not count a text whose hash the cache holds (count -1).
 */
import { parentPort } from 'node:worker_threads';
import type { DocSource } from '../core/stages.js';
import { isUserError } from '../core/errors.js';
import { openDocStore } from '../data/doc-store.js';
import { textHash } from './token-cache.js';
import { countTokens } from './token-count.js';

export type CountRequest =
  /** The cache is on and holds these hashes. */
  | { type: 'known'; id: number; hashes: string[] }
  /** Count the records of `source` (in file order). */
  | { type: 'count'; id: number; source: DocSource };

export type CountReply =
  | { id: number; error: string; user: boolean }
  | { id: number; counts: Int32Array; hashes: string[] | null };

let known: Set<string> | undefined;

function count(source: DocSource): { counts: Int32Array; hashes: string[] | null } {
  const n = source.ids.length;
  const counts = new Int32Array(n);
  const hashes: string[] | null = known ? new Array<string>(n) : null;
  let i = 0;
  for (const skill of openDocStore(source).skills()) {
    if (hashes) {
      const h = (hashes[i] = textHash(skill.skillMd));
      if (known!.has(h)) {
        counts[i++] = -1;
        continue;
      }
    }
    counts[i++] = countTokens(skill.skillMd);
  }
  return { counts, hashes };
}

parentPort?.on('message', (msg: CountRequest) => {
  try {
    if (msg.type === 'known') {
      known = new Set(msg.hashes);
      parentPort!.postMessage({ id: msg.id, counts: new Int32Array(0), hashes: null } satisfies CountReply);
      return;
    }
    const { counts, hashes } = count(msg.source);
    parentPort!.postMessage({ id: msg.id, counts, hashes } satisfies CountReply, [counts.buffer as ArrayBuffer]);
  } catch (e) {
    const error = isUserError(e) ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
    parentPort!.postMessage({ id: msg.id, error, user: isUserError(e) } satisfies CountReply);
  }
});
