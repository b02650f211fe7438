/**
 * configs/paper-*.yaml carry their published numbers as regression-gate expectations (issue 30):
 * exactly the list src/paper/published-expectations.ts gives (the pairing of the summary's verdicts,
 * the tolerances stated there and in docs/config.md), so a run on the pinned release checks itself.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/pipeline/config.js';
import { publishedExpectations } from '../src/paper/published-expectations.js';
import { findPaperRows } from '../src/paper/results.js';

const dir = resolve(__dirname, '../configs');
const paper = readdirSync(dir).filter((f) => f.startsWith('paper-') && f.endsWith('.yaml'));

describe('configs/paper-*.yaml expect: the published numbers', () => {
  it('there are paper configs', () => expect(paper.length).toBeGreaterThan(0));
  for (const f of paper) {
    it(`${f}: expect: is exactly the published expectations (regenerate: node scripts/paper-expectations.mjs configs/${f})`, () => {
      const c = loadConfig(join(dir, f));
      const want = publishedExpectations(c).map(({ decimals: _d, ...e }) => e);
      expect(want.length).toBeGreaterThan(0);
      expect(c.expect).toEqual(want);
    });
  }

  it('BM25 is held to its published value exactly, model runs to the OK tolerance; the values are the published cells', () => {
    const c = loadConfig(join(dir, 'paper-v1.1-small-embedders.yaml'));
    const bm25 = c.expect!.filter((e) => e.run === 'bm25/none');
    const row = findPaperRows('v1.1', 'BM25')[0]!;
    expect(bm25.map((e) => e.metric)).toEqual(['NDCG@5', 'NDCG@10', 'Recall@10', 'Completeness@10']);
    for (const e of bm25) expect([e.value, e.tolerance]).toEqual([row.row.values[e.metric], 0.005]);
    expect(bm25.find((e) => e.metric === 'NDCG@10')?.value).toBe(51.69);
    expect(c.expect!.filter((e) => e.run !== 'bm25/none').every((e) => e.tolerance === 0.05)).toBe(true);
  });
});
