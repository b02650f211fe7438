/**
 * `type: embeddings` end to end through the CLI on data/mini: vectors exported from the bundled
 * GloVe static embedder (the same model, options and document texts the `type: dense` stage uses)
 * and written as a Python script would (.npy + ids, .safetensors + ids, JSONL) give exactly the
 * dense stage's rankings and metrics, reranked and unreranked; HNSW is audited; the files' SHA-256
 * are in the manifest; reruns (cached and --no-cache) write byte-identical results; `report` and
 * `compare` read the results. Then every bad file ends in one line and exit 2.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../src/data/dataset.js';
import { fileDocSource, JsonlDocStore } from '../src/data/doc-store.js';
import { Embedder } from '../src/retrieval/dense/embedding/embedder.js';
import { resolveSpec } from '../src/retrieval/dense/retriever.js';
import { modelsDir } from '../src/util/paths.js';
import { silentProgress } from '../src/util/progress.js';
import { configError, runCli } from './helpers/cli.js';
import { idsText, npyBytes, parquetBytes, safetensorsBytes, vectorJsonl } from './helpers/vector-files.js';

const root = resolve(__dirname, '..');
const MINI = join(root, 'data/mini');

interface Exported {
  docIds: string[];
  queryIds: string[];
  docs: number[][];
  queries: number[][];
}

/** The GloVe static embedder's vectors of data/mini's documents (the pipeline's texts) and queries. */
async function exportGlove(cacheDir: string): Promise<Exported> {
  const ds = await loadDataset({ path: MINI, split: 'test' });
  const store = new JsonlDocStore(fileDocSource(ds.skillRecords));
  const loc = { offline: true, cacheDir, modelsDir: modelsDir() };
  const ctx = { cacheDir, useCache: false, offline: true, progress: silentProgress, log: () => {} };
  const { model, options } = await resolveSpec(ctx, { id: 'g', model: 'glove-6b-100d-static', topK: 20, index: { type: 'exact' } }, loc);
  const e = await Embedder.load(model, options, loc);
  try {
    const docs = await e.embed([...store.texts()], 'document');
    const queries = await e.embed(ds.queries.map((q) => q.text), 'query');
    return { docIds: [...store.ids], queryIds: ds.queries.map((q) => q.id), docs: docs.map((v) => Array.from(v)), queries: queries.map((v) => Array.from(v)) };
  } finally {
    await e.dispose();
  }
}

const sha256 = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
/** run.trec without its run-tag column. */
const trecBody = (p: string) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' ').slice(0, 5).join(' '));
const metricsOf = (p: string) => JSON.parse(readFileSync(p, 'utf8')).metrics as Record<string, number>;

