/**
 * HNSW against exact search (the GEMM path) at one corpus size: synthetic clustered unit vectors
 * (the generator of scripts/bench-dense.mjs: 300 Zipf-sized centres around a shared direction),
 * build time, then for each efSearch of `--ef` (one graph, searched once per value): per-query
 * latency p50/p95 of the graph search (single query, exact re-scoring included) and overlap@10
 * with exact top-10 (latency also as CPU time per query, which waiting for a core does not inflate); memory per vector (resident-memory growth of the build over the vectors,
 * and hnswlib's own layout computed from M and the dimension), and exact search time per query
 * at the same size. Prints one JSON line; `sweep` holds one entry per efSearch, and the top-level
 * p50ms/p95ms/overlap10/efSearch are those of the last value.
 * Imports the compiled code: run `npm run build` first.
 *
 * Before the graph is built or searched, the exact side (exactTopKFast, the reference of every
 * overlap figure) is checked against a plain dot-product search (scripts/bench-checks.mjs plainTopK:
 * double sums rounded to float32, ties by id) on `--check-queries` queries (the first, the last,
 * both sides of the GEMM path's query-block edges, then evenly spread): rank by rank, the same
 * documents with the same float32 scores. The output's `checks` holds the result; when a value
 * differs the script prints only {checks, failed: true} and exits 1, timing nothing further.
 *
 * --graph-cache DIR keeps the graph (the dense stage's own store, src/retrieval/dense/indexes/hnsw.ts,
 * checked by size and sha256 before reuse) and its measured build time, so a later sweep with
 * other efSearch values over the same vectors and parameters does not rebuild it (the 1M graph
 * takes about an hour on 2 cores); the output then says `graphReused` and when it was built.
 *
 *   node scripts/bench-hnsw.mjs --docs 100000 [--dim 384] [--queries 1000] [--M 32]
 *     [--ef-construction 200] [--ef 64,128,200] [--k 10] [--seed 1] [--graph-cache DIR] [--check-queries 16]
 *     [--addon FILE]   # another build of hnswlib-node's addon.node (the output's `addon` says which SIMD it uses)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { exactSampleCheck } from './bench-checks.mjs';

// --addon FILE: search with another build of hnswlib-node's native addon (e.g. one compiled with
// CXXFLAGS=-march=native), loaded in place of build/Release/addon.node: the graph file is the same.
const require = createRequire(import.meta.url);
const addonAt = process.argv.indexOf('--addon');
const defaultAddon = join(dirname(require.resolve('hnswlib-node')), '..', 'build', 'Release', 'addon.node');
const addonPath = addonAt >= 0 ? resolve(process.argv[addonAt + 1]) : defaultAddon;
if (addonAt >= 0) {
  if (!existsSync(addonPath)) throw new Error(`--addon: ${addonPath} not found`);
  const Module = require('node:module');
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'bindings' && parent?.filename?.includes(`${'node_modules'}/hnswlib-node/`)) return () => load.call(this, addonPath, parent, isMain);
    return load.call(this, request, parent, isMain);
  };
}
/** Which SIMD registers the addon's code uses (objdump, where installed): zmm = AVX-512, ymm = AVX. */
function addonSimd(path) {
  const r = spawnSync('objdump', ['-d', '--no-show-raw-insn', path], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) return 'unknown (objdump not available)';
  const zmm = (r.stdout.match(/%zmm/g) ?? []).length;
  const ymm = (r.stdout.match(/%ymm/g) ?? []).length;
  return zmm > 0 ? `AVX-512 (${zmm} zmm operands)` : ymm > 0 ? `AVX (${ymm} ymm operands)` : 'SSE only (no ymm/zmm operands)';
}
const addon = { path: addonPath, simd: addonSimd(addonPath), replaced: addonAt >= 0 };
const { exactTopKFast } = await import('../dist/retrieval/dense/indexes/exact-fast.js');
const { buildHnsw, buildOrLoadHnsw } = await import('../dist/retrieval/dense/indexes/hnsw.js');
const { dotRows, rankCandidates, tieRanks } = await import('../dist/retrieval/dense/indexes/exact.js');

const arg = (n, d) => {
  const i = process.argv.indexOf(n);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const list = (n, d) => {
  const i = process.argv.indexOf(n);
  const v = i >= 0 ? process.argv[i + 1].split(',').map(Number) : d;
  if (v.some((x) => !Number.isInteger(x) || x < 1)) throw new Error(`${n}: positive integers, comma-separated`);
  return v;
};
const N = arg('--docs', 6006);
const dim = arg('--dim', 384);
const Q = arg('--queries', 1000);
const M = arg('--M', 32);
const efC = arg('--ef-construction', 200);
const efs = list('--ef', [200]);
const k = arg('--k', 10);
const seed = arg('--seed', 1);
const graphCacheAt = process.argv.indexOf('--graph-cache');
const graphCache = graphCacheAt >= 0 ? process.argv[graphCacheAt + 1] : null;
const checkQueries = arg('--check-queries', 16);

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
const r = rng(seed * 1000 + dim);
const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
const mean = Array.from({ length: dim }, () => gauss() * 0.8);
const centres = Array.from({ length: 300 }, () => Array.from({ length: dim }, (_, j) => mean[j] + gauss()));
function vectors(n) {
  const data = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const u = r();
    const c = centres[Math.min(centres.length - 1, Math.floor(centres.length * u * u))];
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const v = c[j] + 0.9 * gauss();
      data[i * dim + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) data[i * dim + j] /= norm;
  }
  return { data, rows: n, dim };
}

