/**
 * `npm run bench`: every benchmark in turn, on synthetic corpora shaped like the full SkillRet
 * v1.1 test split (6,006 skills, 4,392 queries). Speed and memory targets are shown here, never
 * asserted in tests. Each script can also be run alone with its own options (see its header).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches = [
  ['metrics', ['scripts/bench-metrics.mjs']],
  ['bm25', ['scripts/bench-bm25.mjs']],
  ['dense', ['scripts/bench-dense.mjs', '--dims', '384', '--M', '32', '--ef', '200']],
  ['pipeline', ['scripts/bench-pipeline.mjs']],
  ['rerank', ['scripts/bench-rerank.mjs', '--batch', '8,16', '--threads', '2', '--concurrency', '1']],
];
const only = process.argv.slice(2);
const root = fileURLToPath(new URL('..', import.meta.url));
let failed = 0;
for (const [name, args] of benches) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
