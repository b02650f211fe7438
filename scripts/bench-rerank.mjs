#!/usr/bin/env node
/**
 * Reranker throughput benchmark: pairs/s of a reranker over (query, skill document) pairs for a
 * grid of batch sizes, onnxruntime thread counts and batches in flight. Uses the compiled code,
 * so run `npm run build` first.
 *
 *   node scripts/bench-rerank.mjs                       # bundled GloVe MaxSim scorer (built offline on demand)
 *   node scripts/bench-rerank.mjs --model <folder> --type qwen3 --batch 1,4 --threads 2
 *
 * Options: --model <folder|glove-6b-100d-maxsim>  --type cross-encoder|qwen3  --pairs N (default 600)
 *          --batch 1,4,8,16,32  --threads 1,<cores>  --concurrency 1,2  --max-tokens N  --json
 * Text: the SkillRet sample when present ($SKILLRET_SAMPLE, default ../shared/data/skillret-sample beside the checkout:
 * queries/test.jsonl and skills/test.jsonl, document = name | description | skill_md), else synthetic
 * skill-like text. Each query is paired with 20 documents (deterministic choice).
 *
 * Values before speeds: first, untimed, the reference scores: every pair scored one at a time
 * (batch 1, one batch in flight, the first thread count), the plain path. Each configuration's
 * scores, cold and warm, must equal them bit for bit (the batch invariance of
 * test/batch-invariance.test.ts, the thread invariance of test/thread-invariance.test.ts); a row
 * whose scores differ is printed as FAILED with its first differences, without pairs/s, and the
 * script exits 1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Check } from './bench-checks.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = (p) => join(root, 'dist', p);
if (!existsSync(dist('rerank/cross-encoder.js'))) {
  console.error('bench-rerank: dist/ is missing; run `npm run build` first');
  process.exit(2);
}
const { loadCrossEncoder } = await import(dist('rerank/cross-encoder.js'));
const { loadQwen3 } = await import(dist('rerank/qwen3.js'));
const { configureTransformersEnv } = await import(dist('models/resolve.js'));
const { modelsDir, defaultCacheDir } = await import(dist('util/paths.js'));
const { SKILL_INSTRUCTION } = await import(dist('models/qwen3-template.js'));

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}
const list = (s) => s.split(',').map((x) => Number.parseInt(x, 10)).filter((x) => x > 0);
const cores = availableParallelism();
const modelArg = arg('model', 'glove-6b-100d-maxsim');
const type = arg('type', 'cross-encoder');
const nPairs = Number.parseInt(arg('pairs', '600'), 10);
const batches = list(arg('batch', '1,4,8,16,32'));
const threadsList = list(arg('threads', [...new Set([1, cores])].join(',')));
const concList = list(arg('concurrency', '1,2'));
const maxTokens = arg('max-tokens') ? Number.parseInt(arg('max-tokens'), 10) : undefined;
const asJson = process.argv.includes('--json');
const log = (s) => process.stderr.write(s + '\n');

// ---- text -------------------------------------------------------------------------------
function readJsonl(p) {
  return readFileSync(p, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}
function loadText() {
  const dir = process.env.SKILLRET_SAMPLE ?? new URL('../../shared/data/skillret-sample', import.meta.url).pathname;
  const qp = join(dir, 'queries', 'test.jsonl');
  const sp = join(dir, 'skills', 'test.jsonl');
  if (existsSync(qp) && existsSync(sp)) {
    const queries = readJsonl(qp).map((q) => String(q.query ?? q.text ?? ''));
    const docs = readJsonl(sp).map((s) => {
      const md = String(s.skill_md ?? '').trim() || String(s.description ?? '').trim();
      return `${String(s.name ?? '').trim()} | ${String(s.description ?? '').trim()} | ${md}`;
    });
    return { source: dir, queries, docs };
  }
  const words = 'skill agent code data file test search query document review deploy build git commit branch api database cloud docker python report metrics security workflow'.split(' ');
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const text = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
  return {
    source: 'synthetic',
    queries: Array.from({ length: 30 }, () => text(12)),
    docs: Array.from({ length: 287 }, (_, i) => `skill-${i} | ${text(15)} | ${text(100 + ((i * 37) % 900))}`),
  };
}
const { source, queries, docs } = loadText();
const pairs = [];
for (let q = 0; pairs.length < nPairs; q = (q + 1) % queries.length) {
  for (let j = 0; j < 20 && pairs.length < nPairs; j++) pairs.push({ query: queries[q], doc: docs[(q * 7 + j * 13) % docs.length] });
}

// ---- model ------------------------------------------------------------------------------
const { env: transformersEnv } = await import('@huggingface/transformers');
configureTransformersEnv({ offline: true, cacheDir: defaultCacheDir(), modelsDir: modelsDir() }, transformersEnv);
let location = resolve(modelArg);
if (modelArg === 'glove-6b-100d-maxsim') {
  const { ensureGloveModels } = await import(dist('models/glove/convert.js'));
  await ensureGloveModels(modelsDir(), { log });
  location = join(modelsDir(), modelArg);
}

async function load(batchSize, threads, concurrency) {
  const common = { id: 'bench', location, dtype: 'fp32', threads, batchSize, concurrency };
  return type === 'qwen3'
    ? loadQwen3({ ...common, maxTokens: maxTokens ?? 32768, template: 'qwen3', instruction: SKILL_INSTRUCTION, skipPaddingCheck: true })
    : loadCrossEncoder({ ...common, ...(maxTokens ? { maxTokens } : {}) });
}

log(`bench-rerank: ${type} ${location}; ${pairs.length} pairs from ${source}; ${cores} cores`);
// The reference scores, untimed: one pair at a time.
let reference;
{
  const r = await load(1, threadsList[0], 1);
  reference = await r.score(pairs);
  await r.dispose();
}
const rows = [];
let failures = 0;
for (const threads of threadsList) {
  for (const batchSize of batches) {
    for (const concurrency of concList) {
      const r = await load(batchSize, threads, concurrency);
      await r.score(pairs.slice(0, Math.min(16, pairs.length))); // warm-up
      const truncatedBefore = r.stats().truncatedPairs;
      // cold: first pass (tokenises every text); warm: same pairs again (cross-encoders memoise
      // document tokens, so this is close to model time).
      let t0 = performance.now();
      const scores = await r.score(pairs);
      const cold = (performance.now() - t0) / 1000;
      t0 = performance.now();
      const warmScores = await r.score(pairs);
      const warm = (performance.now() - t0) / 1000;
      const check = new Check(`batch ${batchSize}, threads ${threads}, in flight ${concurrency}: scores of every pair, cold and warm`, 'each pair scored alone (batch 1), bit for bit');
      for (const [label, got] of [['cold', scores], ['warm', warmScores]]) {
        if (got.length !== reference.length) check.differ(`${label} pair count`, got.length, reference.length);
        reference.forEach((want, i) => check.same(`${label} pair ${i}`, got[i], want));
      }
      const maxDiff = scores.reduce((m, s, i) => Math.max(m, Math.abs(s - reference[i])), 0);
      if (!check.ok) {
        failures++;
        rows.push({ batchSize, threads, concurrency, failed: true, check: check.toJSON() });
        log(`FAILED: ${check.line().slice(2)}; first: ${check.differences.slice(0, 3).map((d) => `${d.where} ${d.ours} vs ${d.reference}`).join('; ')} (no pairs/s reported)`);
        await r.dispose();
        continue;
      }
      const row = {
        batchSize,
        threads,
        concurrency,
        coldSeconds: +cold.toFixed(3),
        coldPairsPerSecond: +(pairs.length / cold).toFixed(1),
        warmSeconds: +warm.toFixed(3),
        warmPairsPerSecond: +(pairs.length / warm).toFixed(1),
        truncatedPairs: (r.stats().truncatedPairs - truncatedBefore) / 2,
        maxDiffVsReference: maxDiff,
      };
      rows.push(row);
      log(
        `batch ${String(batchSize).padStart(3)}  threads ${String(threads).padStart(2)}  in-flight ${concurrency}  ` +
          `cold ${row.coldPairsPerSecond.toFixed(1).padStart(8)} pairs/s  warm ${row.warmPairsPerSecond.toFixed(1).padStart(8)} pairs/s  ` +
          `(scores identical to the one-at-a-time reference)`,
      );
      await r.dispose();
    }
  }
}
if (asJson) process.stdout.write(JSON.stringify({ type, model: location, pairs: pairs.length, source, cores, rows }, null, 2) + '\n');
if (failures > 0) {
  log(`${failures} configuration(s) FAILED: their scores differ from the reference`);
  process.exitCode = 1;
}
