/**
 * Every cache kind under the cache root, with where its entries live: the one list `cache info`,
 * `cache prune` and the run's pre-flight check read. Each kind's entries are written and read
 * through the store (store.ts); the module that owns a kind gives it its format name
 * (`entryKind(CACHE_KINDS.x, 'x-v1')`) and bumps that name when its encoding changes.
 *
 * Layout: a flat kind keeps `<folder>/<key>.<ext>`; a grouped kind keeps
 * `<folder>/<group><suffix>/<key>.<ext>` (the embedding cache's chunks under their model settings'
 * key, the reranker score chunks under their scorer's key, the BM25 runs under their index key).
 * Folders are nested only where a kind lives inside another's folder (`bm25/by-corpus/`,
 * `tokens/by-corpus/`): a flat kind owns only the files directly in its folder, a grouped kind only
 * the files in its group folders, so no file belongs to two kinds.
 */

export interface CacheKindLayout {
  /** The kind's name: in `cache info`, `cache prune --kind`, and every damage report. */
  readonly name: string;
  /** Its folder under the cache root ('/'-separated). */
  readonly folder: string;
  /** The extension of its entry files. */
  readonly ext: string;
  /** Entries in group folders `<folder>/<group><suffix>/` instead of `<folder>/` itself. */
  readonly grouped?: { readonly suffix: string };
  /** The extension of a file another library writes beside each entry (`<key>.<companion>`), verified through the entry. */
  readonly companion?: string;
  /** One line for `cache info`. */
  readonly what: string;
}

/** A kind with the format name of its bodies (in every entry's header: another name is another format). */
export interface EntryKind extends CacheKindLayout {
  readonly format: string;
}

export function entryKind(layout: CacheKindLayout, format: string): EntryKind {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(format)) throw new Error(`cache kind ${layout.name}: bad format name ${JSON.stringify(format)}`);
  return { ...layout, format };
}

export const CACHE_KINDS = {
  skillsIndex: { name: 'skills-index', folder: 'skills-index', ext: 'json', what: 'what loading a skills file keeps (ids, labels, record offsets), by the file SHA-256' },
  fileSha256: { name: 'file-sha256', folder: 'file-sha256', ext: 'txt', what: 'SHA-256 of model and skills files, by path, size, mtime and inode' },
  bm25Index: { name: 'bm25-index', folder: 'bm25', ext: 'bin', what: 'BM25 indexes, by corpus text and parameters' },
  bm25Run: { name: 'bm25-run', folder: 'bm25', grouped: { suffix: '.runs' }, ext: 'json', what: 'BM25 hits of a query set and k, beside their index' },
  bm25Alias: { name: 'bm25-alias', folder: 'bm25/by-corpus', ext: 'key', what: 'BM25 index key of a corpus fingerprint (no text read to find it)' },
  tokens: { name: 'tokens', folder: 'tokens', ext: 'json', what: 'cl100k_base token counts of skill texts, by text' },
  tokensCorpus: { name: 'tokens-corpus', folder: 'tokens/by-corpus', ext: 'json', what: 'token counts of one corpus, skill by skill' },
  embeddings: { name: 'embeddings', folder: 'embeddings', grouped: { suffix: '' }, ext: 'bin', what: 'embedding vectors in chunks, by model settings and text' },
  embedderFacts: { name: 'embedder-facts', folder: 'embedder-facts', ext: 'json', what: "a local embedder's token limit, padding side, token frame, size" },
  denseSearch: { name: 'dense-search', folder: 'dense-search', ext: 'bin', what: 'exact top-k of a query set over document vectors' },
  denseStage: { name: 'dense-stage', folder: 'dense-stage', ext: 'json', what: 'the whole output of an exact dense stage over a skills file' },
  remote: { name: 'remote', folder: 'remote', ext: 'json', what: 'what each remote embedding server said it serves' },
  hnsw: { name: 'hnsw', folder: 'hnsw', ext: 'json', companion: 'bin', what: 'HNSW graphs (hnswlib files, each verified by its entry)' },
  rerank: { name: 'rerank', folder: 'rerank', grouped: { suffix: '' }, ext: 'jsonl', what: 'reranker scores in chunks, by scorer and pair' },
  reportSvg: { name: 'report-svg', folder: 'report-svg', ext: 'svg', what: "report.html's charts, by Vega-Lite specification" },
} as const satisfies Record<string, CacheKindLayout>;

/** Every kind of the store, in the order `cache info` lists them. */
export const STORE_KINDS: readonly CacheKindLayout[] = Object.values(CACHE_KINDS);

/** Downloads kept under the cache root (not store entries: each file is checked by its download). */
export const DOWNLOAD_FOLDERS: readonly { name: string; folder: string; what: string }[] = [
  { name: 'datasets', folder: 'datasets', what: 'dataset downloads (data fetch, dataset: { hub })' },
  { name: 'hf', folder: 'hf', what: 'model downloads from the hub' },
];

/** The results history (`leaderboard`, `history`): listed, pruned only when asked by name. */
export const HISTORY_FOLDER = { name: 'history', folder: 'history', what: 'the results history (SQLite), pruned only with --kind history' } as const;

/** Files of earlier layouts, counted with a kind so that `cache prune` clears them. */
export const LEGACY_FILES: readonly { kind: string; file: string }[] = [{ kind: 'file-sha256', file: 'file-sha256.json' }];

/** Every top-level folder the store and the downloads write (the run's pre-flight checks each). */
export function cacheSubfolders(): string[] {
  const tops = [...STORE_KINDS.map((k) => k.folder.split('/')[0]!), ...DOWNLOAD_FOLDERS.map((d) => d.folder)];
  return [...new Set(tops)];
}
