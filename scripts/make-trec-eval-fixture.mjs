#!/usr/bin/env node
/**
 * Writes the `nonpositive` trec_eval reference case into test/fixtures/trec_eval/: a qrels file where
 * some queries have only non-positive judgements (all 0, 0 and -1, all -1) next to ordinary ones,
 * a run retrieving judged and unjudged documents for each, and trec_eval's per-query output.
 *
 * Usage: node scripts/make-trec-eval-fixture.mjs <path to trec_eval>
 * (trec_eval 10.0 built with `%6.4f` → `%.17g` in meas_print_single.c / meas_print_final.c, see the
 * fixture README). Deterministic: the same trec_eval writes the same files.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const trecEval = process.argv[2];
if (!trecEval) {
  console.error('usage: node scripts/make-trec-eval-fixture.mjs <path to trec_eval>');
  process.exit(2);
}
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'trec_eval');

// qid -> [[doc, grade], ...]
const qrels = {
  'q-a': [['d1', 1], ['d2', 0], ['d3', 1]],
  'q-zero': [['d1', 0], ['d4', 0]], // judged, none relevant
  'q-neg': [['d2', -1], ['d5', 0]], // -1 and 0
  'q-allneg': [['d6', -1]],
  'q-b': [['d7', 2], ['d8', 1], ['d9', -1]],
  'q-zero-empty': [['d1', 0]], // none relevant, and the run retrieves nothing judged
};
// qid -> [[doc, score], ...]
const run = {
  'q-a': [['d3', 0.9], ['d1', 0.5], ['d2', 0.5], ['d9', 0.1]],
  'q-zero': [['d1', 0.7], ['d4', 0.6], ['d3', 0.2]],
  'q-neg': [['d2', 3], ['d5', 2], ['d7', 1]],
  'q-allneg': [['d6', 1]],
  'q-b': [['d9', 0.8], ['d8', 0.8], ['d7', 0.3], ['d1', 0.2]],
  'q-zero-empty': [['d7', 0.4]],
};

const qrelsText = Object.entries(qrels).flatMap(([q, js]) => js.map(([d, g]) => `${q} 0 ${d} ${g}`)).join('\n') + '\n';
const runText =
  Object.entries(run)
    .flatMap(([q, ds]) => ds.map(([d, s], i) => `${q} Q0 ${d} ${i + 1} ${s} fixture`))
    .join('\n') + '\n';
writeFileSync(join(dir, 'nonpositive.qrels'), qrelsText);
writeFileSync(join(dir, 'nonpositive.run'), runText);
const out = execFileSync(
  trecEval,
  ['-q', '-m', 'ndcg_cut.5,10,15', '-m', 'recall.5,10,15', '-m', 'map_cut.5,10,15', '-m', 'P.5,10,15', '-m', 'recip_rank', join(dir, 'nonpositive.qrels'), join(dir, 'nonpositive.run')],
  { encoding: 'utf8' },
);
writeFileSync(join(dir, 'nonpositive.trec_eval.txt'), out);
const v = spawnSync(trecEval, ['-v'], { encoding: 'utf8' });
const version = `${v.stdout}${v.stderr}`.trim();
console.log(`wrote nonpositive.{qrels,run,trec_eval.txt} with ${version}`);
