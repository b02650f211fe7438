/**
 * Significance benchmark: the on/off attribution (randomization test, bootstrap CI, t-test) of a
 * treated run against its base at full size (4,392 queries, 10,000 iterations), per metric.
 * Prints one JSON line: {queries, iterations, metrics, seconds, perMetric, randomization, bootstrap}
 * (seconds of one metric's randomization test and bootstrap measured apart).
 * Imports the compiled code: run `npm run build` first.
 *
 *   node scripts/bench-stats.mjs [--queries 4392] [--iterations 10000] [--metrics 9]
 */
import { attribution } from '../dist/significance/attribution.js';
import { bootstrapMeans } from '../dist/stats/bootstrap.js';
import { pairedRandomizationTest } from '../dist/stats/randomization.js';

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
const t0 = performance.now();
attribution(base, treated, keys, { seed: 42, iterations });
const seconds = (performance.now() - t0) / 1000;
const a = [...base.values()].map((r) => r[keys[0]]);
const b = [...treated.values()].map((r) => r[keys[0]]);
const t1 = performance.now();
pairedRandomizationTest(a, b, { seed: 1, iterations });
const t2 = performance.now();
bootstrapMeans(b.map((y, i) => y - a[i]), { seed: 2, iterations });
const t3 = performance.now();
console.log(JSON.stringify({ queries: Q, iterations, metrics: M, seconds, perMetric: seconds / M, randomization: (t2 - t1) / 1000, bootstrap: (t3 - t2) / 1000 }));
