#!/usr/bin/env node
/**
 * Behaviour check for refactors: runs every offline example config of configs/ in two checkouts
 * (each built: dist/ present, models/ built) and compares their results files byte for byte.
 *
 *   node scripts/check-identical.mjs <checkout A> <checkout B> [--configs quickstart,bm25-only]
 *
 * A config is offline when its dataset is a local path (no `hub:`) and no stage has an `endpoint`;
 * a config whose dataset folder is missing is reported as skipped. Each checkout runs its own copy
 * of each config (`output:` inside that checkout, normally results/<name>) with a fresh cache folder,
 * `--offline --quiet`; configs that read a saved run (`type: run`) go last, after the configs that
 * write it. Compared byte for byte: every file of each results folder (metrics.json, run.trec,
 * per-query.jsonl, breakdown.json, ...), and summary.md with its "## Cost" section (wall-clock
 * timings) removed. manifest.json is listed but not compared: it records timings, paths and the
 * git commit by design. Exit code 0 when everything matches, 1 otherwise.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';

function usage(msg) {
  process.stderr.write(`check-identical: ${msg}\nusage: node scripts/check-identical.mjs <checkout A> <checkout B> [--configs a,b]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
let only = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--configs') only = new Set((args[++i] ?? '').split(',').filter(Boolean));
  else positional.push(args[i]);
}
if (positional.length !== 2) usage('expected two checkout folders');
const checkouts = positional.map((p) => resolve(p));
for (const c of checkouts) {
  if (!existsSync(join(c, 'bin', 'skillret-eval.js'))) usage(`${c}: not a skillret-eval checkout (bin/skillret-eval.js missing)`);
  if (!existsSync(join(c, 'dist'))) usage(`${c}: dist/ missing (run npx tsc -p tsconfig.json there)`);
}

/** The offline configs of a checkout, saved-run readers last. */
function offlineConfigs(checkout) {
  const dir = join(checkout, 'configs');
  const out = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort()) {
    const name = f.replace(/\.yaml$/, '');
    if (only && !only.has(name)) continue;
    const file = join(dir, f);
    const cfg = parse(readFileSync(file, 'utf8'));
    const stages = [...(cfg.retrievers ?? []), ...(cfg.rerankers ?? [])];
    if (cfg.dataset?.hub || stages.some((s) => s && s.endpoint)) continue;
    const dataDir = resolve(dirname(file), cfg.dataset.path);
    const output = resolve(dirname(file), cfg.output);
    const readsRun = (cfg.retrievers ?? []).some((r) => r.type === 'run');
    out.push({ name, file, dataDir, output, readsRun });
  }
  return out.sort((a, b) => Number(a.readsRun) - Number(b.readsRun));
}

function listFiles(root) {
  const out = [];
  const walk = (d) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

/** summary.md without its wall-clock section. */
function withoutCost(text) {
  return text.replace(/^## Cost\n[\s\S]*?(?=^## |(?![\s\S]))/m, '');
}

const runs = checkouts.map((c) => offlineConfigs(c));
const names = runs[0].map((r) => r.name);
if (names.join() !== runs[1].map((r) => r.name).join()) usage(`the two checkouts have different offline configs: ${names} vs ${runs[1].map((r) => r.name)}`);

let failures = 0;
const skipped = [];
const caches = checkouts.map(() => mkdtempSync(join(tmpdir(), 'check-identical-cache-')));
try {
  for (let i = 0; i < names.length; i++) {
    const pair = [runs[0][i], runs[1][i]];
    if (pair.some((r) => !existsSync(r.dataDir))) {
      skipped.push(`${names[i]} (dataset folder ${pair.find((r) => !existsSync(r.dataDir)).dataDir} missing)`);
      continue;
    }
    for (let j = 0; j < 2; j++) {
      rmSync(pair[j].output, { recursive: true, force: true });
      execFileSync(process.execPath, [join(checkouts[j], 'bin', 'skillret-eval.js'), 'run', pair[j].file, '--offline', '--quiet', '--cache-dir', caches[j]], { stdio: ['ignore', 'ignore', 'inherit'] });
    }
    const files = [listFiles(pair[0].output), listFiles(pair[1].output)];
    const all = [...new Set([...files[0], ...files[1]])].sort();
    let same = 0;
    for (const f of all) {
      if (!files[0].includes(f) || !files[1].includes(f)) {
        console.log(`DIFF ${names[i]}/${f}: only in ${files[0].includes(f) ? 'A' : 'B'}`);
        failures++;
        continue;
      }
      if (f === 'manifest.json') continue;
      let a = readFileSync(join(pair[0].output, f));
      let b = readFileSync(join(pair[1].output, f));
      if (f === 'summary.md') {
        a = Buffer.from(withoutCost(a.toString('utf8')));
        b = Buffer.from(withoutCost(b.toString('utf8')));
      }
      if (a.equals(b)) same++;
      else {
        console.log(`DIFF ${names[i]}/${f}`);
        failures++;
      }
    }
    console.log(`${names[i]}: ${same} files identical${all.includes('manifest.json') ? ' (manifest.json not compared)' : ''}`);
  }
} finally {
  for (const c of caches) rmSync(c, { recursive: true, force: true });
}
for (const s of skipped) console.log(`skipped ${s}`);
console.log(failures ? `${failures} difference(s)` : 'all results files identical');
process.exit(failures ? 1 : 0);
