/**
 * Presets for every model of the published tables, checked against the protocol document byte for
 * byte; the sentence-transformers configuration of a model folder (pooling module, Normalize,
 * prompts, default prompt, max length) used when no preset names the model; refusal when nothing
 * says how to pool; the export command in `models list` and in the missing-model error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_DOC } from './helpers/shared.js';
import { buildTinyDecoder, buildTinyEncoder } from './helpers/tiny-models.js';
import { createReranker } from './helpers/rerankers.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveModel } from '../src/models/resolve.js';
import { fetchStFiles } from '../src/models/st-fetch.js';
import { BGE_QUERY_PREFIX, EMBEDDER_PRESETS, findEmbedderPreset, SKILL_INSTRUCTION, type EmbedderPreset, type PromptSetting } from '../src/models/embedder-presets.js';
import { findRerankerPreset, RERANKER_PRESETS } from '../src/models/reranker-presets.js';
import { readStConfig } from '../src/models/st-config.js';
import { resolveEmbedderSettings } from '../src/models/embedder-settings.js';
import { modelsListCommand } from '../src/commands/models.js';
import { denseRetrieve, type DenseSpec } from '../src/retrieval/dense/retriever.js';
import { folderVectorPrecision } from '../src/retrieval/dense/embedding/vector-precision.js';
import { denseRetriever } from '../src/pipeline/retrievers/dense.js';
import { silentProgress } from '../src/util/progress.js';
import type { StageContext } from '../src/core/context.js';
import { UserError } from '../src/core/errors.js';

const paper = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'src', 'paper', 'paper-results.json'), 'utf8')) as {
  tables: { id: string; first_stage: { hf_id: string } | null; rows: { model: string; hf_id: string | null; first_stage?: { hf_id: string } }[] }[];
};

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skr-presets-'));
  process.env.SKILLRET_MODELS_DIR = join(root, 'models');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('every model of the published tables has a preset', () => {
  const rerankTables = paper.tables.filter((t) => t.id.includes('rerank'));
  const embedIds = new Set<string>();
  const rerankIds = new Set<string>();
  for (const t of paper.tables) {
    if (t.first_stage) embedIds.add(t.first_stage.hf_id);
    for (const r of t.rows) {
      if (r.first_stage) embedIds.add(r.first_stage.hf_id);
      if (!r.hf_id) continue;
      (rerankTables.includes(t) ? rerankIds : embedIds).add(r.hf_id);
    }
  }
  it.each([...embedIds].sort())('embedder %s', (id) => {
    const p = findEmbedderPreset(id);
    expect(p, id).toBeDefined();
    expect(p!.source).toMatch(/docs\/protocol\.md §2/);
    // Either an ONNX export to load, or the command that makes one (or a stated reason it cannot run here).
    expect(p!.hubId !== null || p!.exportCommand !== null || p!.unsupported !== undefined).toBe(true);
  });
  it.each([...rerankIds].sort())('reranker %s', (id) => {
    const p = findRerankerPreset(id);
    expect(p, id).toBeDefined();
    expect(p!.source).toMatch(/docs\/protocol\.md §5/);
    expect(p!.hubId !== null || p!.exportCommand !== undefined).toBe(true);
  });
  it('covers all 18 embedders and 6 rerankers, and review names map to the same presets (rule 3)', () => {
    expect(embedIds.size).toBe(18);
    expect(rerankIds.size).toBe(6);
    expect(findEmbedderPreset('anonymous-ed-benchmark/SKILLRET-Embedding-8B')?.name).toBe('SkillRet-Embedding-8B');
    expect(findRerankerPreset('anonymous-ed-benchmark/SKILLRET-Reranker-0.6B')?.name).toBe('skillret-reranker-0.6b');
    expect(findEmbedderPreset('SKILLRET-Embedding')).toBeUndefined(); // never by substring
    expect(findEmbedderPreset('ed-benchmark/SKILLRET-Embedding-8B')).toBeUndefined();
  });
  it('reranker score precision defaults to the official one', () => {
    for (const n of ['qwen3-reranker-0.6b', 'qwen3-reranker-4b', 'qwen3-reranker-8b', 'skillret-reranker-0.6b', 'skillrouter-reranker-0.6b'])
      expect(findRerankerPreset(n)!.scorePrecision).toBe('fp16');
    expect(findRerankerPreset('jina-reranker-v2-base-multilingual')!.scorePrecision).toBe('bf16');
  });
});

/** The protocol's section 2 table: model cell → [query, doc, pooling, max tokens] cells. */
function protocolRows(text: string): { models: string; query: string; doc: string; pooling: string; max: string }[] {
  const sec = text.slice(text.indexOf('## 2.'), text.indexOf('## 3.'));
  return sec
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| Model') && !l.startsWith('|---'))
    .map((l) => {
      const c = l.slice(1, -1).split(' | ').map((x) => x.trim());
      return { models: c[0]!, query: c[1]!, doc: c[2]!, pooling: c[3]!, max: c[4]! };
    });
}