const docs = vectors(N);
const queries = vectors(Q);
const ids = Array.from({ length: N }, (_, i) => `d${String(i).padStart(7, '0')}`);

// The exact side first: every overlap figure is read against it, so it is checked before any
// graph is built or timed.
let t = performance.now();
const cpu0 = process.cpuUsage();
const exact = await exactTopKFast(docs, ids, queries, k);
const exactSeconds = (performance.now() - t) / 1000;
const exactCpu = process.cpuUsage(cpu0);
const checks = [exactSampleCheck({ docs, ids, queries, exact, k, count: checkQueries })];
if (!checks.every((c) => c.ok)) {
  console.log(JSON.stringify({ docs: N, dim, queries: Q, checks, failed: true }));
  process.exit(1);
}

global.gc?.();
const rss0 = process.memoryUsage().rss;
t = performance.now();
let index;
let buildSeconds;
let graph = null; // { reused, builtAt } with --graph-cache
if (graphCache) {
  const h = await buildOrLoadHnsw(docs, { M, efConstruction: efC, efSearch: Math.max(...efs, k), seed: 100 }, { cacheDir: graphCache, useCache: true, log: (l) => process.stderr.write(`${l}\n`) });
  index = h.index;
  const note = join(graphCache, 'hnsw', `${h.info.key}.bench.json`);
  if (h.info.reused && existsSync(note)) {
    const n = JSON.parse(readFileSync(note, 'utf8'));
    buildSeconds = n.buildSeconds;
    graph = { reused: true, builtAt: n.builtAt, loadSeconds: h.info.loadSeconds };
  } else {
    buildSeconds = h.info.reused ? null : h.info.buildSeconds;
    graph = { reused: h.info.reused, builtAt: new Date().toISOString(), loadSeconds: h.info.loadSeconds };
    if (!h.info.reused) writeFileSync(note, JSON.stringify({ buildSeconds, builtAt: graph.builtAt }) + '\n');
  }
} else {
  index = buildHnsw(docs, { M, efConstruction: efC, seed: 100 });
  buildSeconds = (performance.now() - t) / 1000;
}
const rssGrowth = process.memoryUsage().rss - rss0;

const rank = tieRanks(ids);
const sweep = [];
for (const ef of efs) {
  index.setEf(Math.max(ef, k));
  const lat = [];
  const cpu = [];
  const approx = [];
  for (let q = 0; q < Q; q++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const res = index.searchKnn(Array.from(queries.data.subarray(q * dim, (q + 1) * dim)), k);
    const scores = res.neighbors.map((row) => dotRows(queries, q, docs, row));
    approx.push(rankCandidates(res.neighbors, scores, rank, k));
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c1 = process.cpuUsage(c0);
    cpu.push((c1.user + c1.system) / 1000);
  }
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  // Wall-clock latency includes time the process waited for a core (a shared machine); CPU time
  // per query (getrusage, microseconds) does not.
  sweep.push({ efSearch: ef, p50ms: pct(lat, 0.5), p95ms: pct(lat, 0.95), cpuP50ms: pct(cpu, 0.5), cpuP95ms: pct(cpu, 0.95), approx });
}
for (const s of sweep) {
  let hit = 0;
  for (let q = 0; q < Q; q++) {
    const want = new Set(Array.from(exact[q].indices));
    for (const i of s.approx[q].indices) if (want.has(i)) hit++;
  }
  s.overlap10 = hit / (Q * k);
  delete s.approx;
}
// hnswlib's layout (hnswalg.h): per element, level-0 links (2M ids + a count), the vector and its
// label; a pointer to its upper-level links, whose expected size is (M ids + a count) x 1/(M - 1)
// levels; a mutex (40 bytes on Linux/glibc) and a label-map entry (about 40 bytes).
const layoutBytes = (2 * M + 1) * 4 + dim * 4 + 8 + 8 + ((M + 1) * 4) / (M - 1) + 40 + 40;
const last = sweep[sweep.length - 1];
console.log(
  JSON.stringify({
    docs: N,
    dim,
    queries: Q,
    M,
    efConstruction: efC,
    efSearch: last.efSearch,
    buildSeconds,
    p50ms: last.p50ms,
    p95ms: last.p95ms,
    overlap10: last.overlap10,
    sweep,
    bytesPerVector: rssGrowth / N,
    layoutBytesPerVector: layoutBytes,
    rawVectorBytes: dim * 4,
    exactMsPerQuery: (exactSeconds * 1000) / Q,
    // CPU of all threads (the GEMM runs on onnxruntime's pool), per query.
    exactCpuMsPerQuery: (exactCpu.user + exactCpu.system) / 1000 / Q,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    addon,
    ...(graph ? { graphReused: graph.reused, graphBuiltAt: graph.builtAt, graphLoadSeconds: graph.loadSeconds } : {}),
    checks,
  }),
);
