/**
 * Whole-pipeline benchmark: `skillret-eval run` on a synthetic dataset shaped like the SkillRet
 * v1.1 test split (6,006 skills ~14.6 KB each, 4,392 long queries, 1–3 gold each), with BM25 and
 * the bundled GloVe static embedder (exact index), no reranker; then the same run again from the
 * caches. Prints wall time per stage and peak RSS from each run's manifest.json.
 * Reference for BM25 + scoring: bm25s 0.3.3 15.2 s / 429 MB and trec_eval 0.19 s (measurements.md).
 * Text comes from scripts/bench-bm25.mjs's generator (resampled from the shared sample when present).
 *
 * Values before speeds: the cold run's metrics.json and per-query.jsonl (every stage) are checked
 * against the Map-based evaluator on its run.trec and the qrels, read plainly, and the warm run's
 * results files against the cold run's, byte for byte (scripts/bench-checks.mjs), before either
 * run's times are printed; on a difference the script prints FAILED with the first differences
 * instead of times and exits 1.
 *
 *   node scripts/bench-pipeline.mjs [--docs 6006] [--queries 4392] [--no-glove]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Check, compareResultFiles, failedSectionMarkdown, resultFileBytes, resultsFolderChecks } from './bench-checks.mjs';

const argv = process.argv.slice(2);
const arg = (name, def) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : def;
};
const docs = arg('--docs', '6006');
const queries = arg('--queries', '4392');
const glove = !argv.includes('--no-glove');
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bench-pipeline-'));
const corpusFile = join(dir, 'corpus.json');

const gen = spawnSync(process.execPath, ['scripts/bench-bm25.mjs', '--docs', docs, '--queries', queries, '--duplicates', '0', '--write-corpus', corpusFile], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (gen.status !== 0) throw new Error('corpus generation failed');
const corpus = JSON.parse(readFileSync(corpusFile, 'utf8'));
for (const sub of ['skills', 'queries', 'qrels']) mkdirSync(join(dir, 'data', sub), { recursive: true });
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
writeFileSync(
  join(dir, 'data/skills/test.jsonl'),
  corpus.docs.map((d) => JSON.stringify({ id: d.id, name: '', description: '', skill_md: d.text })).join('\n') + '\n',
);
const qrels = [];
writeFileSync(
  join(dir, 'data/queries/test.jsonl'),
  corpus.queries
    .map((q) => {
      const gold = new Set();
      const n = 1 + Math.floor(rand() * 3);
      while (gold.size < n) gold.add(corpus.docs[Math.floor(rand() * corpus.docs.length)].id);
      for (const g of gold) qrels.push(JSON.stringify({ query_id: q.id, skill_id: g, relevance: 1 }));
      return JSON.stringify({ id: q.id, query: q.text, skill_ids: [...gold] });
    })
    .join('\n') + '\n',
);
writeFileSync(join(dir, 'data/qrels/test.jsonl'), qrels.join('\n') + '\n');
writeFileSync(
  join(dir, 'bench.yaml'),
  `name: bench-pipeline
dataset: { path: ./data }
retrievers:
  - { id: bm25, type: bm25, top_k: 20 }
${glove ? '  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 20 }\n' : ''}output: ./out
cache_dir: ./cache
`,
);

let cold = null;
for (const label of ['cold (empty caches)', 'warm (caches filled)']) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['bin/skillret-eval.js', 'run', join(dir, 'bench.yaml'), '-q', '--offline'], { cwd: root, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(r.stderr);
  // Values first (see the module comment).
  let checks;
  if (cold === null) {
    cold = resultFileBytes(join(dir, 'out'));
    checks = await resultsFolderChecks(join(dir, 'out'), readFileSync(join(dir, 'data/qrels/test.jsonl'), 'utf8'), 'cold run: ');
  } else {
    const c = new Check('results files of the warm run', "the cold run's, byte for byte");
    compareResultFiles(c, resultFileBytes(join(dir, 'out')), cold);
    checks = [c];
  }
  if (!checks.every((c) => c.ok)) {
    console.log(failedSectionMarkdown(`${label}: FAILED`, checks));
    process.exit(1);
  }
  for (const c of checks) console.log(c.line());
  const m = JSON.parse(readFileSync(join(dir, 'out/manifest.json'), 'utf8'));
  console.log(`${label}: ${wall.toFixed(1)} s wall, peak RSS ${(m.peak_rss_bytes / 2 ** 20).toFixed(0)} MiB`);
  for (const [k, v] of Object.entries(m.timings_seconds)) console.log(`  ${k.padEnd(24)} ${v.toFixed(2)} s`);
}
console.log(`(${docs} skills, ${queries} queries; files under ${dir})`);
