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
 *   node scripts/bench-stats.mjs [--queries 4392] [--iterations 10000] [--metrics 9]
 */
import { attribution } from '../dist/significance/attribution.js';
import { bootstrapMeansRows } from '../dist/stats/bootstrap.js';
import { randomizationPValues } from '../dist/stats/randomization.js';

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