describe('type: embeddings on data/mini, vectors exported from GloVe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emb-e2e-'));
  const out = join(dir, 'out');
  const runs = ['glove/none', 'glove/glove-maxsim', 'emb/none', 'emb/glove-maxsim', 'emb-mixed/none', 'emb-mixed/glove-maxsim', 'emb-parquet/none', 'emb-parquet/glove-maxsim'];
  const RESULT_FILES = ['metrics.json', 'run.trec', 'per-query.jsonl'];
  const snapshot = () => Object.fromEntries(runs.flatMap((r) => RESULT_FILES.map((f) => [`${r}/${f}`, readFileSync(join(out, r, f))])));
  let first: Record<string, Buffer>;
  let config: string;

  beforeAll(async () => {
    const v = await exportGlove(join(dir, 'cache'));
    writeFileSync(join(dir, 'docs.npy'), npyBytes(v.docs));
    writeFileSync(join(dir, 'docs.txt'), idsText(v.docIds));
    writeFileSync(join(dir, 'queries.npy'), npyBytes(v.queries));
    writeFileSync(join(dir, 'queries.txt'), idsText(v.queryIds));
    // The same vectors in the other formats, rows in another order (ids say which is which).
    const rev = <T>(xs: T[]) => [...xs].reverse();
    writeFileSync(join(dir, 'docs.safetensors'), safetensorsBytes([{ name: 'embeddings', dtype: 'F32', rows: rev(v.docs) }], { model: 'glove-6b-100d-static' }));
    writeFileSync(join(dir, 'docs-rev.txt'), idsText(rev(v.docIds)));
    writeFileSync(join(dir, 'queries.jsonl'), vectorJsonl(rev(v.queryIds), rev(v.queries)));
    // Parquet as pyarrow writes it: documents LIST<FLOAT>, queries LIST<DOUBLE>, other column names.
    writeFileSync(join(dir, 'docs.parquet'), parquetBytes(rev(v.docIds), rev(v.docs)));
    writeFileSync(join(dir, 'queries.parquet'), parquetBytes(v.queryIds, v.queries, { type: 'DOUBLE', idColumn: 'qid', vectorColumn: 'emb' }));
    config = join(dir, 'exp.yaml');
    writeFileSync(
      config,
      `name: emb-e2e
dataset: { path: ${MINI} }
retrievers:
  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 20 }
  - id: emb
    type: embeddings
    documents: { vectors: docs.npy, ids: docs.txt }
    queries: { vectors: queries.npy, ids: queries.txt }
  - id: emb-mixed
    type: embeddings
    documents: { vectors: docs.safetensors, ids: docs-rev.txt }
    queries: { vectors: queries.jsonl }
    index: { type: hnsw }
  - id: emb-parquet
    type: embeddings
    documents: { vectors: docs.parquet }
    queries: { vectors: queries.parquet, id_column: qid, vector_column: emb }
rerankers:
  - { id: none }
  - { id: glove-maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 10 }
stats: { iterations: 2000 }
output: ./out
cache_dir: ./cache
`,
    );
    const r = await runCli(['run', config, '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    first = snapshot();
  });

  it('ranks exactly as the dense stage over the same model, first stage and reranked', () => {
    for (const rr of ['none', 'glove-maxsim']) {
      for (const emb of ['emb', 'emb-mixed', 'emb-parquet']) {
        expect(trecBody(join(out, emb, rr, 'run.trec'))).toEqual(trecBody(join(out, 'glove', rr, 'run.trec')));
        expect(metricsOf(join(out, emb, rr, 'metrics.json'))).toEqual(metricsOf(join(out, 'glove', rr, 'metrics.json')));
      }
    }
    expect(metricsOf(join(out, 'emb/none/metrics.json'))['NDCG@10']).toBeGreaterThan(0.2);
  });

  it('reports like any first stage: the HNSW audit, reranker on/off significance, file hashes in the manifest', () => {
    const mixed = JSON.parse(readFileSync(join(out, 'emb-mixed/none/metrics.json'), 'utf8'));
    expect(mixed.approximation.overlap['10']).toBe(1);
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('## Approximate index audit (HNSW vs exact top-k)');
    expect(summary).toMatch(/\| emb-mixed \| 1\.0000 \|/);
    expect(summary).toContain('| emb / glove-maxsim |');
    const a = JSON.parse(readFileSync(join(out, 'emb/glove-maxsim/metrics.json'), 'utf8')).reranking.attribution.metrics['NDCG@10'];
    expect(a.randomization.pValue).toBeGreaterThan(0);
    expect(a.randomization.pValue).toBeLessThanOrEqual(1);

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const emb = manifest.stages.find((s: { id: string }) => s.id === 'emb');
    expect(emb.params).toMatchObject({ type: 'embeddings', normalize: true, documents: { vectors: join(dir, 'docs.npy'), ids: join(dir, 'docs.txt'), format: 'npy' } });
    expect(emb.info.documents).toMatchObject({
      format: 'npy',
      dtype: 'float32',
      rows: 45,
      dims: 100,
      vectors: { path: join(dir, 'docs.npy'), sha256: sha256(join(dir, 'docs.npy')) },
      ids: { path: join(dir, 'docs.txt'), sha256: sha256(join(dir, 'docs.txt')) },
      notUnit: 0,
      normalized: 0,
    });
    expect(emb.info.queries.vectors.sha256).toBe(sha256(join(dir, 'queries.npy')));
    const mixedStage = manifest.stages.find((s: { id: string }) => s.id === 'emb-mixed');
    expect(mixedStage.info.documents).toMatchObject({ format: 'safetensors', tensor: 'embeddings', vectors: { sha256: sha256(join(dir, 'docs.safetensors')) } });
    expect(mixedStage.info.queries).toMatchObject({ format: 'jsonl', dtype: 'json', ids: null, vectors: { sha256: sha256(join(dir, 'queries.jsonl')) } });
    expect(mixedStage.info.index).toMatchObject({ type: 'hnsw', M: 32 });
  });

  it('same files, same results: a cached rerun and a --no-cache run write byte-identical results', async () => {
    const stageInfo = (id: string) => JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).stages.find((s: { id: string }) => s.id === id).info;
    for (const args of [['run', config, '--offline', '-q'], ['run', config, '--offline', '-q', '--no-cache']]) {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      const again = snapshot();
      for (const [k, v] of Object.entries(first)) expect(again[k]!.equals(v), k).toBe(true);
      // Warm: the exact top-k and the HNSW graph come from the caches keyed by the vectors' bytes.
      const cached = !args.includes('--no-cache');
      expect(stageInfo('emb').index.cache).toBe(cached ? 'hit' : 'off');
      expect(stageInfo('emb-mixed').index.reused).toBe(cached);
    }
  });

  it('report and compare read the results', async () => {
    const html = join(dir, 'page.html');
    const rep = await runCli(['report', out, '--out', html]);
    expect(rep.code).toBe(0);
    expect(existsSync(html)).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain('emb-mixed');
    const cmp = await runCli(['compare', join(out, 'glove/none'), join(out, 'emb/none'), join(out, 'emb/glove-maxsim'), '--format', 'json', '--iterations', '2000']);
    expect(cmp.code).toBe(0);
    const j = JSON.parse(cmp.out) as { runs: { label: string; vsBaseline?: Record<string, { pRandomization: number | null; wins: number; ties: number; losses: number }> }[] };
    expect(j.runs.map((r) => r.label)).toEqual(['glove/none', 'emb/none', 'emb/glove-maxsim']);
    // Identical to the dense run: every query a tie, no p-value to speak of; the reranked run is tested.
    expect(j.runs[1]!.vsBaseline!['NDCG@10']).toMatchObject({ wins: 0, losses: 0, ties: 21 });
    const p = j.runs[2]!.vsBaseline!['NDCG@10']!.pRandomization;
    expect(typeof p).toBe('number');
  });
});

