/**
 * `explain`: where the signal is, for the queries of one finished run. Re-scores only what it
 * needs, with the run's own stage loaded from the caches (BM25 index, embeddings, reranker
 * scores; never the experiment): sentence erasure, document-field variants and concentration
 * (src/explain/) for each chosen query and gold skill.
 *
 * Scorers and their candidates (what a rank is taken among):
 * - `<first stage>/none`: every corpus document, scored by the first stage's kind
 *   (`explainScorer` of src/pipeline/retrievers/: bm25 with its index, a local dense model by inner
 *   product with the cached corpus vectors);
 * - `<retriever>/<reranker>`: the query's reranked pool (the documents of the run's list), every
 *   (text, candidate) pair scored by the reranker through its score cache.
 * Runs with a query strategy, fusions, saved runs and remote first stages are not explained.
 *
 * Query selection: `queries` (ids), `failed` (Completeness@10 = 0 in the run's per-query.jsonl;
 * the smallest configured k when 10 is not), `hurt` (a reranked run's `vs_none` NDCG@10 < 0),
 * `sample` N (the N queries with the smallest sha256(seed, id): deterministic, order-free); none of
 * them: every query. At most `maxQueries`, in dataset order.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import type { Query, Skill } from '../core/types.js';
import type { Dataset } from '../data/dataset.js';
import { buildDocumentText, type DocField } from '../data/text.js';
import { readRunFile } from '../formats/run-file.js';
import { concentrationOf, explainQuery, type ExplainScorer, type QueryExplanation } from '../explain/query-explanation.js';
import type { ConcentrationSummary } from '../explain/concentration.js';
import { sha256Hex } from '../util/hash.js';
import { compareUtf8 } from '../metrics/rank.js';
import { mainKey, measureOfKey } from '../metrics/measures.js';
import type { Config, RerankerConfig, RetrieverConfig } from './config.js';
import { isModelReranker } from './config.js';
import { loadConfiguredDataset } from './experiment.js';
import { rerankerKind, retrieverKind } from './registry.js';
import { strategyOf } from './query-strategy.js';

export const DEFAULT_MAX_QUERIES = 200;

/**
 * A stage as the scorer line names it, `<kind> <id> (<detail>)`, without saying a word twice: the id
 * is left out when it is the kind (`bm25 (k1=1.5, b=0.75)`, not `bm25 bm25 (…)`), the detail when it
 * is the id or the kind (`reranker ce (cross-encoder)`, but `reranker cross-encoder`).
 */
export function named(kind: string, id: string, detail: string): string {
  const words = id === kind ? kind : `${kind} ${id}`;
  return detail === id || detail === kind ? words : `${words} (${detail})`;
}

export interface ExplainSelection {
  queries?: string[];
  failed?: boolean;
  hurt?: boolean;
  sample?: number;
  maxQueries?: number;
}

export interface ExplainResult {
  runDir: string;
  retriever: string;
  reranker: string;
  scorer: string;
  selection: string;
  explanations: QueryExplanation[];
  concentration: ConcentrationSummary;
  cost: { queries: number; scoredTexts: number; encodedTexts: number | null; modelPairs: number | null; seconds: number; truncatedTo?: number };
}

export interface Manifest {
  config: { file: string; resolved: Omit<Config, 'file' | 'text'> };
  dataset: { dir: string; split: string };
  cache?: { dir: string | null };
  runs: { retriever: string; reranker: string; dir: string }[];
}

