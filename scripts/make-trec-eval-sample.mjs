#!/usr/bin/env node
/**
 * Writes the trec_eval reference for test/metrics-trec-eval-sample.test.ts: BM25 on the shared
 * SkillRet sample (`../shared/data/skillret-sample`, not part of this repository), run by this tool
 * from test/fixtures/trec_eval/sample-bm25.yaml (100 deep), scored by trec_eval per query:
 *
 *   node scripts/make-trec-eval-sample.mjs <trec_eval 10.0> [--check]
 *
 * trec_eval is built as the fixture README says (`%6.4f` → `%.17g`) and is not part of this
 * repository; neither is the run or the sample: only trec_eval's output
 * (`sample-bm25.trec_eval.txt`) and `sample-bm25.json` (trec_eval's version and flags, and the
 * SHA-256 of the run file it scored, so the test knows it scores the same run). Run `npm run build`
 * first (the script runs bin/skillret-eval.js). `--check` compares instead of writing; exit 1 on a
 * difference.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const check = args.includes('--check');
const [trecEval] = args.filter((a) => a !== '--check');
if (!trecEval) {
  console.error('usage: node scripts/make-trec-eval-sample.mjs <trec_eval 10.0> [--check]');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'test', 'fixtures', 'trec_eval');
const sample = join(root, '..', 'shared', 'data', 'skillret-sample');
export const TREC_EVAL_FLAGS = ['-q', '-m', 'success.1,5,10', '-m', 'recall.50,100', '-m', 'ndcg_cut.50,100', '-m', 'P.50', '-m', 'unj.5,10,50'];

const tmp = mkdtempSync(join(tmpdir(), 'skr-te-sample-'));
try {
  const config = join(tmp, 'c.yaml');
  writeFileSync(
    config,
    `${readFileSync(join(dir, 'sample-bm25.yaml'), 'utf8')}dataset: { path: ${JSON.stringify(sample)}, split: test }\noutput: ${JSON.stringify(join(tmp, 'out'))}\ncache_dir: ${JSON.stringify(join(tmp, 'cache'))}\n`,
  );
  execFileSync(process.execPath, [join(root, 'bin', 'skillret-eval.js'), 'run', config, '--offline', '-q', '--no-history'], { stdio: 'inherit' });
  const runFile = join(tmp, 'out', 'bm25', 'none', 'run.trec');
  const qrels = join(tmp, 'qrels.txt');
  const lines = readFileSync(join(sample, 'qrels', 'test.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  writeFileSync(qrels, lines.map((l) => JSON.parse(l)).map((r) => `${r.query_id} 0 ${r.skill_id} ${r.relevance}`).join('\n') + '\n');
  const out = execFileSync(trecEval, [...TREC_EVAL_FLAGS, qrels, runFile], { encoding: 'utf8' });
  const v = spawnSync(trecEval, ['-v'], { encoding: 'utf8' });
  const meta = {
    trec_eval: `${v.stdout}${v.stderr}`.trim(),
    flags: TREC_EVAL_FLAGS.join(' '),
    run_sha256: createHash('sha256').update(readFileSync(runFile)).digest('hex'),
  };
  const files = [
    ['sample-bm25.trec_eval.txt', out],
    ['sample-bm25.json', `${JSON.stringify(meta, null, 2)}\n`],
  ];
  let differ = 0;
  for (const [name, text] of files) {
    const file = join(dir, name);
    if (check) {
      let same = false;
      try {
        same = readFileSync(file, 'utf8') === text;
      } catch {}
      if (!same) differ++;
      console.log(`${name}: ${same ? 'identical' : 'DIFFERS'}`);
    } else {
      writeFileSync(file, text);
      console.log(`${name}: written`);
    }
  }
  process.exitCode = differ > 0 ? 1 : 0;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
