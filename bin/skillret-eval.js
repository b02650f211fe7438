#!/usr/bin/env node
// Entry point of the `skillret-eval` command: runs the compiled CLI from dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('skillret-eval: dist/ is missing: run `npm ci` (or `npm run build`) in the checkout first\n');
  process.exit(2);
}
const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));
