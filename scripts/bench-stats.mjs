/**
 * Significance benchmark: the on/off attribution (randomization test, bootstrap CI, t-test) of a
 * treated run against its base at full size (4,392 queries, 10,000 iterations), per metric: all
 * metrics go through one pass per iteration of one shared stream, so the figure is the whole
 * comparison's time divided by the number of metrics.
 * Prints one JSON line: {queries, iterations, metrics, seconds, perMetric, cpuSeconds, cpuPerMetric,
 * randomization, bootstrap} (wall seconds; CPU = user + system of this process over the same span;
 * randomization / bootstrap: wall seconds per metric of each pass alone over the same matrix).
 * Imports the compiled code: run `npm run build` first.
 *
 * --check times nothing: on the same inputs it compares the outputs of the timed calls (where the
 * runtime has WebAssembly SIMD, the kernels of src/stats/*-simd.ts) with the JavaScript loops they
 * fall back to (engine 'js'), bit for bit: the randomization p-values, the bootstrap means in
 * iteration order, and attribution's p-values and CIs (recomputed from its per-metric differences
 * in UTF-8 query order with the JS loops and quantileSorted). Prints one JSON line {checks: [...]}
 * (scripts/bench-checks.mjs Check objects) and exits 1 when a value differs.
 *
 *   node scripts/bench-stats.mjs [--queries 4392] [--iterations 10000] [--metrics 9] [--check]
 */
import { attribution, comparisonSeeds } from '../dist/significance/attribution.js';
import { bootstrapMeansRows, DEFAULT_LEVEL, resampledMeans } from '../dist/stats/bootstrap.js';
import { randomizationPValues } from '../dist/stats/randomization.js';
import { quantileSorted } from '../dist/stats/quantile.js';
import { simdAvailable } from '../dist/stats/bootstrap-simd.js';
import { signKernelAvailable } from '../dist/stats/randomization-simd.js';
import { Check } from './bench-checks.mjs';

const arg = (n, d) => {
  const i = process.argv.indexOf(n);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const Q = arg('--queries', 4392);
const iterations = arg('--iterations', 10000);
const M = arg('--metrics', 9);
let s = 1;
const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
const keys = Array.from({ length: M }, (_, i) => `M${i}@10`);
const base = new Map();
const treated = new Map();
for (let q = 0; q < Q; q++) {
  const a = {};
  const b = {};
  for (const k of keys) {
    a[k] = Math.round(rand() * 20) / 20;
    b[k] = rand() < 0.6 ? a[k] : Math.round(rand() * 20) / 20;
  }
  base.set(`q${q}`, a);
  treated.set(`q${q}`, b);
}
if (process.argv.includes('--check')) {
  const checks = checkEngines();
  console.log(JSON.stringify({ checks }));
  process.exit(checks.every((c) => c.ok) ? 0 : 1);
}

/** The timed calls' outputs against the JS loops' on the same inputs (see the module comment). */
function checkEngines() {
  const tamper = (process.env.SKILLRET_BENCH_TAMPER ?? '').split(',').includes('stats');
  const qids = [...base.keys()];
  const diffs = new Float64Array(M * Q);
  keys.forEach((k, r) => qids.forEach((q, i) => (diffs[r * Q + i] = treated.get(q)[k] - base.get(q)[k])));
  const eq = (check, what, a, b) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++) check.same(`${what}[${i}]`, tamper && i === 0 ? a[i] + 1e-12 : a[i], b[i]);
  };
  const rand = new Check('randomization p-values (seed 1, as timed)', "the JavaScript loop (engine 'js')");
  eq(rand, 'p', randomizationPValues(diffs, Q, { seed: 1, iterations }), randomizationPValues(diffs, Q, { seed: 1, iterations }, 'js'));
  const boot = new Check('bootstrap means in iteration order (seed 2, as timed)', "the JavaScript loops (engine 'js')");
  const bAuto = resampledMeans(diffs, Q, { seed: 2, iterations });
  const bJs = resampledMeans(diffs, Q, { seed: 2, iterations }, 'js');
  bAuto.forEach((row, r) => eq(boot, `${keys[r]} mean`, row, bJs[r]));
  // attribution: its columns in UTF-8 order of the query ids, its seeds.
  const att = new Check('attribution p-values and 95% CIs (seed 42, as timed)', "the JavaScript loops (engine 'js') on its differences, quantileSorted");
  const order = [...qids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const ad = new Float64Array(M * Q);
  keys.forEach((k, r) => order.forEach((q, i) => (ad[r * Q + i] = treated.get(q)[k] - base.get(q)[k])));
  const seeds = comparisonSeeds(42);
  const res = attribution(base, treated, keys, { seed: 42, iterations });
  const p = randomizationPValues(ad, Q, { seed: seeds.randomization, iterations }, 'js');
  const means = resampledMeans(ad, Q, { seed: seeds.bootstrap, iterations }, 'js').map((m) => m.sort());
  const alpha = 1 - DEFAULT_LEVEL;
  keys.forEach((k, r) => {
    att.same(`${k} p`, res.metrics[k].randomization.pValue, p[r]);
    att.same(`${k} CI low`, res.metrics[k].bootstrap.low, quantileSorted(means[r], alpha / 2));
    att.same(`${k} CI high`, res.metrics[k].bootstrap.high, quantileSorted(means[r], 1 - alpha / 2));
  });
  rand.note(`WebAssembly SIMD kernel ${signKernelAvailable() ? 'in use' : 'unavailable here: the timed path is the JS loop itself'}`);
  boot.note(`WebAssembly SIMD kernel ${simdAvailable() ? 'in use' : 'unavailable here: the timed path is the JS loop itself'}`);
  return [rand, boot, att];
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const c0 = cpu();
const t0 = performance.now();
attribution(base, treated, keys, { seed: 42, iterations });
const seconds = (performance.now() - t0) / 1000;
const cpuSeconds = cpu() - c0;
const diffs = new Float64Array(M * Q);
keys.forEach((k, r) => [...base.keys()].forEach((q, i) => (diffs[r * Q + i] = treated.get(q)[k] - base.get(q)[k])));
const t1 = performance.now();
randomizationPValues(diffs, Q, { seed: 1, iterations });
const t2 = performance.now();
bootstrapMeansRows(diffs, Q, { seed: 2, iterations });
const t3 = performance.now();
console.log(JSON.stringify({ queries: Q, iterations, metrics: M, seconds, perMetric: seconds / M, cpuSeconds, cpuPerMetric: cpuSeconds / M, randomization: (t2 - t1) / 1000 / M, bootstrap: (t3 - t2) / 1000 / M }));
