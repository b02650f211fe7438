/**
 * Overhead of the dense encoding path over raw onnxruntime-node running the same ONNX model on
 * the same input ids, batch shapes and thread count.
 *
 * Ours = the whole cold path of a dense stage: `encodeWithCache` with an empty cache folder
 * (cache keys, tokenizing, framing, length-bucket batching, padding, the transformers.js forward,
 * pooling, normalising, writing the cache chunks). Raw = `InferenceSession.run` on the token ids
 * ours produced (tokenized before the clock starts), in ours' length-bucket batches and tensor
 * shapes, tensors built in the loop, no pooling. Also raw onnxruntime-node in input-order batches
 * (each padded to its longest text, no filler rows): the effect of length-sorted batching.
 * Each of our passes uses a freshly loaded embedder (loading is not timed), so nothing it learnt
 * about the texts in an earlier pass (unigram-fast.ts's word memo) carries over.
 * Ours and raw (buckets) alternate, taking turns at going first (ABBA), then raw (input order),
 * `--runs` times; wall and CPU seconds
 * (process user + system: both onnxruntime threads) per pass, medians.
 *
 * Before anything is timed, the values are checked: the vectors of one untimed pass of ours (a
 * fresh embedder, an empty cache folder) against raw onnxruntime-node's token states on the same
 * ids, batches and shapes, pooled and normalised here by their plain definition (the preset's
 * pooling over the attention mask in double precision, token by token; L2 normalisation of the
 * float32 vector by max(norm, 1e-12)), bit for bit. The output's `checks` holds the result; when a
 * value differs the script prints only {checks, failed: true} and exits 1, timing nothing.
 *
 * Text sets (`--set`): `documents` (name | description | skill_md of the skills: long, most cut to
 * the model's window), `short` (name | description: short, varied lengths, where batching by
 * length matters). Prints one JSON line. Imports the compiled code: run `npm run build` first.
 *
 *   node scripts/bench-onnx.mjs [--model use-lite-512] [--set documents|short] [--texts 300]
 *     [--threads 2] [--batch 16] [--runs 3] [--data DIR]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { findEmbedderPreset } from '../dist/models/embedder-presets.js';
import { resolveModel } from '../dist/models/resolve.js';
import { planBatches } from '../dist/util/batch-plan.js';
import { DEFAULT_MAX_BATCH_TOKENS, Embedder } from '../dist/retrieval/dense/embedding/embedder.js';
import { encodeWithCache } from '../dist/retrieval/dense/embedding/encode-cached.js';
import { defaultCacheDir, modelsDir } from '../dist/util/paths.js';
import { Check, compareVectors } from './bench-checks.mjs';

const argv = process.argv.slice(2);
const arg = (n, d) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : d;
};
const modelName = arg('--model', 'use-lite-512');
const set = arg('--set', 'documents');
const nTexts = Number(arg('--texts', '300'));
const threads = Number(arg('--threads', '2'));
const batchSize = Number(arg('--batch', '16'));
const runs = Number(arg('--runs', '3'));
const data = arg('--data', new URL('../../shared/data/skillret-sample', import.meta.url).pathname);
if (!['documents', 'short'].includes(set)) throw new Error('--set: documents or short');

const skills = readFileSync(join(data, 'skills', 'test.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const t = (v) => (typeof v === 'string' ? v.trim() : '');
const base = skills.map((s) => (set === 'documents' ? `${t(s.name)} | ${t(s.description)} | ${t(s.skill_md)}` : `${t(s.name)} | ${t(s.description)}`));
// Distinct texts (the cache encodes each distinct text once).
const texts = Array.from({ length: nTexts }, (_, i) => base[i % base.length] + (i >= base.length ? ` (${i})` : ''));

const preset = findEmbedderPreset(modelName);
const loc = { offline: true, cacheDir: defaultCacheDir(), modelsDir: modelsDir() };
const ref = preset?.localFolder ? join(modelsDir(), preset.localFolder) : modelName;
const options = {
    queryPrefix: preset?.queryPrefix ?? '',
    docPrefix: preset?.docPrefix ?? '',
    pooling: preset?.pooling ?? 'mean',
    normalize: preset?.normalize ?? true,
    maxTokens: preset?.maxTokens ?? null,
    dtype: 'fp32',
    batchSize,
    threads,
};
const load = () => Embedder.load(resolveModel(ref, loc), options, loc);
// `e` tokenizes for the raw runs; each of our runs gets a freshly loaded embedder, warmed on a
// text of its own, so its tokenizer starts as cold as in a run (unigram-fast.ts remembers words).
const e = await load();
// Raw sessions are created fresh for each pass too (not timed) and warmed on the same one text,
// so both sides start with the same cold per-shape state.
const rawSession = async () => {
  const s = await ort.InferenceSession.create(e.modelFiles[0], { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const w = e.tokenize([warmText], 'document')[0].ids;
  await run(s, [[w]], [w.length], [1]);
  return s;
};

const warmText = 'Warm-up text for the session and the compiler, not part of the measured set.';
await e.embed([warmText], 'document');
const tok = e.tokenize(texts, 'document').map((x) => x.ids);


/**
 * The raw onnxruntime feeds of one padded batch: token lists padded with the first list to `rows`,
 * ids and mask laid out `width` wide on the model's padding side (token_type_ids zeros when the
 * model takes them).
 */
