/** Every shipped config validates and expands to a plan (`run --dry-run`), offline. */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadConfig } from '../src/pipeline/config.js';
import { formatPlan, planRuns } from '../src/pipeline/plan.js';
import { runCli } from './helpers/cli.js';
import { cleanupTemp, makeTempDir } from './fixtures/data/make-dataset.js';

const dir = resolve(__dirname, '../configs');

describe('configs/', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  it('ships the quickstart and the examples', () => {
    expect(files).toEqual(expect.arrayContaining(['quickstart.yaml', 'bm25-only.yaml', 'skillret-sample.yaml', 'rerank-saved-run.yaml']));
  });
  it('every paper config states its evaluation policy (where the gold comes from) explicitly', () => {
    const paper = files.filter((f) => f.startsWith('paper-'));
    expect(paper.length).toBeGreaterThan(0);
    for (const f of paper) expect(readFileSync(join(dir, f), 'utf8'), f).toMatch(/^evaluation: (official|trec_eval)$/m);
  });
  for (const f of files) {
    it(`${f} validates and plans`, () => {
      const c = loadConfig(join(dir, f));
      expect(planRuns(c).length).toBe(c.retrievers.length * c.rerankers.length);
      expect(formatPlan(c, { cacheDir: '/tmp/c', offline: true, useCache: true })).toContain(`experiment: ${c.name}`);
    });
  }
});

describe('a config whose dataset folder is absent (configs/skillret-sample*.yaml away from ../shared)', () => {
  afterAll(() => cleanupTemp());
  for (const f of ['skillret-sample.yaml', 'skillret-sample-rerank-matrix.yaml']) {
    it(`${f}: one line naming the config, dataset.path, the missing folder and how to get data; exit 2 (also --dry-run)`, async () => {
      const root = makeTempDir('skillret-absent-');
      mkdirSync(join(root, 'checkout', 'configs'), { recursive: true });
      const cfg = join(root, 'checkout', 'configs', f);
      copyFileSync(join(dir, f), cfg);
      // the config says ../../shared/data/skillret-sample: resolved against the config's folder
      const missing = resolve(dirname(cfg), '../../shared/data/skillret-sample');
      const line = readFileSync(cfg, 'utf8').split('\n').findIndex((l) => /^dataset:/.test(l)) + 1;
      const want =
        `skillret-eval: ${cfg}:${line}: dataset.path: ${missing}: no such folder (a relative path is resolved against the config's folder); ` +
        `put the dataset there (skills/, queries/, qrels/ with test.jsonl) or point dataset.path at it; ` +
        `\`skillret-eval data fetch --version v1.1\` (or v1.0) downloads a pinned SkillRet test split into the cache and prints the dataset lines to use it\n`;
      for (const args of [['run', cfg, '-q'], ['run', cfg, '--dry-run']]) {
        const r = await runCli([...args, '--cache-dir', join(root, 'cache')]);
        expect(r.err, args.join(' ')).toBe(want);
        expect(r.out).toBe('');
        expect(r.code).toBe(2);
      }
    });
  }
});
