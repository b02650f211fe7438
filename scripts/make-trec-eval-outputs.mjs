#!/usr/bin/env node
/**
 * Rewrites every trec_eval reference output of test/fixtures/trec_eval/ from its inputs
 * (`<case>.qrels`, `<case>.run`) with the trec_eval builds named on the command line, exactly as
 * `cases.json` lists them (version and flags per output):
 *
 *   node scripts/make-trec-eval-outputs.mjs <trec_eval 10.0> [<trec_eval 9.0.8>] [--check]
 *
 * Both builds must print `%.17g` instead of `%6.4f` (see the fixture README). trec_eval itself is not
 * part of this repository. `--check` compares instead of writing and exits 1 on any difference.
 * The measures are the ones the test reads: ndcg_cut, recall, map_cut, P at 5, 10, 15 and recip_rank.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const check = args.includes('--check');
const [te10, te9] = args.filter((a) => a !== '--check');
if (!te10) {
  console.error('usage: node scripts/make-trec-eval-outputs.mjs <trec_eval 10.0> [<trec_eval 9.0.8>] [--check]');
  process.exit(2);
}
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'trec_eval');
const MEASURES = ['-m', 'ndcg_cut.5,10,15', '-m', 'recall.5,10,15', '-m', 'map_cut.5,10,15', '-m', 'P.5,10,15', '-m', 'recip_rank'];
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
let differ = 0;
for (const c of cases) {
  const bin = c.trec_eval.startsWith('9.') ? te9 : te10;
  if (!bin) {
    console.log(`${c.output}: skipped (needs trec_eval ${c.trec_eval})`);
    continue;
  }
  const out = execFileSync(bin, [...c.flags.split(' ').filter(Boolean), ...MEASURES, join(dir, `${c.case}.qrels`), join(dir, `${c.case}.run`)], { encoding: 'utf8' });
  const file = join(dir, c.output);
  if (check) {
    const same = readFileSync(file, 'utf8') === out;
    if (!same) differ++;
    console.log(`${c.output}: ${same ? 'identical' : 'DIFFERS'}`);
  } else {
    writeFileSync(file, out);
    console.log(`${c.output}: written (${out.split('\n').length - 1} lines)`);
  }
}
process.exit(differ > 0 ? 1 : 0);