/** Expands "microsoft/harrier-oss-v1-270m, -0.6b" into full ids. */
function rowIds(cell: string): string[] {
  const parts = cell.split(', ');
  const first = parts[0]!;
  return parts.map((p) => (p.startsWith('-') ? first.replace(/-[^-]+$/, p) : p));
}

function expectPrompt(cell: string, got: PromptSetting, name: string): void {
  const lit = /^`("[^`]*")`/.exec(cell);
  if (cell === 'S') expect(got, name).toBe(SKILL_INSTRUCTION);
  else if (cell.startsWith('instruction `')) expect(got, name).toBe(JSON.parse(/`("[^`]*")`/.exec(cell)![1]!));
  else if (cell === 'none') expect(got, name).toBe('');
  else if (lit) {
    // A literal prefix: exactly it, or (sentence-transformers path, encode_query / encode_document)
    // the model's role prompt, if it defines one, followed by it.
    const want = JSON.parse(lit[1]!) as string;
    if (typeof got === 'string') expect(got, name).toBe(want);
    else expect(got, name).toEqual(want === '' ? { roleDefault: true } : { roleDefault: true, prefix: want });
  } else if (cell.startsWith('own') && cell.includes('= bge string')) expect(got, name).toEqual({ ownPrompt: 'query', fallback: 'Represent this sentence for searching relevant passages: ' });
  else if (/own `(\w+)` prompt/.test(cell)) expect(got, name).toEqual({ ownPrompt: /own `(\w+)` prompt/.exec(cell)![1] });
  else if (cell.startsWith('own')) expect(got, name).toEqual({ roleDefault: true });
  else throw new Error(`unparsed protocol cell ${cell}`);
}

describe.skipIf(!existsSync(PROTOCOL_DOC))('presets equal the protocol table (section 2) byte for byte', () => {
  const rows = existsSync(PROTOCOL_DOC) ? protocolRows(readFileSync(PROTOCOL_DOC, 'utf8')).filter((r) => r.models !== 'BM25') : [];
  it('parses every row', () => expect(rows.length).toBe(13));
  for (const r of rows) {
    for (const id of rowIds(r.models)) {
      it(id, () => {
        const p: EmbedderPreset = findEmbedderPreset(id)!;
        expect(p, id).toBeDefined();
        expect(p.source).toContain(r.models);
        expectPrompt(r.query, p.queryPrefix, `${id} query`);
        // "" in the doc column = nothing added by the benchmark; sentence-transformers models still add their own role prompt.
        if (r.doc === '`""`' && typeof p.docPrefix !== 'string') expect(p.docPrefix).toEqual({ roleDefault: true });
        else if (r.doc.startsWith('instruction')) expect(p.docPrefix).toBe('');
        else expectPrompt(r.doc, p.docPrefix, `${id} doc`);
        const pool = r.pooling.toLowerCase();
        if (pool.startsWith('cls')) expect(p.pooling).toBe('cls');
        else if (pool.startsWith('mean')) expect(p.pooling).toBe('mean');
        else if (pool.startsWith('last')) expect(p.pooling).toBe('last_token');
        else expect(p.pooling).toBe('model');
        if (pool.includes('unnormalised')) expect(p.normalize).toBe(false);
        if (pool.includes('l2')) expect(p.normalize).toBe(true);
        expect(p.maxTokens).toBe(Number(/^[\d,]+/.exec(r.max)![0].replace(/,/g, '')));
      });
    }
  }
});