function rawFeeds(ort, inputNames, paddingSide, lists, rows, width) {
  while (lists.length < rows) lists.push(lists[0]);
  const B = lists.length;
  const T = width;
  const ids = new BigInt64Array(B * T);
  const mask = new BigInt64Array(B * T);
  lists.forEach((list, r) => {
    const off = r * T + (paddingSide === 'left' ? T - list.length : 0);
    for (let j = 0; j < list.length; j++) {
      ids[off + j] = BigInt(list[j]);
      mask[off + j] = 1n;
    }
  });
  const feeds = { input_ids: new ort.Tensor('int64', ids, [B, T]), attention_mask: new ort.Tensor('int64', mask, [B, T]) };
  if (inputNames.has('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(B * T), [B, T]);
  return { feeds, B, T, mask };
}

async function run(session, lists0, widths, rows) {
  const inputNames = new Set(session.inputNames);
  for (let b = 0; b < lists0.length; b++) {
    const { feeds } = rawFeeds(ort, inputNames, e.paddingSide, [...lists0[b]], rows[b], widths[b]);
    const out = await session.run(feeds);
    for (const v of Object.values(out)) v.dispose?.();
  }
}

/** Raw onnxruntime-node over `batches` (lists of text positions) with a fresh session. */
async function raw(batches, widths, rows) {
  const session = await rawSession();
  const lists = batches.map((b) => b.map((i) => tok[i]));
  try {
    return await timed(() => run(session, lists, widths, rows));
  } finally {
    await session.release();
  }
}

const lengths = tok.map((x) => x.length);
const plan = planBatches(lengths, batchSize, DEFAULT_MAX_BATCH_TOKENS, e.maxLength);
const order = { batches: [], widths: [], rows: [], padded: 0 };
for (let i = 0; i < tok.length; i += batchSize) {
  const b = Array.from({ length: Math.min(batchSize, tok.length - i) }, (_, j) => i + j);
  const w = Math.max(...b.map((j) => lengths[j]));
  order.batches.push(b);
  order.widths.push(w);
  order.rows.push(b.length);
  order.padded += b.length * w;
}

/** Wall and CPU seconds of `fn`. */
async function timed(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, r };
}

/**
 * Raw onnxruntime-node's token states over `plan`'s batches, pooled and normalised by the plain
 * definition (see the module comment): one vector per text, in text order.
 */
async function rawVectors() {
  const session = await rawSession();
  const out = new Array(tok.length);
  try {
    const inputNames = new Set(session.inputNames);
    for (let b = 0; b < plan.batches.length; b++) {
      const { feeds, B, T, mask } = rawFeeds(ort, inputNames, e.paddingSide, plan.batches[b].map((i) => tok[i]), plan.rows[b], plan.widths[b]);
      const res = await session.run(feeds);
      const is3d = (v) => v && v.dims?.length === 3 && v.dims[0] === B && v.dims[1] === T;
      const hidden = is3d(res.last_hidden_state) ? res.last_hidden_state : is3d(res.token_embeddings) ? res.token_embeddings : Object.values(res).find(is3d);
      if (!hidden) throw new Error(`raw: no [batch, tokens, hidden] output (${Object.keys(res).join(', ')})`);
      const H = hidden.dims[2];
      const data = hidden.data;
      plan.batches[b].forEach((i, r) => {
        const real = [];
        for (let t = 0; t < T; t++) if (mask[r * T + t] !== 0n) real.push(t);
        const acc = new Float64Array(H);
        if (options.pooling === 'mean') {
          for (const t of real) for (let j = 0; j < H; j++) acc[j] += data[(r * T + t) * H + j];
          for (let j = 0; j < H; j++) acc[j] /= real.length;
        } else {
          const t = options.pooling === 'cls' ? real[0] : real[real.length - 1];
          for (let j = 0; j < H; j++) acc[j] = data[(r * T + t) * H + j];
        }
        const v = Float32Array.from(acc);
        if (options.normalize) {
          let ss = 0;
          for (let j = 0; j < H; j++) ss += v[j] * v[j];
          const n = Math.max(Math.sqrt(ss), 1e-12);
          for (let j = 0; j < H; j++) v[j] = v[j] / n;
        }
        out[i] = v;
      });
      for (const v of Object.values(res)) v.dispose?.();
    }
  } finally {
    await session.release();
  }
  return out;
}

/** One untimed pass of ours against raw onnxruntime-node's pooled states (see the module comment). */
async function checkValues() {
  const cacheDir = mkdtempSync(join(tmpdir(), 'bench-onnx-check-'));
  const fresh = await load();
  let vectors;
  try {
    await fresh.embed([warmText], 'document');
    ({ vectors } = await encodeWithCache(fresh, texts, 'document', { modelSha256: 'bench', tokenizerSha256: 'bench', cache: { cacheDir, useCache: true, log: () => {} } }));
  } finally {
    await fresh.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const c = new Check(`${modelName} vectors of the ${texts.length} ${set} texts (${options.pooling} pooling${options.normalize ? ', normalised' : ''})`, 'raw onnxruntime-node on the same ids and batches, pooled by the plain definition, every bit');
  compareVectors(c, vectors, await rawVectors());
  return c;
}

const checks = [await checkValues()];
if (!checks.every((c) => c.ok)) {
  console.log(JSON.stringify({ model: modelName, set, texts: nTexts, checks, failed: true }));
  await e.dispose();
  process.exit(1);
}

const res = { ours: [], oursCpu: [], oursTokenize: [], oursForward: [], rawBuckets: [], rawBucketsCpu: [], rawOrder: [], rawOrderCpu: [] };
/** Our whole cold path, with a freshly loaded embedder and an empty cache folder. */
async function oursPass() {
  const cacheDir = mkdtempSync(join(tmpdir(), 'bench-onnx-cache-'));
  const fresh = await load();
  try {
    await fresh.embed([warmText], 'document');
    const o = await timed(() =>
      encodeWithCache(fresh, texts, 'document', { modelSha256: 'bench', tokenizerSha256: 'bench', cache: { cacheDir, useCache: true, log: () => {} } }),
    );
    if (o.r.stats.encoded !== texts.length) throw new Error(`expected ${texts.length} texts encoded, got ${o.r.stats.encoded}`);
    res.ours.push(o.wall);
    res.oursCpu.push(o.cpu);
    res.oursTokenize.push(o.r.stats.run.tokenizeSeconds);
    res.oursForward.push(o.r.stats.run.encodeSeconds);
  } finally {
    await fresh.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
async function rawBucketsPass() {
  const b = await raw(plan.batches, plan.widths, plan.rows);
  res.rawBuckets.push(b.wall);
  res.rawBucketsCpu.push(b.cpu);
}
// Ours and raw (buckets) swap places from run to run (ABBA), so neither is always the first pass
// after a load or always the one after the other's garbage; raw in input order comes last.
for (let r = 0; r < runs; r++) {
  if (r % 2 === 0) {
    await oursPass();
    await rawBucketsPass();
  } else {
    await rawBucketsPass();
    await oursPass();
  }
  const i = await raw(order.batches, order.widths, order.rows);
  res.rawOrder.push(i.wall);
  res.rawOrderCpu.push(i.cpu);
}
const med = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
// Per-run ratios (each run's passes ran back to back), then their median.
const ratios = res.ours.map((o, k) => o / res.rawBuckets[k]);
const cpuRatios = res.oursCpu.map((o, k) => o / res.rawBucketsCpu[k]);
const ours = { total: med(res.ours), cpu: med(res.oursCpu), tokenize: med(res.oursTokenize), forward: med(res.oursForward) };
console.log(
  JSON.stringify({
    model: modelName,
    set,
    texts: nTexts,
    threads,
    batchSize,
    runs,
    fastTokenizer: e.fastTokenizer,
    ours,
    raw: { buckets: med(res.rawBuckets), bucketsCpu: med(res.rawBucketsCpu), inputOrder: med(res.rawOrder), inputOrderCpu: med(res.rawOrderCpu) },
    samples: res,
    paddedTokens: { buckets: plan.paddedTokens, inputOrder: order.padded, real: lengths.reduce((a, b) => a + b, 0) },
    overheadTotal: med(ratios) - 1,
    overheadCpu: med(cpuRatios) - 1,
    overheadPerRun: ratios.map((x) => x - 1),
    checks,
  }),
);
await e.dispose();
