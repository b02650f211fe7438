#!/usr/bin/env node
/**
 * Dense first-stage benchmark. Imports the compiled code: run `npm run build` first.
 *
 * 1. Index: synthetic unit vectors shaped like the v1.1 test split (6,006 documents, 4,392
 *    queries), clustered (embedding-like) or isotropic (worst case for graph search):
 *    exact top-k (GEMM screening + exact re-scoring; optionally the plain JS kernel), and HNSW
 *    build / search time and overlap@10/@20 with the exact run for a grid of M x efSearch.
 * 2. Encoding: throughput of a model (default: the bundled GloVe static model, if built) on the
 *    shared sample's documents (name | description | skill_md) and queries, if present.
 * 3. HNSW on real text embeddings: 6,006 documents resampled from the sample skills' paragraphs
 *    and 4,392 queries (the sample queries and paragraphs of other skills), embedded with that
 *    model; exact vs HNSW time and overlap for the same M x efSearch grid (--text-index).
 *
 * Values before speeds: each exact top-k (the GEMM path, the reference of every overlap figure) is
 * checked against a plain dot-product search on a sample of queries (scripts/bench-checks.mjs
 * exactSampleCheck), and with --js against the plain JS kernel on every query, before its time is
 * printed; a part whose values differ prints FAILED with its first differences instead of times,
 * skips its HNSW grid, and the script exits 1. (The encoding part times the embedder alone; its
 * vectors are checked against raw onnxruntime-node by scripts/bench-onnx.mjs.)
 *
 *   node scripts/bench-dense.mjs [--dims 384,1024] [--docs 6006] [--queries 4392] [--k 20]
 *     [--data clustered|isotropic] [--M 16,32] [--ef 50,100,200,400] [--ef-construction 200]
 *     [--js] [--threads N] [--model REF] [--sample DIR] [--skip-index] [--skip-encode] [--text-index] [--seed 1]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exactTopK } from '../dist/retrieval/dense/indexes/exact.js';
import { exactTopKFast } from '../dist/retrieval/dense/indexes/exact-fast.js';
import { buildHnsw, hnswTopK } from '../dist/retrieval/dense/indexes/hnsw.js';
import { findEmbedderPreset } from '../dist/models/embedder-presets.js';
import { resolveModel } from '../dist/models/resolve.js';
import { Embedder } from '../dist/retrieval/dense/embedding/embedder.js';
import { modelsDir, defaultCacheDir, offlineFromEnv } from '../dist/util/paths.js';
import { Check, compareTopK, exactSampleCheck, failedSectionMarkdown } from './bench-checks.mjs';

let failed = false;
/** Prints the part as FAILED (no times) when a check failed; returns whether all passed. */
function checked(title, checks) {
  if (checks.every((c) => c.ok)) {
    for (const c of checks) console.log(c.line());
    return true;
  }
  failed = true;
  console.log(`\n${failedSectionMarkdown(title, checks)}`);
  return false;
}

