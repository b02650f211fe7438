/** Every shipped config validates and expands to a plan (`run --dry-run`), offline. */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/pipeline/config.js';
import { formatPlan, planRuns } from '../src/pipeline/plan.js';

const dir = resolve(__dirname, '../configs');

describe('configs/', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  it('ships the quickstart and the examples', () => {
    expect(files).toEqual(expect.arrayContaining(['quickstart.yaml', 'bm25-only.yaml', 'skillret-sample.yaml', 'rerank-saved-run.yaml']));
  });
  for (const f of files) {
    it(`${f} validates and plans`, () => {
      const c = loadConfig(join(dir, f));
      expect(planRuns(c).length).toBe(c.retrievers.length * c.rerankers.length);
      expect(formatPlan(c, { cacheDir: '/tmp/c', offline: true, useCache: true })).toContain(`experiment: ${c.name}`);
    });
  }
});
