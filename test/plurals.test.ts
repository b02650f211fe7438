/**
 * Counts printed with their noun in the right number (src/util/plural.ts) wherever a count can be 1:
 * an experiment of 2 runs over 1 query (run's log lines, summary.md, report.html, compare in every
 * format, report), score's "no common query" error, a download that gives up after 1 attempt.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadResumable } from '../src/data/download.js';
import { plural } from '../src/util/plural.js';
import { runCli } from './helpers/cli.js';
import { cleanupTemp, makeDataset, makeTempDir } from './fixtures/data/make-dataset.js';

/** No "1 <plural noun>" where a count of one is printed ("1/1 queries", a progress unit, is fine). */
const ONE_PLURAL = /(?<![/\d.])1 (queries|runs|pairs|comparisons|documents|records|attempts|skills|ids)\b/;

describe('plural()', () => {
  it('picks the noun by the count', () => {
    expect([0, 1, 2].map((n) => plural(n, 'run'))).toEqual(['0 runs', '1 run', '2 runs']);
    expect(plural(1, 'query', 'queries')).toBe('1 query');
    expect(plural(3, 'query', 'queries')).toBe('3 queries');
  });
});

describe('an experiment of 2 runs over 1 query', () => {
  const dir = makeTempDir('skillret-plurals-');
  let runErr = '';
  beforeAll(async () => {
    const data = makeDataset({
      skills: [
        { id: 's1', name: 'cat', description: 'cat', skill_md: 'cat' },
        { id: 's2', name: 'dog', description: 'dog', skill_md: 'dog' },
        { id: 's3', name: 'fish', description: 'fish', skill_md: 'fish' },
      ],
      queries: [{ id: 'q1', query: 'a cat and a dog', skill_ids: ['s1'] }],
      qrels: [{ query_id: 'q1', skill_id: 's1', relevance: 1 }],
    });
    writeFileSync(
      join(dir, 'exp.yaml'),
      `name: x\ndataset: { path: ${data} }\nk: [1, 2]\nretrievers:\n  - { id: a, type: bm25, top_k: 1 }\n  - { id: b, type: bm25, k1: 1.2, top_k: 1 }\nstats: { iterations: 100 }\ncache_dir: ./cache\noutput: ./out\n`,
    );
    const r = await runCli(['run', join(dir, 'exp.yaml')]);
    expect(r.code).toBe(0);
    runErr = r.err;
  }, 120_000);
  afterAll(() => cleanupTemp());

  it('run: the log lines', () => {
    expect(runErr).toContain('dataset: 3 skills, 1 query with gold');
    expect(runErr).toContain('warning: retrievers.a.top_k 1 is below the largest k 2: @2 metrics see only 1 document per query');
    expect(runErr.split('\n').filter((l) => ONE_PLURAL.test(l))).toEqual([]);
  });

  it('summary.md and report.html', () => {
    const md = readFileSync(join(dir, 'out', 'summary.md'), 'utf8');
    expect(md).toContain('3 skills, 1 query with gold (skills 3 records, sha256 ');
    expect(md).toMatch(/; queries 1 record, sha256 \S+; qrels 1 record, sha256 /);
    expect(md).not.toMatch(ONE_PLURAL);
    const html = readFileSync(join(dir, 'out', 'report.html'), 'utf8');
    expect(html).toContain('<p class="muted">1 query, 2 runs. ');
    expect(html).toContain('over the 1 run compared with it');
    expect(html).toContain('over its 1 comparison)');
    expect(html).not.toMatch(ONE_PLURAL);
  });

  it('compare (table, md, json, --pairs all, --out) and report', async () => {
    const out = join(dir, 'out');
    const text = await runCli(['compare', out, '--pairs', 'all']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^1 query; fractions/m);
    expect(text.out).toContain('over the 1 run compared with it, per metric');
    expect(text.out).toContain('(Holm correction over its 1 comparison)');
    expect(text.out).toContain('after Holm correction over the 1 pair (');
    expect(text.out).not.toMatch(ONE_PLURAL);
    const json = JSON.parse((await runCli(['compare', out, '--pairs', 'all', '--format', 'json'])).out) as { families: Record<string, string> };
    expect(json.families).toEqual({
      baseline: 'per metric, the 1 run compared with the baseline',
      top_group: "per metric, the 1 run compared with the column's best",
      pairs: 'the 1 pair on NDCG@1',
    });
    const written = await runCli(['compare', out, '--format', 'md', '--out', join(dir, 'cmp.md')]);
    expect(written.out).toBe(`wrote ${join(dir, 'cmp.md')} (2 runs, 1 query)\n`);
    const rep = await runCli(['report', join(out, 'a', 'none'), '--out', join(dir, 'one.html')]);
    expect(rep.out).toBe(`wrote ${join(dir, 'one.html')} (1 run, 1 query)\n`);
    expect(readFileSync(join(dir, 'one.html'), 'utf8')).toContain('<p class="muted">1 query, 1 run. ');
  });
});

describe('one-line errors', () => {
  it('score: no common query, 1 in each file', async () => {
    const dir = makeTempDir('skillret-plurals-score-');
    writeFileSync(join(dir, 'qrels.trec'), 'q1 0 d1 1\n');
    writeFileSync(join(dir, 'run.trec'), 'q2 Q0 d1 1 1 t\n');
    const r = await runCli(['score', '--qrels', join(dir, 'qrels.trec'), '--run', join(dir, 'run.trec')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no query is both in the run (1 query) and in the qrels (1 query)');
  });

  it('a download that gives up after its only attempt', async () => {
    const dir = makeTempDir('skillret-plurals-dl-');
    const reset: typeof fetch = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    };
    const m = await downloadResumable({ url: 'http://127.0.0.1:9/f', target: join(dir, 'f'), origin: 'http://127.0.0.1:9', token: undefined, fetchFn: reset, retry: { retries: 0 } }).catch((e: Error) => e.message);
    expect(m).toContain(': download failed after 1 attempt (fetch failed: read ECONNRESET)');
  });
});
