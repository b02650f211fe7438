/**
 * `type: embeddings`: dense retrieval over vectors a script already computed (src/retrieval/dense/
 * precomputed.ts), read from the files Python tools write (src/formats/vector-file.ts):
 *
 *   documents: { vectors: emb/skills.npy, ids: emb/skills.txt }          # .npy + ids file
 *   queries:   { vectors: emb/queries.safetensors, ids: emb/queries.txt } # .safetensors (+ tensor:)
 *   documents: { vectors: emb/skills.jsonl }                              # {"id", "vector"} lines
 *   documents: { vectors: emb/skills.parquet, id_column: id, vector_column: vector }
 *
 * The format comes from the extension (`format:` when it says nothing). `normalize` (default true)
 * brings vectors to unit length (cosine); `index` is the dense stage's (exact or HNSW, audited).
 * The files' SHA-256 go to the manifest with the stage info; same files → same results.
 */
import { z } from 'zod';
import { isUserError, UserError } from '../../core/errors.js';
import { defineFirstStage, type ConfigIssue } from '../../core/stages.js';
import {
  checkVectorSource,
  formatFromPath,
  NEEDS_IDS_FILE,
  VECTOR_EXTENSIONS,
  VECTOR_FORMATS,
  type VectorFormat,
  type VectorSource,
} from '../../formats/vector-file.js';
import { precomputedRetrieve } from '../../retrieval/dense/precomputed.js';
import { idSchema, posInt } from '../kind-config/config-parts.js';
import { describeIndex, indexSchema, indexSpecOf } from '../kind-config/index-config.js';

const sideSchema = z.strictObject({
  vectors: z.string().min(1),
  ids: z.string().min(1).optional(),
  format: z.enum(VECTOR_FORMATS).optional(),
  tensor: z.string().min(1).optional(),
  id_column: z.string().min(1).optional(),
  vector_column: z.string().min(1).optional(),
});

type SideConfig = z.output<typeof sideSchema>;

const schema = z.strictObject({
  id: idSchema,
  type: z.literal('embeddings'),
  documents: sideSchema,
  queries: sideSchema,
  normalize: z.boolean().default(true),
  extra_ids: z.enum(['error', 'ignore']).default('error'),
  index: indexSchema,
  threads: posInt.optional(),
  top_k: posInt.default(20),
});

type EmbeddingsConfig = z.output<typeof schema>;

const formatOf = (s: SideConfig): VectorFormat | undefined => s.format ?? formatFromPath(s.vectors);

/** Each side names its format (or has a known extension), an ids file exactly when the format needs one, and only its format's keys. */
function checkSide(s: SideConfig, key: 'documents' | 'queries', issue: ConfigIssue): void {
  const format = formatOf(s);
  if (format === undefined) {
    issue([key, 'vectors'], `cannot tell the format of "${s.vectors}" from its extension (${VECTOR_EXTENSIONS.join(', ')}): add format: ${VECTOR_FORMATS.join(' | ')}`);
    return;
  }
  const needsIds = NEEDS_IDS_FILE.includes(format);
  if (needsIds && s.ids === undefined) issue([key, 'ids'], `missing: ${format} files hold no ids; give a text file with one id per line, in row order`);
  if (!needsIds && s.ids !== undefined) issue([key, 'ids'], `${format} files carry their own ids (${format === 'jsonl' ? 'the "id" of each line' : 'the id column'}); remove ids`);
  if (s.tensor !== undefined && format !== 'safetensors') issue([key, 'tensor'], `applies to safetensors files only (this one is ${format})`);
  for (const k of ['id_column', 'vector_column'] as const) if (s[k] !== undefined && format !== 'parquet') issue([key, k], `applies to parquet files only (this one is ${format})`);
}

function sourceOf(s: SideConfig): VectorSource {
  const format = formatOf(s);
  if (format === undefined) throw new UserError(`${s.vectors}: unknown vector file format`);
  return {
    format,
    vectors: s.vectors,
    ...(s.ids !== undefined ? { ids: s.ids } : {}),
    ...(s.tensor !== undefined ? { tensor: s.tensor } : {}),
    ...(s.id_column !== undefined ? { idColumn: s.id_column } : {}),
    ...(s.vector_column !== undefined ? { vectorColumn: s.vector_column } : {}),
  };
}

function describeSide(s: SideConfig): string {
  const extra = [s.tensor !== undefined ? `tensor=${s.tensor}` : '', s.id_column !== undefined ? `id_column=${s.id_column}` : '', s.vector_column !== undefined ? `vector_column=${s.vector_column}` : '']
    .filter(Boolean)
    .join(', ');
  return `${s.vectors} (${formatOf(s) ?? '?'}${s.ids !== undefined ? ` + ids ${s.ids}` : ''}${extra ? `, ${extra}` : ''})`;
}

export const embeddingsRetriever = defineFirstStage({
  type: 'embeddings',
  schema,
  resolve(r, abs) {
    const side = (s: SideConfig): SideConfig => {
      const format = formatOf(s);
      return { ...s, vectors: abs(s.vectors), ...(s.ids !== undefined ? { ids: abs(s.ids) } : {}), ...(format !== undefined ? { format } : {}) };
    };
    return { ...r, documents: side(r.documents), queries: side(r.queries) };
  },
  check(r, _i, _all, issue) {
    checkSide(r.documents, 'documents', issue);
    checkSide(r.queries, 'queries', issue);
  },
  describe: (r: EmbeddingsConfig) =>
    `embeddings documents=${describeSide(r.documents)} queries=${describeSide(r.queries)} normalize=${r.normalize} extra_ids=${r.extra_ids} index=${describeIndex(r.index)} top_k=${r.top_k}${r.threads !== undefined ? ` threads=${r.threads}` : ''}`,
  resources(r, _rc, issue) {
    // The files exist and their headers are sound (cheap: no vector is read); one problem per side.
    const side = (key: 'documents' | 'queries') => {
      try {
        return checkVectorSource(sourceOf(r[key]));
      } catch (e) {
        if (!isUserError(e)) throw e;
        issue([key, 'vectors'], e.message);
        return undefined;
      }
    };
    const d = side('documents');
    const q = side('queries');
    if (d && q && d.dim !== q.dim)
      issue(['queries', 'vectors'], `${r.queries.vectors}: query vectors have dimension ${q.dim}, the document vectors of ${r.documents.vectors} ${d.dim} (both must come from one model)`);
  },
  async run(ctx, r, { docs, queries }) {
    const out = await precomputedRetrieve(
      ctx,
      {
        id: r.id,
        documents: sourceOf(r.documents),
        queries: sourceOf(r.queries),
        normalize: r.normalize,
        extraIds: r.extra_ids,
        topK: r.top_k,
        index: indexSpecOf(r.index),
        ...(r.threads !== undefined ? { threads: r.threads } : {}),
      },
      docs,
      queries,
    );
    return {
      run: out.run,
      ...(out.exactRun ? { exactRun: out.exactRun } : {}),
      info: { type: 'embeddings', ...out.info },
    };
  },
});