describe('models list', () => {
  it('shows every preset, the export command where no export is published, and the score precision', () => {
    const out = modelsListCommand({ format: 'table' });
    for (const p of EMBEDDER_PRESETS) expect(out).toContain(`  ${p.name}  (`);
    for (const p of RERANKER_PRESETS) expect(out).toContain(`  ${p.name}  (`);
    expect(out).toContain('export: optimum-cli export onnx --model Qwen/Qwen3-Embedding-8B --task feature-extraction');
    expect(out).toContain('export: optimum-cli export onnx --model Qwen/Qwen3-Reranker-8B --task text-generation');
    expect(out).toMatch(/qwen3-reranker-0\.6b .*\n.*score precision fp16/);
    const json = JSON.parse(modelsListCommand({ format: 'json' })) as { embedders: unknown[] };
    expect(json.embedders).toHaveLength(EMBEDDER_PRESETS.length);
  });
});

const stage = (): StageContext => ({ cacheDir: join(root, 'cache'), useCache: false, offline: true, progress: silentProgress, log: () => {} });
const spec = (model: string, over: Partial<DenseSpec> = {}): DenseSpec => ({ id: 'd', model, batchSize: 4, threads: 1, topK: 2, index: { type: 'exact' }, ...over });
const DOCS = [
  { id: 's1', text: 'deploy docker code' },
  { id: 's2', text: 'search data file' },
  { id: 's3', text: 'review git test' },
];
const QUERIES = [{ id: 'q1', text: 'docker deploy' }];