function readManifest(results: string): Manifest {
  const file = join(results, 'manifest.json');
  if (!existsSync(results)) throw new UserError(`${results}: no such results folder`);
  if (!existsSync(file)) throw new UserError(`${file}: missing (not a results folder written by \`skillret-eval run\`)`);
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    if (!m.config?.resolved || !Array.isArray(m.runs) || !m.dataset?.dir) throw new Error('config, dataset or runs missing');
    return m;
  } catch (e) {
    throw new UserError(`${file}: unreadable manifest (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** Per-query values of the run's per-query.jsonl: id → {metrics, vs_none}. */
export function readPerQueryRows(file: string): Map<string, { metrics: Record<string, number>; vs_none?: Record<string, number> }> {
  const out = new Map<string, { metrics: Record<string, number>; vs_none?: Record<string, number> }>();
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        const row = JSON.parse(line) as { id: string; metrics: Record<string, number>; vs_none?: Record<string, number> };
        out.set(row.id, row);
      } catch {
        throw new UserError(`${file}:${i + 1}: not a JSON record`);
      }
    });
  return out;
}

export function selectQueries(ds: Dataset, sel: ExplainSelection, perQuery: () => ReturnType<typeof readPerQueryRows>, ks: readonly number[], seed: number, isReranked: boolean): { queries: Query[]; label: string } {
  const given = [sel.queries !== undefined, Boolean(sel.failed), Boolean(sel.hurt), sel.sample !== undefined].filter(Boolean).length;
  if (given > 1) throw new UserError('--queries, --failed, --hurt and --sample: give at most one');
  if (sel.queries) {
    const known = new Set(ds.queries.map((q) => q.id));
    const unknown = sel.queries.filter((id) => !known.has(id));
    if (unknown.length) throw new UserError(`--queries: unknown query id ${JSON.stringify(unknown[0])}${unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : ''}`);
    const wanted = new Set(sel.queries);
    return { queries: ds.queries.filter((q) => wanted.has(q.id)), label: `queries ${sel.queries.join(',')}` };
  }
  if (sel.failed) {
    const k = measureOfKey(mainKey(ks.map((c) => `NDCG@${c}`)))!.k;
    const rows = perQuery();
    return { queries: ds.queries.filter((q) => rows.get(q.id)?.metrics[`Completeness@${k}`] === 0), label: `failed (Completeness@${k} = 0)` };
  }
  if (sel.hurt) {
    if (!isReranked) throw new UserError('--hurt: needs a reranked run (<retriever>/<reranker>, not /none): it selects queries the reranker made worse');
    const rows = perQuery();
    const key = mainKey(ks.map((c) => `NDCG@${c}`));
    return { queries: ds.queries.filter((q) => (rows.get(q.id)?.vs_none?.[key] ?? 0) < 0), label: `hurt (vs_none ${key} < 0)` };
  }
  if (sel.sample !== undefined) {
    if (!Number.isInteger(sel.sample) || sel.sample < 1) throw new UserError(`--sample: expected a positive integer, got ${String(sel.sample)}`);
    const key = (id: string) => sha256Hex(`skillret-explain\u0000${seed}\u0000${id}`);
    const chosen = new Set([...ds.queries].sort((a, b) => compareUtf8(key(a.id), key(b.id))).slice(0, sel.sample).map((q) => q.id));
    return { queries: ds.queries.filter((q) => chosen.has(q.id)), label: `sample ${sel.sample} (seed ${seed})` };
  }
  return { queries: [...ds.queries], label: 'all queries' };
}

/** A run of a results folder as explain sees it: its config entries, dataset and corpus texts. */
export interface ExplainedRun {
  manifest: Manifest;
  config: Config;
  configDir: string;
  retrieverId: string;
  rerankerId: string;
  r: RetrieverConfig;
  rr: RerankerConfig;
  runDir: string;
  ds: Dataset;
  fields: DocField[];
  separator: string;
  docs: { id: string; text: string }[];
  docIds: string[];
  unsupported: (why: string) => UserError;
}

/** Reads the results folder's manifest and the run's config entries, and loads the run's dataset. */
export async function openExplainedRun(o: { results: string; run: string }): Promise<ExplainedRun> {
  const manifest = readManifest(o.results);
  const [retrieverId, rerankerId, ...rest] = o.run.split('/');
  const listed = manifest.runs.map((r) => `${r.retriever}/${r.reranker}`);
  if (!retrieverId || !rerankerId || rest.length || !listed.includes(o.run))
    throw new UserError(`--run: no run "${o.run}" in ${o.results} (runs: ${listed.join(', ')})`);
  const config = { ...manifest.config.resolved, file: manifest.config.file, text: '' } as Config;
  const configDir = dirname(config.file);
  const r = config.retrievers.find((x) => x.id === retrieverId) as RetrieverConfig;
  const rr = config.rerankers.find((x) => x.id === rerankerId) as RerankerConfig;
  const runDir = join(o.results, retrieverId, rerankerId);
  const unsupported = (why: string) => new UserError(`--run: ${o.run} cannot be explained: ${why}`);
  if (strategyOf('query' in r ? r.query : undefined).strategy !== 'whole' || (isModelReranker(rr) && strategyOf(rr.query).strategy !== 'whole'))
    throw unsupported('it uses a query strategy; explain its whole twin');

  const ds = await loadConfiguredDataset(config, manifest.dataset.dir);
  const fields = config.dataset.text.fields as DocField[];
  const separator = config.dataset.text.separator;
  const docs = ds.skills.map((s) => ({ id: s.id, text: buildDocumentText(s, fields, separator) }));
  const docIds = docs.map((d) => d.id);
  return { manifest, config, configDir, retrieverId, rerankerId, r, rr, runDir, ds, fields, separator, docs, docIds, unsupported };
}

export async function explainRun(
  ctx: StageContext,
  o: { results: string; run: string } & ExplainSelection,
): Promise<ExplainResult> {
  const t0 = performance.now();
  const { config, configDir, retrieverId, rerankerId, r, rr, runDir, ds, fields, separator, docs, docIds, unsupported } = await openExplainedRun(o);
  const skills = new Map<string, Skill>(ds.skills.map((s) => [s.id, s]));

  const { queries: chosen, label } = selectQueries(ds, o, () => readPerQueryRows(join(runDir, 'per-query.jsonl')), config.k, config.stats.seed, rerankerId !== 'none');
  const maxQueries = o.maxQueries ?? DEFAULT_MAX_QUERIES;
  const queries = chosen.slice(0, maxQueries);

  let scoredTexts = 0;
  let scorerName: string;
  let scorer: ExplainScorer;
  let encoded: () => number | null = () => null;
  let modelPairs: () => number | null = () => null;
  let dispose = async () => {};
  const table = (scores: ArrayLike<number>) => new Map(docIds.map((id, i) => [id, scores[i]!]));

  if (isModelReranker(rr)) {
    const pool = await readRunFile(join(runDir, 'run.trec'));
    const reranker = await rerankerKind(rr.type).load(ctx, rr, configDir);
    const before = reranker.stats?.();
    scorerName = `${named('reranker', rr.id, rr.type)} over the pool of ${retrieverId}`;
    const docText = new Map(docs.map((d) => [d.id, d.text]));
    scorer = {
      async scoreTexts(qid, texts) {
        const cands = (pool.get(qid) ?? []).map((d) => d.docId).filter((id) => docText.has(id));
        const pairs = texts.flatMap((t) => cands.map((id) => ({ query: t, doc: docText.get(id)! })));
        scoredTexts += pairs.length;
        const s = await reranker.score(pairs);
        return texts.map((_, i) => new Map(cands.map((id, j) => [id, s[i * cands.length + j]!])));
      },
      async scoreDocTexts(_qid, query, texts) {
        scoredTexts += texts.length;
        return reranker.score(texts.map((doc) => ({ query, doc })));
      },
    };
    modelPairs = () => {
      const after = reranker.stats?.();
      return after && before ? after.pairs - before.pairs : null;
    };
    dispose = async () => reranker.dispose?.();
  } else {
    const kind = retrieverKind(r.type);
    const got = kind.explainScorer ? await kind.explainScorer(ctx, r, docs, configDir) : { unsupported: `its first stage is of type ${r.type}` };
    if ('unsupported' in got) throw unsupported(`explain re-scores bm25, local dense and model-reranker runs (${got.unsupported})`);
    scorerName = `${named(r.type, r.id, got.detail)} over the corpus${got.how ? `, ${got.how}` : ''}`;
    scorer = {
      async scoreTexts(_qid, texts) {
        scoredTexts += texts.length;
        return (await got.scoreAll(texts)).map(table);
      },
      async scoreDocTexts(_qid, query, texts) {
        scoredTexts += texts.length;
        return got.scoreDocs(query, texts);
      },
    };
    if (got.encoded) encoded = got.encoded;
    if (got.dispose) dispose = got.dispose;
  }

  const explanations: QueryExplanation[] = [];
  const bar = ctx.progress('explain', queries.length, 'queries');
  try {
    for (const q of queries) {
      const gold = [...(ds.qrels.get(q.id) ?? new Map<string, number>())].filter(([, g]) => g >= 1).map(([id]) => id);
      explanations.push(await explainQuery(scorer, q, gold, { skills, fields, separator }));
      bar.increment();
    }
  } finally {
    bar.stop();
    await dispose();
  }
  return {
    runDir,
    retriever: retrieverId,
    reranker: rerankerId,
    scorer: scorerName,
    selection: label,
    explanations,
    concentration: concentrationOf(explanations),
    cost: {
      queries: queries.length,
      scoredTexts,
      encodedTexts: encoded(),
      modelPairs: modelPairs(),
      seconds: (performance.now() - t0) / 1000,
      ...(chosen.length > queries.length ? { truncatedTo: maxQueries } : {}),
    },
  };
}
