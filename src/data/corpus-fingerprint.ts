/**
 * The corpus fingerprint of a file-backed document store (doc-store.ts): a key for "the same
 * document texts" that reads no text, so a warm rerun can find what a stage computed over this
 * corpus (the dense stage cache, BM25's index key) without reading or hashing every document.
 *
 * It is a key of the cache's one scheme (cache/key.ts) over the SHA-256 of the skills file (through
 * the file hash memo, by path, size, mtime and inode: cache/file-sha256.ts), the record offsets and
 * lengths (as bytes), the document ids, the SKILL.md field, the text fields and separator, and
 * `DOC_TEXT_RULES` (the rules that turn a record into a document
 * text; bump it when data/skill-record.ts or data/text.ts change what they give,
 * test/dense-stage-cache.test.ts pins them). A store without a file, or whose file changed since
 * the dataset was loaded, has no fingerprint (null): the caller falls back to hashing the texts.
 */
import { statSync } from 'node:fs';
import type { DocStore } from '../core/stages.js';
import { fileSha256 } from '../cache/file-sha256.js';
import { cacheKey, strings } from '../cache/key.js';
import type { CacheStore } from '../cache/store.js';

const FORMAT = 'corpus-fingerprint-v2';
/** The rules that make a document text from a skills-file record (data/skill-record.ts, data/text.ts). */
export const DOC_TEXT_RULES = 'skill-record-v1 text-fields-v1';

/** The corpus fingerprint of a file-backed store (see above), or null. */
export async function corpusFingerprint(store: DocStore, hashes: CacheStore | undefined): Promise<string | null> {
  const s = store.source;
  if (!s) return null;
  let st;
  try {
    st = statSync(s.path);
  } catch {
    return null;
  }
  if (st.size !== s.bytes || st.mtimeMs !== s.mtimeMs) return null;
  const file = await fileSha256(s.path, hashes);
  return cacheKey(FORMAT, [DOC_TEXT_RULES, file, { skillMdField: s.skillMdField, fields: s.fields, separator: s.separator }, strings(s.ids), s.offsets, s.lengths]);
}
