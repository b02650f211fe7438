#!/usr/bin/env node
/**
 * Prints the `expect:` block of a paper config: its published numbers as regression-gate
 * expectations (src/paper/published-expectations.ts; needs dist/, `npx tsc -p tsconfig.json`).
 * test/paper-expectations.test.ts holds every configs/paper-*.yaml to exactly this list.
 *
 *   node scripts/paper-expectations.mjs configs/paper-v1.1-small-embedders.yaml
 */
import { loadConfig } from '../dist/pipeline/config.js';
import { publishedExpectations } from '../dist/paper/published-expectations.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node scripts/paper-expectations.mjs <config.yaml>\n');
  process.exit(2);
}
const config = loadConfig(file);
const entries = publishedExpectations({ ...config, expect: undefined });
const lines = ['expect:'];
for (const e of entries) lines.push(`  - { run: ${e.run}, metric: ${e.metric}, value: ${e.value.toFixed(e.decimals)}, tolerance: ${e.tolerance} }`);
process.stdout.write(entries.length ? lines.join('\n') + '\n' : '# no published numbers for this config\n');