describe('a model folder with sentence-transformers files', () => {
  it('loads with its own pooling, normalisation, prompts and max length', async () => {
    const dir = join(root, 'st-model');
    buildTinyEncoder(dir, {
      seed: 5,
      sentenceTransformers: { pooling: 'cls', normalize: false, prompts: { query: 'search query: ', document: 'skill: ' }, maxSeqLength: 24 },
    });
    const st = readStConfig(dir)!;
    expect(st).toMatchObject({ pooling: { mode: 'cls' }, normalize: false, prompts: { query: 'search query: ', document: 'skill: ' }, maxSeqLength: 24 });
    const { info } = await denseRetrieve(stage(), spec(dir), DOCS, QUERIES);
    expect(info.options).toMatchObject({ pooling: 'cls', normalize: false, queryPrefix: 'search query: ', docPrefix: 'skill: ', maxTokens: 24 });
    expect(info.options.sources).toEqual({ queryPrefix: 'model files', docPrefix: 'model files', pooling: 'model files', normalize: 'model files', maxTokens: 'model files' });
    // Config keys still override.
    const o = await denseRetrieve(stage(), spec(dir, { pooling: 'mean', queryPrefix: '', maxTokens: 16 }), DOCS, QUERIES);
    expect(o.info.options).toMatchObject({ pooling: 'mean', normalize: false, queryPrefix: '', docPrefix: 'skill: ', maxTokens: 16 });
    expect(o.info.options.sources).toMatchObject({ pooling: 'config', queryPrefix: 'config', maxTokens: 'config', normalize: 'model files' });
  });

  it('a default prompt applies to a role without its own prompt; a Normalize module means L2', () => {
    const dir = join(root, 'st-default');
    buildTinyEncoder(dir, { seed: 6, sentenceTransformers: { pooling: 'lasttoken', prompts: { query: 'q: ', retrieval: 'r: ' }, defaultPromptName: 'retrieval' } });
    const s = resolveEmbedderSettings({ spec: {}, preset: null, st: readStConfig(dir), where: 'retrievers.x', folder: dir });
    expect(s).toMatchObject({ queryPrefix: 'q: ', docPrefix: 'r: ', pooling: 'last_token', normalize: true, maxTokens: null });
  });

  it("presets on the sentence-transformers path take the role prompts of the model's own files, and record which applied", () => {
    // As the official code calls sentence-transformers: bge and e5 put their prefix into the text and
    // call encode_query / encode_document, which add the model's role prompt first; Qwen3 and SkillRet
    // pass their query prompt explicitly (no role prompt added) and encode documents with
    // encode_document; arctic names its own `query` prompt (the bge string when the folder lacks it).
    const withPrompts = join(root, 'st-role-prompts');
    buildTinyEncoder(withPrompts, { seed: 11, sentenceTransformers: { pooling: 'cls', prompts: { query: 'Q| ', document: 'D| ' } } });
    const plain = join(root, 'st-role-none');
    buildTinyEncoder(plain, { seed: 12, sentenceTransformers: { pooling: 'cls' } });
    const settings = (preset: string, dir: string) => {
      const s = resolveEmbedderSettings({ spec: {}, preset: findEmbedderPreset(preset)!, st: readStConfig(dir), where: 'retrievers.x', folder: dir });
      return { q: s.queryPrefix, d: s.docPrefix, qs: s.sources.queryPrefix, ds: s.sources.docPrefix };
    };
    expect(settings('bge-small-en-v1.5', withPrompts)).toEqual({ q: `Q| ${BGE_QUERY_PREFIX}`, d: 'D| ', qs: 'model files', ds: 'model files' });
    expect(settings('bge-small-en-v1.5', plain)).toEqual({ q: BGE_QUERY_PREFIX, d: '', qs: 'preset', ds: 'default' });
    expect(settings('e5-small-v2', withPrompts)).toEqual({ q: 'Q| query: ', d: 'D| passage: ', qs: 'model files', ds: 'model files' });
    expect(settings('e5-small-v2', plain)).toEqual({ q: 'query: ', d: 'passage: ', qs: 'preset', ds: 'preset' });
    for (const n of ['Qwen3-Embedding-0.6B', 'SkillRet-Embedding-0.6B']) {
      expect(settings(n, withPrompts)).toEqual({ q: SKILL_INSTRUCTION, d: 'D| ', qs: 'preset', ds: 'model files' });
      expect(settings(n, plain)).toEqual({ q: SKILL_INSTRUCTION, d: '', qs: 'preset', ds: 'default' });
    }
    expect(settings('snowflake-arctic-embed-s', withPrompts)).toEqual({ q: 'Q| ', d: 'D| ', qs: 'model files', ds: 'model files' });
    expect(settings('snowflake-arctic-embed-s', plain)).toEqual({ q: BGE_QUERY_PREFIX, d: '', qs: 'preset', ds: 'default' });
  });

  it('a folder that says nothing about pooling is refused in one line naming the setting', async () => {
    const dir = join(root, 'plain');
    buildTinyEncoder(dir, { seed: 7 });
    expect(readStConfig(dir)).toBeUndefined();
    const err = await denseRetrieve(stage(), spec(dir), DOCS, QUERIES).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/^retrievers\.d\.pooling: missing: the config sets no pooling, no preset names this model, and .*plain has no sentence-transformers pooling module .*; set pooling: cls \| mean \| last_token$/);
    expect((err as Error).message).not.toContain('\n');
    // With pooling given, it runs (normalisation defaults to L2, recorded as a default).
    const ok = await denseRetrieve(stage(), spec(dir, { pooling: 'mean' }), DOCS, QUERIES);
    expect(ok.info.options.sources.normalize).toBe('default');
  });

  it('an unsupported pooling module or a missing own prompt is refused with the file named', () => {
    const dir = join(root, 'st-max');
    buildTinyEncoder(dir, { seed: 8, sentenceTransformers: { pooling: 'mean' } });
    writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_max_tokens: true }));
    expect(() => resolveEmbedderSettings({ spec: {}, preset: null, st: readStConfig(dir), where: 'retrievers.x', folder: dir })).toThrow(
      /^retrievers\.x\.pooling: .*1_Pooling[/\\]config\.json: pooling_mode_max_tokens is not supported here/,
    );
    const f2 = findEmbedderPreset('F2LLM-v2-80M')!;
    const bare = join(root, 'st-noprompt');
    buildTinyEncoder(bare, { seed: 9, sentenceTransformers: { pooling: 'lasttoken' } });
    expect(() => resolveEmbedderSettings({ spec: {}, preset: f2, st: readStConfig(bare), where: 'retrievers.x', folder: bare })).toThrow(
      /^retrievers\.x\.query_prefix: preset F2LLM-v2-80M uses the model's own "query" prompt, but .* has no config_sentence_transformers\.json prompt of that name; set query_prefix$/,
    );
    mkdirSync(join(root, 'bad'), { recursive: true });
    writeFileSync(join(root, 'bad', 'modules.json'), '{not json');
    expect(() => readStConfig(join(root, 'bad'))).toThrow(/modules\.json: malformed JSON/);
  });

  it('a preset without a published export names the command that makes one', async () => {
    const err = await denseRetrieve(stage(), spec('Qwen/Qwen3-Embedding-8B'), DOCS, QUERIES).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    const m = (err as Error).message;
    expect(m).toMatch(/^retrievers\.d\.model: no ONNX export of Qwen\/Qwen3-Embedding-8B is published and .*models[/\\]Qwen3-Embedding-8B has none; make it with: optimum-cli export onnx --model Qwen\/Qwen3-Embedding-8B /);
    expect(m).toContain(`${join(root, 'models', 'Qwen3-Embedding-8B')}/onnx/`);
    const nv = await denseRetrieve(stage(), spec('nvidia/NV-Embed-v1'), DOCS, QUERIES).catch((e: unknown) => e);
    expect((nv as Error).message).toMatch(/^retrievers\.d\.model: NV-Embed-v1 pools with its own latent-attention layer/);
  });

  it('a reranker preset without a published export names the command, and loads the folder it writes', async () => {
    const spec = { id: 'q8', type: 'qwen3' as const, model: 'qwen3-reranker-8b', depth: 20, threads: 1 };
    const err = await createReranker(stage(), spec).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      /^reranker "q8": model: no ONNX export of Qwen\/Qwen3-Reranker-8B in transformers\.js layout is published; make it with: optimum-cli export onnx --model Qwen\/Qwen3-Reranker-8B --task text-generation models\/qwen3-reranker-8b /,
    );
    buildTinyDecoder(join(root, 'models', 'qwen3-reranker-8b'), { seed: 4 });
    const r = await createReranker(stage(), spec);
    expect(r.describe()).toMatchObject({ preset: 'qwen3-reranker-8b', sourceModel: 'Qwen/Qwen3-Reranker-8B', source: 'local', scorePrecision: 'fp16' });
    await r.dispose?.();
  });

  it('a hub model: its sentence-transformers files are fetched into the cache folder (absent ones skipped)', async () => {
    const served = join(root, 'served-st');
    buildTinyEncoder(served, { seed: 10, sentenceTransformers: { pooling: 'mean', normalize: true, prompts: { query: 'find: ' } } });
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const m = /^\/st-org\/tiny\/resolve\/main\/(.+)$/.exec(req.url ?? '');
      const file = m ? join(served, decodeURIComponent(m[1]!)) : '';
      if (!m || !existsSync(file)) return void res.writeHead(404).end('not found');
      res.writeHead(200).end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const o = { offline: false, cacheDir: join(root, 'hub-cache'), modelsDir: join(root, 'models'), endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
      const m = resolveModel('st-org/tiny', o);
      await fetchStFiles(m, o);
      expect(asked).toEqual([
        '/st-org/tiny/resolve/main/modules.json',
        '/st-org/tiny/resolve/main/config_sentence_transformers.json',
        '/st-org/tiny/resolve/main/sentence_bert_config.json', // 404: not written
        '/st-org/tiny/resolve/main/1_Pooling/config.json',
      ]);
      expect(readStConfig(m.folder)).toMatchObject({ pooling: { mode: 'mean' }, normalize: true, prompts: { query: 'find: ' }, maxSeqLength: null });
      expect(existsSync(join(m.folder, 'sentence_bert_config.json'))).toBe(false);
      await fetchStFiles(m, o); // present files are not fetched again; the absent one is asked for again
      expect(asked.slice(4)).toEqual(['/st-org/tiny/resolve/main/sentence_bert_config.json']);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('vector_precision rounds the vectors before the search (KaLM and SkillRouter presets default to bf16)', async () => {
    const dir = join(root, 'st-model');
    const a = await denseRetrieve(stage(), spec(dir), DOCS, QUERIES);
    const b = await denseRetrieve(stage(), spec(dir, { vectorPrecision: 'bf16' }), DOCS, QUERIES);
    expect(a.info.options.vectorPrecision).toBe('fp32');
    expect(b.info.options.vectorPrecision).toBe('bf16');
    const sa = a.run.get('q1')!.map((d) => d.score);
    const sb = b.run.get('q1')!.map((d) => d.score);
    expect(sb).not.toEqual(sa);
    sb.forEach((x, i) => expect(Math.abs(x - sa[i]!)).toBeLessThan(0.05));
    expect(findEmbedderPreset('KaLM-Gemma3-12B')!.vectorPrecision).toBe('bf16');
    expect(findEmbedderPreset('SkillRouter-Embedding-0.6B')!.vectorPrecision).toBe('bf16');
    // The sentence-transformers path loads torch_dtype="auto": Qwen3 and SkillRet checkpoints are bfloat16.
    for (const n of ['Qwen3-Embedding-0.6B', 'Qwen3-Embedding-8B', 'SkillRet-Embedding-0.6B', 'SkillRet-Embedding-8B']) expect(findEmbedderPreset(n)!.vectorPrecision, n).toBe('bf16');
    for (const n of ['bge-small-en-v1.5', 'e5-large-v2', 'harrier-oss-v1-270m']) expect(findEmbedderPreset(n)!.vectorPrecision, n).toBeUndefined();
  });

  it("a model folder's own torch_dtype decides the vector precision when neither the config nor a preset does", async () => {
    const dir = join(root, 'st-model-bf16');
    cpSync(join(root, 'st-model'), dir, { recursive: true });
    const cfgPath = join(dir, 'config.json');
    const cfg = JSON.parse(readFileSync(cfgPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(cfgPath, JSON.stringify({ ...cfg, torch_dtype: 'bfloat16' }));
    expect(folderVectorPrecision(dir)).toBe('bf16');
    const auto = await denseRetrieve(stage(), spec(dir), DOCS, QUERIES);
    const asked = await denseRetrieve(stage(), spec(join(root, 'st-model'), { vectorPrecision: 'bf16' }), DOCS, QUERIES);
    expect(auto.info.options.vectorPrecision).toBe('bf16');
    expect(auto.run.get('q1')).toEqual(asked.run.get('q1'));
    // The config still wins; the newer `dtype` key and float16 are read too; unknown or missing says nothing.
    expect((await denseRetrieve(stage(), spec(dir, { vectorPrecision: 'fp32' }), DOCS, QUERIES)).info.options.vectorPrecision).toBe('fp32');
    const { torch_dtype: _old, ...rest } = cfg;
    writeFileSync(cfgPath, JSON.stringify({ ...rest, dtype: 'float16' }));
    expect(folderVectorPrecision(dir)).toBe('fp16');
    writeFileSync(cfgPath, JSON.stringify({ ...cfg, torch_dtype: 'int8' }));
    expect(folderVectorPrecision(dir)).toBeUndefined();
    writeFileSync(cfgPath, '{not json');
    expect(folderVectorPrecision(dir)).toBeUndefined();
    expect(folderVectorPrecision(join(root, 'no-such-folder'))).toBeUndefined();
  });

  it('the paper pairing labels the official precision: bf16 for Qwen3/SkillRet, none claimed where the checkpoint dtype is unrecorded', () => {
    const dev = (model: string, vector_precision?: 'fp32' | 'bf16') =>
      denseRetriever.paperCounterpart!({ id: 'd', type: 'dense', model, top_k: 20, index: { type: 'exact' }, ...(vector_precision ? { vector_precision } : {}) } as never)!.deviations;
    expect(dev('Qwen3-Embedding-0.6B', 'bf16')).toEqual([]);
    expect(dev('Qwen3-Embedding-0.6B', 'fp32')).toEqual(['vector precision fp32 (official bf16)']);
    expect(dev('bge-small-en-v1.5', 'bf16')).toEqual(['vector precision bf16 (official fp32)']);
    expect(dev('harrier-oss-v1-270m', 'bf16')).toEqual([]);
  });
});
