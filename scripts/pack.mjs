#!/usr/bin/env node
/**
 * The publishable tarball (`npm run tarball`): compiles dist/ afresh (dist/ removed first, so no
 * stale module ships), then packs from a staging folder holding exactly the files `npm pack` would
 * take from this checkout (the `files` list of package.json, README, LICENSE) and a package.json
 * without `scripts`: every script of the checkout is for development (they build from src/, test,
 * bench, none of which ships), and a lifecycle script (`prepare`, `pretest`, `prepack`, …) in a
 * published package.json makes npm warn everyone who installs it about install scripts. npm's
 * `publishConfig` cannot drop scripts, hence the staging folder.
 *
 *   node scripts/pack.mjs [--no-build] [--dry-run] [--json] [--pack-destination <dir>]
 *
 * --no-build packs the dist/ already there (the tests: other test files use dist/ meanwhile);
 * --dry-run, --json and --pack-destination are npm pack's (the destination defaults to the working
 * folder). Publish the tarball it writes: `npm publish ./skillret-eval-<version>.tgz`.
 * Plain `npm pack` (or `npm publish`) in the checkout is refused by the `prepack` guard
 * (`--guard`), since it would ship the checkout's package.json as it is.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.includes('--guard')) {
  process.stderr.write(
    'skillret-eval: pack with `npm run tarball` (scripts/pack.mjs): it builds dist/ and ships package.json without the checkout\'s development scripts; ' +
      'publish the tarball it writes (npm publish ./skillret-eval-<version>.tgz)\n',
  );
  process.exit(1);
}
let build = true;
let destination = process.cwd();
const npmFlags = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--no-build') build = false;
  else if (a === '--dry-run' || a === '--json') npmFlags.push(a);
  else if (a === '--pack-destination') {
    const d = args[++i];
    if (d === undefined) fail('--pack-destination: missing folder');
    destination = resolve(d);
  } else fail(`unknown option ${JSON.stringify(a)} (options: --no-build, --dry-run, --json, --pack-destination <dir>)`);
}

if (build) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  // Its output goes to stderr: stdout is npm pack's (JSON with --json).
  execFileSync(npm, ['run', 'build'], { cwd: root, stdio: ['ignore', 2, 'inherit'] });
}

// What npm would take from the checkout (the `files` list and what it always adds), by npm itself.
const listed = JSON.parse(execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
const files = listed[0].files.map((f) => f.path);
if (!files.includes('dist/index.js')) fail('dist/index.js is missing: build first (npm run build), or leave out --no-build');

const staging = mkdtempSync(join(tmpdir(), 'skillret-pack-'));
try {
  for (const f of files) {
    mkdirSync(dirname(join(staging, f)), { recursive: true });
    copyFileSync(join(root, f), join(staging, f));
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  delete pkg.scripts;
  writeFileSync(join(staging, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  mkdirSync(destination, { recursive: true });
  const out = execFileSync(npm, ['pack', '--ignore-scripts', ...npmFlags, '--pack-destination', destination], { cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  process.stdout.write(out);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
