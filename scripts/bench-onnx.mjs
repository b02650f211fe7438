/**
 * Overhead of the dense encoding path (transformers.js: tokenizing, framing, length-bucket
 * batching, padding, pooling, normalising) over raw onnxruntime-node running the same ONNX model on
 * the same input ids, batch shapes and thread count. Also the effect of length-bucket batching: the
 * same texts in fixed input-order batches padded to their longest text. Prints one JSON line:
 * {model, texts, threads, ours: {total, tokenize, encode}, raw: {buckets, inputOrder},
 *  paddedTokens: {buckets, inputOrder}, overheadEncode, overheadTotal}.
 * Imports the compiled code: run `npm run build` first.
 *
 *   node scripts/bench-onnx.mjs [--model glove-6b-100d-static] [--texts 1500] [--threads 2] [--batch 16] [--data DIR]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { findEmbedderPreset } from '../dist/models/embedder-presets.js';
import { resolveModel } from '../dist/models/resolve.js';
import { planBatches } from '../dist/util/batch-plan.js';
import { DEFAULT_MAX_BATCH_TOKENS, Embedder } from '../dist/retrieval/dense/embedder.js';
import { defaultCacheDir, modelsDir } from '../dist/util/paths.js';

const argv = process.argv.slice(2);
const arg = (n, d) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : d;
};
const modelName = arg('--model', 'glove-6b-100d-static');
const nTexts = Number(arg('--texts', '1500'));
const threads = Number(arg('--threads', '2'));
const batchSize = Number(arg('--batch', '16'));
const data = arg('--data', new URL('../../shared/data/skillret-sample', import.meta.url).pathname);

const skills = readFileSync(join(data, 'skills', 'test.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const base = skills.map((s) => `${(s.name ?? '').trim()} | ${(s.description ?? '').trim()} | ${(s.skill_md ?? '').trim()}`);
const texts = Array.from({ length: nTexts }, (_, i) => base[i % base.length] + (i >= base.length ? ` (${i})` : ''));

const preset = findEmbedderPreset(modelName);
const loc = { offline: true, cacheDir: defaultCacheDir(), modelsDir: modelsDir() };
const ref = preset?.localFolder ? join(modelsDir(), preset.localFolder) : modelName;
const e = await Embedder.load(
  resolveModel(ref, loc),
  {
    queryPrefix: preset?.queryPrefix ?? '',
    docPrefix: preset?.docPrefix ?? '',
    pooling: preset?.pooling ?? 'mean',
    normalize: preset?.normalize ?? true,
    maxTokens: preset?.maxTokens ?? null,
    dtype: 'fp32',
    batchSize,
    threads,
  },
  loc,
);
const session = await ort.InferenceSession.create(e.modelFiles[0], { intraOpNumThreads: threads, interOpNumThreads: 1 });

// Warm both paths once.
await e.embed(texts.slice(0, 32), 'document');
const tok = e.tokenize(texts, 'document').map((t) => t.ids);

async function raw(batches, widths, rows) {
  const t0 = performance.now();
  for (let b = 0; b < batches.length; b++) {
    const lists = batches[b].map((i) => tok[i]);
    while (lists.length < rows[b]) lists.push(lists[0]);
    const B = lists.length;
    const T = widths[b];
    const ids = new BigInt64Array(B * T);
    const mask = new BigInt64Array(B * T);
    lists.forEach((list, r) => {
      const off = r * T + (e.paddingSide === 'left' ? T - list.length : 0);
      for (let j = 0; j < list.length; j++) {
        ids[off + j] = BigInt(list[j]);
        mask[off + j] = 1n;
      }
    });
    const out = await session.run({ input_ids: new ort.Tensor('int64', ids, [B, T]), attention_mask: new ort.Tensor('int64', mask, [B, T]) });
    for (const v of Object.values(out)) v.dispose?.();
  }
  return (performance.now() - t0) / 1000;
}

const lengths = tok.map((t) => t.length);
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

const runs = Number(arg('--runs', '3'));
const res = { ours: [], oursEncode: [], oursTokenize: [], rawBuckets: [], rawOrder: [] };
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  await e.embed(texts, 'document');
  res.ours.push((performance.now() - t0) / 1000);
  res.oursEncode.push(e.lastRun.encodeSeconds);
  res.oursTokenize.push(e.lastRun.tokenizeSeconds);
  res.rawBuckets.push(await raw(plan.batches, plan.widths, plan.rows));
  res.rawOrder.push(await raw(order.batches, order.widths, order.rows));
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ours = { total: med(res.ours), tokenize: med(res.oursTokenize), encode: med(res.oursEncode) };
const rawB = med(res.rawBuckets);
console.log(
  JSON.stringify({
    model: modelName,
    texts: nTexts,
    threads,
    batchSize,
    runs,
    ours,
    raw: { buckets: rawB, inputOrder: med(res.rawOrder) },
    samples: res,
    paddedTokens: { buckets: plan.paddedTokens, inputOrder: order.padded, real: lengths.reduce((a, b) => a + b, 0) },
    overheadEncode: ours.encode / rawB - 1,
    overheadTotal: ours.total / rawB - 1,
  }),
);
await e.dispose();
