/**
 * Metrics benchmark: scoring a run shaped like a full v1.1 evaluation (4,392 queries × 20
 * retrieved, 1–3 gold each) at the 15 official measures + MRR, in-process and through the
 * `score` command (read TREC run + qrels files, evaluate, print JSON). Reference:
 * trec_eval 10.0 takes 0.19 s wall for the same job on this kind of machine (measurements.md).
 * Imports the compiled code: run `npm run build` first.
 *
 * Values before speeds: before anything is timed, `skillret-eval score`'s per-query values and
 * means on the written files are checked against the Map-based evaluator on a plain reading of
 * them (scripts/bench-checks.mjs scoreChecks; with --trec-eval PATH also against trec_eval), and
 * afterwards the timed in-process calls must print the checked values; on a difference the script
 * prints FAILED with the first differences instead of times and exits 1.
 *
 *   node scripts/bench-metrics.mjs [--trec-eval PATH] [--queries 4392] [--depth 20] [--seed 1]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Check, cFixed, failedSectionMarkdown, scoreChecks } from './bench-checks.mjs';
import { evaluate } from '../dist/metrics/evaluate.js';
import { defaultMeasures } from '../dist/metrics/measures.js';
import { scoreCommand } from '../dist/commands/score.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const Q = Number(args.queries ?? 4392);
const depth = Number(args.depth ?? 20);
let seed = Number(args.seed ?? 1);
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

const qrels = new Map();
const run = new Map();
const qrelLines = [];
const runLines = [];
for (let q = 0; q < Q; q++) {
  const qid = `q-${String(q).padStart(5, '0')}`;
  const gold = new Map();
  const g = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < g; i++) gold.set(`s-${Math.floor(rand() * 6006)}`, 1);
  qrels.set(qid, gold);
  for (const [d, r] of gold) qrelLines.push(`${qid} 0 ${d} ${r}`);
  const docs = [];
  const seen = new Set();
  while (docs.length < depth) {
    const d = rand() < 0.1 ? [...gold.keys()][0] : `s-${Math.floor(rand() * 6006)}`;
    if (seen.has(d)) continue;
    seen.add(d);
    const score = Math.round(rand() * 50) / 2; // coarse scores: many ties
    docs.push({ docId: d, score });
    runLines.push(`${qid} Q0 ${d} ${docs.length} ${score} bench`);
  }
  run.set(qid, docs);
}
const measures = defaultMeasures([5, 10, 15]);
const dir = mkdtempSync(join(tmpdir(), 'bench-metrics-'));
writeFileSync(join(dir, 'run.trec'), runLines.join('\n') + '\n');
writeFileSync(join(dir, 'qrels.txt'), qrelLines.join('\n') + '\n');
const fail = (checks) => {
  console.log(failedSectionMarkdown('metrics: FAILED', checks));
  process.exit(1);
};
// Values first (see the module comment).
const cli = fileURLToPath(new URL('../bin/skillret-eval.js', import.meta.url));
const checked = await scoreChecks({ node: process.execPath, cli, qrelsPath: join(dir, 'qrels.txt'), runPath: join(dir, 'run.trec'), trecEval: args['trec-eval'] ?? null, label: `${Q} × ${depth}` });
if (!checked.checks.every((c) => c.ok)) fail(checked.checks);
const t0 = process.hrtime.bigint();
const e = evaluate(qrels, run, measures);
const t1 = process.hrtime.bigint();
const t2 = process.hrtime.bigint();
const printed = await scoreCommand({ qrels: join(dir, 'qrels.txt'), run: join(dir, 'run.trec'), k: [5, 10, 15], format: 'json', split: 'test' });
const t3 = process.hrtime.bigint();
const timed = new Check('metrics of the timed evaluate() and score command', 'the checked values');
const printedMetrics = JSON.parse(printed).metrics;
for (const [k, v] of Object.entries(checked.metrics)) timed.same(`score command ${k}`, printedMetrics[k], v);
for (const [k, v] of Object.entries(checked.metrics)) timed.same(`evaluate() ${k}, rounded to 5 decimals`, Number(cFixed(e.aggregate[k], 5)), v);
if (!timed.ok) fail([...checked.checks, timed]);
for (const c of checked.checks) console.log(c.line());
console.log(`metrics: ${Q} queries × ${depth}, ${measures.length} measures`);
console.log(`  evaluate() in process: ${(Number(t1 - t0) / 1e6).toFixed(1)} ms (NDCG@10 ${e.aggregate['NDCG@10'].toFixed(5)})`);
console.log(`  score command (read run + qrels files, evaluate, JSON): ${(Number(t3 - t2) / 1e6).toFixed(1)} ms`);
console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