function parseArgs(argv) {
  const o = {
    dims: [384, 1024],
    docs: 6006,
    queries: 4392,
    k: 20,
    data: 'clustered',
    M: [16, 32],
    ef: [50, 100, 200, 400],
    efConstruction: 200,
    js: false,
    threads: undefined,
    model: 'glove-6b-100d-static',
    sample: process.env.SKILLRET_SAMPLE ?? new URL('../../shared/data/skillret-sample', import.meta.url).pathname,
    skipIndex: false,
    skipEncode: false,
    textIndex: false,
    seed: 1,
  };
  const list = (v) => v.split(',').map(Number);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    const take = () => {
      i++;
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--dims') o.dims = list(take());
    else if (a === '--docs') o.docs = Number(take());
    else if (a === '--queries') o.queries = Number(take());
    else if (a === '--k') o.k = Number(take());
    else if (a === '--data') o.data = take();
    else if (a === '--M') o.M = list(take());
    else if (a === '--ef') o.ef = list(take());
    else if (a === '--ef-construction') o.efConstruction = Number(take());
    else if (a === '--js') o.js = true;
    else if (a === '--threads') o.threads = Number(take());
    else if (a === '--model') o.model = take();
    else if (a === '--sample') o.sample = take();
    else if (a === '--skip-index') o.skipIndex = true;
    else if (a === '--skip-encode') o.skipEncode = true;
    else if (a === '--text-index') o.textIndex = true;
    else if (a === '--seed') o.seed = Number(take());
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Unit vectors. clustered: 300 centres with Zipf-like sizes, a shared mean direction (real
 * embeddings are anisotropic: pairwise cosines are mostly positive), per-vector noise.
 */
function vectors(n, dim, kind, r, centres) {
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const data = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let c = null;
    if (kind === 'clustered') {
      const u = r();
      c = centres[Math.min(centres.length - 1, Math.floor(centres.length * u * u))];
    }
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const v = kind === 'clustered' ? c[j] + 0.9 * gauss() : gauss();
      data[i * dim + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) data[i * dim + j] /= norm;
  }
  return { data, rows: n, dim };
}

function overlap(approx, exact, k) {
  let s = 0;
  for (let q = 0; q < exact.length; q++) {
    const want = new Set(Array.from(exact[q].indices.subarray(0, k)));
    let hit = 0;
    for (const i of approx[q].indices.subarray(0, k)) if (want.has(i)) hit++;
    s += hit / Math.min(k, want.size);
  }
  return s / exact.length;
}

const secs = (t) => ((performance.now() - t) / 1000).toFixed(2);

async function benchIndex(o) {
  for (const dim of o.dims) {
    const r = rng(o.seed * 1000 + dim);
    const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
    const mean = Array.from({ length: dim }, () => gauss() * 0.8);
    const centres = Array.from({ length: 300 }, () => Array.from({ length: dim }, (_, j) => mean[j] + gauss()));
    const D = vectors(o.docs, dim, o.data, r, centres);
    const Q = vectors(o.queries, dim, o.data, r, centres);
    const ids = Array.from({ length: o.docs }, (_, i) => `doc-${String(i).padStart(5, '0')}`);
    console.log(`\n## ${o.data} vectors, ${o.docs} docs x ${o.queries} queries x ${dim} dims, k = ${o.k}`);
    let t = performance.now();
    const exact = await exactTopKFast(D, ids, Q, o.k, o.threads ? { threads: o.threads } : {});
    const exactTime = secs(t);
    const checks = [exactSampleCheck({ docs: D, ids, queries: Q, exact, k: o.k })];
    let jsTime = null;
    if (o.js) {
      t = performance.now();
      const ref = exactTopK(D, ids, Q, o.k);
      jsTime = secs(t);
      const c = new Check('exact top-k of every query (GEMM path)', 'the plain JS kernel (exactTopK)');
      ref.forEach((x, q) => compareTopK(c, `query ${q}`, exact[q], x));
      checks.push(c);
    }
    if (!checked(`exact search, ${dim} dims: FAILED`, checks)) continue;
    console.log(`exact (GEMM screen + exact re-score): ${exactTime} s`);
    if (jsTime !== null) console.log(`exact (plain JS kernel): ${jsTime} s; identical to the GEMM path`);
    hnswGrid(o, D, ids, Q, exact);
  }
}

function hnswGrid(o, D, ids, Q, exact) {
  console.log('| M | efConstruction | build s | efSearch | search s | overlap@10 | overlap@20 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const M of o.M) {
    let t = performance.now();
    const index = buildHnsw(D, { M, efConstruction: o.efConstruction, seed: 100 });
    const build = secs(t);
    for (const ef of o.ef) {
      t = performance.now();
      const approx = hnswTopK(index, D, ids, Q, o.k, ef);
      const search = secs(t);
      console.log(`| ${M} | ${o.efConstruction} | ${build} | ${ef} | ${search} | ${overlap(approx, exact, 10).toFixed(4)} | ${overlap(approx, exact, Math.min(20, o.k)).toFixed(4)} |`);
    }
  }
}

function readJsonl(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

async function benchEncode(o) {
  const skillsPath = join(o.sample, 'skills', 'test.jsonl');
  if (!existsSync(skillsPath)) {
    console.log(`\n(encoding benchmark skipped: ${skillsPath} not found)`);
    return;
  }
  const preset = findEmbedderPreset(o.model);
  const models = modelsDir();
  const ref = preset?.localFolder ? join(models, preset.localFolder) : preset?.hubId ?? o.model;
  if (preset?.localFolder && !existsSync(join(ref, 'config.json'))) {
    console.log(`\n(encoding benchmark skipped: ${ref} not built; run the GloVe conversion first)`);
    return;
  }
  const loc = { offline: offlineFromEnv(), cacheDir: defaultCacheDir(), modelsDir: models };
  const s = (v) => (typeof v === 'string' ? v.trim() : '');
  const docs = readJsonl(skillsPath).map((x) => [s(x.name), s(x.description), s(x.skill_md) || s(x.description)].join(' | '));
  const queries = readJsonl(join(o.sample, 'queries', 'test.jsonl')).map((x) => x.query);
  const opts = {
    queryPrefix: preset?.queryPrefix ?? '',
    docPrefix: preset?.docPrefix ?? '',
    pooling: preset?.pooling ?? 'mean',
    normalize: preset?.normalize ?? true,
    maxTokens: preset?.maxTokens ?? null,
    dtype: preset?.defaultDtype ?? 'fp32',
    batchSize: 16,
    ...(o.threads ? { threads: o.threads } : {}),
  };
  let t = performance.now();
  const e = await Embedder.load(resolveModel(ref, loc), opts, loc);
  console.log(`\n## encoding with ${o.model} (${e.model.location}), load ${secs(t)} s, max tokens ${e.maxLength}`);
  for (const [role, texts] of [['document', docs], ['query', queries]]) {
    await e.embed(texts, role);
    const st = e.lastRun;
    console.log(
      `${role}s: ${st.texts} texts, ${st.tokens} tokens (padded ${st.paddedTokens}), tokenize ${st.tokenizeSeconds.toFixed(2)} s, ` +
        `encode ${st.encodeSeconds.toFixed(2)} s = ${st.textsPerSec.toFixed(1)} texts/s, ${Math.round(st.tokensPerSec)} tokens/s; ` +
        `truncated ${st.truncatedTexts}`,
    );
  }
  if (o.textIndex) await benchTextIndex(o, e, readJsonl(skillsPath), queries);
  await e.dispose();
}

/**
 * Sample-like corpus of distinct documents that cluster by topic, as skills do: each document is
 * `name | description | ` of one sample skill plus a window of 1-3 consecutive paragraphs of that
 * skill's SKILL.md (distinct windows). Queries: the sample queries, then single paragraphs.
 */
async function benchTextIndex(o, e, skills, sampleQueries) {
  const r = rng(o.seed);
  const windows = [];
  for (const x of skills) {
    const paras = (typeof x.skill_md === 'string' ? x.skill_md.split(/\n\s*\n/) : []).filter((p) => p.trim().length > 40);
    for (let i = 0; i < paras.length; i++) windows.push({ head: `${x.name} | ${x.description} | `, paras, i });
  }
  for (let i = windows.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [windows[i], windows[j]] = [windows[j], windows[i]];
  }
  const docs = windows.slice(0, o.docs).map((w) => w.head + w.paras.slice(w.i, w.i + 1 + Math.floor(r() * 3)).join('\n\n'));
  const rest = windows.slice(o.docs);
  const queries = Array.from({ length: o.queries }, (_, i) =>
    i < sampleQueries.length ? sampleQueries[i] : ((w) => w.paras[w.i])(rest.length > 0 ? rest[i % rest.length] : windows[i % windows.length]),
  );
  let t = performance.now();
  const dv = await e.embed(docs, 'document');
  const qv = await e.embed(queries, 'query');
  console.log(`\n## HNSW on ${e.model.location} embeddings of ${o.docs} sample-like documents x ${o.queries} queries (embedding ${secs(t)} s)`);
  const dim = dv[0].length;
  const pack = (vs) => {
    const data = new Float32Array(vs.length * dim);
    vs.forEach((v, i) => data.set(v, i * dim));
    return { data, rows: vs.length, dim };
  };
  const D = pack(dv);
  const Q = pack(qv);
  const ids = Array.from({ length: o.docs }, (_, i) => `doc-${String(i).padStart(5, '0')}`);
  t = performance.now();
  const exact = await exactTopKFast(D, ids, Q, o.k, o.threads ? { threads: o.threads } : {});
  const exactTime = secs(t);
  if (!checked('exact search on text embeddings: FAILED', [exactSampleCheck({ docs: D, ids, queries: Q, exact, k: o.k })])) return;
  console.log(`exact (GEMM screen + exact re-score): ${exactTime} s`);
  hnswGrid(o, D, ids, Q, exact);
}

const o = parseArgs(process.argv.slice(2));
if (!o.skipIndex) await benchIndex(o);
if (!o.skipEncode) await benchEncode(o);
console.log(`\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
if (failed) process.exitCode = 1;