describe('type: embeddings: bad files end in one line and exit 2', () => {
  let ids: { docs: string[]; queries: string[] };
  beforeAll(async () => {
    const ds = await loadDataset({ path: MINI, split: 'test' });
    ids = { docs: ds.skills.map((s) => s.id), queries: ds.queries.map((q) => q.id) };
  });
  /** Deterministic small vectors: 8-d, row i has a 1 at i mod 8 plus a little of every component. */
  const vecs = (n: number, dim = 8) => Array.from({ length: n }, (_, i) => Array.from({ length: dim }, (_, j) => (j === i % dim ? 1 : 0) + 0.01 * ((i * 7 + j * 3) % 5)));

  /** A folder with good files, the config using them; `mutate` writes the bad one. */
  async function runWith(mutate: (dir: string) => void, docsSide = '{ vectors: docs.npy, ids: docs.txt }', queriesSide = '{ vectors: queries.npy, ids: queries.txt }') {
    const dir = mkdtempSync(join(tmpdir(), 'emb-bad-'));
    writeFileSync(join(dir, 'docs.npy'), npyBytes(vecs(ids.docs.length)));
    writeFileSync(join(dir, 'docs.txt'), idsText(ids.docs));
    writeFileSync(join(dir, 'queries.npy'), npyBytes(vecs(ids.queries.length)));
    writeFileSync(join(dir, 'queries.txt'), idsText(ids.queries));
    mutate(dir);
    const f = join(dir, 'exp.yaml');
    writeFileSync(
      f,
      `name: bad
dataset: { path: ${MINI} }
retrievers:
  - { id: emb, type: embeddings, documents: ${docsSide}, queries: ${queriesSide} }
output: ./out
cache_dir: ./cache
`,
    );
    const r = await runCli(['run', f, '--offline', '-q']);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).not.toMatch(/\s+at .*:\d+:\d+/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    return { dir, err: r.err };
  }

  it('the good files run (the cases below each break one thing)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emb-good-'));
    writeFileSync(join(dir, 'docs.npy'), npyBytes(vecs(ids.docs.length)));
    writeFileSync(join(dir, 'docs.txt'), idsText(ids.docs));
    writeFileSync(join(dir, 'queries.jsonl'), vectorJsonl(ids.queries, vecs(ids.queries.length)));
    const f = join(dir, 'exp.yaml');
    writeFileSync(f, `name: good\ndataset: { path: ${MINI} }\nretrievers:\n  - { id: emb, type: embeddings, documents: { vectors: docs.npy, ids: docs.txt }, queries: { vectors: queries.jsonl } }\noutput: ./out\ncache_dir: ./cache\n`);
    const r = await runCli(['run', f, '--offline']);
    expect(r.code).toBe(0);
    // Not unit length: normalised, said in one line.
    expect(r.err).toContain(`embeddings emb: 45 of 45 document vectors and 21 of 21 query vectors were not unit length (|norm - 1| > 1e-6); normalised them (normalize: true)\n`);
  });

  it('wrong dimension (.npy headers, found before any work)', async () => {
    const { dir, err } = await runWith((d) => writeFileSync(join(d, 'queries.npy'), npyBytes(vecs(ids.queries.length, 7))));
    expect(err).toBe(`skillret-eval: ${join(dir, 'exp.yaml')}:4: retrievers[0].queries.vectors: ${join(dir, 'queries.npy')}: query vectors have dimension 7, the document vectors of ${join(dir, 'docs.npy')} 8 (both must come from one model)\n`);
  });

  it('wrong dimension (JSONL, found when read)', async () => {
    const { dir, err } = await runWith((d) => writeFileSync(join(d, 'queries.jsonl'), vectorJsonl(ids.queries, vecs(ids.queries.length, 9))), undefined, '{ vectors: queries.jsonl }');
    expect(err).toBe(`skillret-eval: ${join(dir, 'queries.jsonl')}: query vectors have dimension 9, the document vectors of ${join(dir, 'docs.npy')} 8 (both must come from one model)\n`);
  });

  it('a skill of the corpus with no vector', async () => {
    const dropped = ids.docs[17]!;
    const { dir, err } = await runWith((d) => {
      const keep = ids.docs.filter((x) => x !== dropped);
      writeFileSync(join(d, 'docs.npy'), npyBytes(vecs(keep.length)));
      writeFileSync(join(d, 'docs.txt'), idsText(keep));
    });
    expect(err).toBe(`skillret-eval: ${join(dir, 'docs.txt')}: no vector for skill "${dropped}" (1 of the 45 skills of the corpus has none)\n`);
  });

  it('a vector whose id is not a skill of the corpus', async () => {
    const { dir, err } = await runWith((d) => {
      writeFileSync(join(d, 'docs.npy'), npyBytes(vecs(ids.docs.length + 1)));
      writeFileSync(join(d, 'docs.txt'), idsText([...ids.docs.slice(0, 3), 'not-a-skill', ...ids.docs.slice(3)]));
    });
    expect(err).toBe(
      `skillret-eval: ${join(dir, 'docs.txt')}:4: id "not-a-skill" is not a skill of the corpus (set extra_ids: ignore to skip vectors the run does not use, e.g. of skills outside dataset.skill_filter)\n`,
    );
  });

  it('NaN in a vector (row and id named)', async () => {
    const { dir, err } = await runWith((d) => {
      const m = vecs(ids.docs.length);
      m[12]![5] = NaN;
      writeFileSync(join(d, 'docs.npy'), npyBytes(m));
    });
    expect(err).toBe(`skillret-eval: ${join(dir, 'docs.npy')}: row 12 (id "${ids.docs[12]}"): component 5 is NaN (every vector component must be a finite number)\n`);
  });

  it('a truncated file', async () => {
    const { dir, err } = await runWith((d) => {
      const b = npyBytes(vecs(ids.docs.length));
      writeFileSync(join(d, 'docs.npy'), b.subarray(0, b.length - 10));
    });
    expect(err).toBe(`skillret-eval: ${join(dir, 'exp.yaml')}:4: retrievers[0].documents.vectors: ${join(dir, 'docs.npy')}: truncated: the header says 45 x 8 float32 (1440 bytes of data), the file holds 1430\n`);
  });

  it('duplicate ids and a row count that is not the id count', async () => {
    const dup = await runWith((d) => writeFileSync(join(d, 'queries.txt'), idsText([...ids.queries.slice(0, 20), ids.queries[2]!])));
    expect(dup.err).toBe(`skillret-eval: ${join(dup.dir, 'queries.txt')}:21: duplicate id "${ids.queries[2]}" (also line 3)\n`);
    const count = await runWith((d) => writeFileSync(join(d, 'queries.txt'), idsText(ids.queries.slice(0, 20))));
    expect(count.err).toBe(`skillret-eval: ${join(count.dir, 'queries.txt')}: 20 ids for the 21 vector rows of ${join(count.dir, 'queries.npy')} (one id per line, in row order)\n`);
  });

  it('a dtype that is not float32/float16', async () => {
    const { dir, err } = await runWith((d) => writeFileSync(join(d, 'docs.npy'), npyBytes(vecs(ids.docs.length), { dtype: '<f8' })));
    expect(err).toBe(
      `skillret-eval: ${join(dir, 'exp.yaml')}:4: retrievers[0].documents.vectors: ${join(dir, 'docs.npy')}: dtype '<f8' (float64) is not supported: save float32 ('<f4') or float16 ('<f2') vectors, e.g. np.save(path, x.astype(np.float32))\n`,
    );
  });

  it('config: the format must be known, ids given exactly when the format needs them', () => {
    const cfg = (docs: string) => `name: x\ndataset: { path: /d }\nretrievers:\n  - id: e\n    type: embeddings\n    documents: ${docs}\n    queries: { vectors: q.jsonl }\noutput: ./o\n`;
    expect(configError(cfg('{ vectors: d.bin }'))).toBe(
      '/cfg/x.yaml:6: retrievers[0].documents.vectors: cannot tell the format of "d.bin" from its extension (.npy, .safetensors, .jsonl, .ndjson, .parquet, .pq): add format: npy | safetensors | jsonl | parquet',
    );
    expect(configError(cfg('{ vectors: d.npy }'))).toBe('/cfg/x.yaml:6: retrievers[0].documents.ids: missing: npy files hold no ids; give a text file with one id per line, in row order');
    expect(configError(cfg('{ vectors: d.jsonl, ids: d.txt }'))).toBe('/cfg/x.yaml:6: retrievers[0].documents.ids: jsonl files carry their own ids (the "id" of each line); remove ids');
    expect(configError(cfg('{ vectors: d.npy, ids: d.txt, tensor: x }'))).toBe('/cfg/x.yaml:6: retrievers[0].documents.tensor: applies to safetensors files only (this one is npy)');
    expect(configError(cfg('{ vectors: d.npy, ids: d.txt, tensors: x }'))).toBe('/cfg/x.yaml:6: retrievers[0].documents.tensors: unknown key (did you mean "tensor"?)');
  });
});
