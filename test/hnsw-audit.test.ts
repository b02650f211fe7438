/**
 * The HNSW exactness audit where it matters: 1,500 documents (far past the size where graph
 * search is exhaustive), a deliberately weak graph (M 4, ef_construction 8, ef_search 10), through
 * the whole pipeline. The audit must see the approximation: overlap with the exact top-k below 1,
 * `exact_metrics` equal to the metrics of the same retriever behind an exact index, and
 * `delta` = approximate − exact for every metric.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/commands/run.js';
import { seededUniform } from './helpers/tiny-models.js';

const WORDS = 'search code deploy server database query index python script test build cloud storage email calendar image video audio text file folder git branch commit review security token network api web page browser chart table report invoice payment user account login password backup monitor alert log metric model train data clean parse convert translate summarize schedule meeting slack message docker kubernetes terraform lint format refactor debug profile cache queue stream batch pipeline dashboard'.split(' ');

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'skillret-hnsw-audit-'));
  const rnd = seededUniform(77);
  const pick = () => WORDS[Math.floor(((rnd() + 1) / 2) * WORDS.length)]!;
  const phrase = (n: number) => Array.from({ length: n }, pick).join(' ');
  const data = join(root, 'data');
  for (const d of ['skills', 'queries', 'qrels']) mkdirSync(join(data, d), { recursive: true });
  const skills = Array.from({ length: 1500 }, (_, i) => ({ id: `s${String(i).padStart(5, '0')}`, name: `skill-${i}`, description: phrase(12), skill_md: phrase(30), major: 'M' }));
  writeFileSync(join(data, 'skills', 'test.jsonl'), skills.map((s) => JSON.stringify(s)).join('\n') + '\n');
  const queries = Array.from({ length: 40 }, (_, i) => ({ id: `q${String(i).padStart(3, '0')}`, query: `${skills[i * 37]!.description} ${phrase(6)}` }));
  writeFileSync(join(data, 'queries', 'test.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  writeFileSync(join(data, 'qrels', 'test.jsonl'), queries.map((q, i) => JSON.stringify({ query_id: q.id, skill_id: skills[i * 37]!.id, relevance: 1 })).join('\n') + '\n');
  writeFileSync(
    join(root, 'c.yaml'),
    [
      'name: audit',
      `dataset: { path: ${JSON.stringify(data)}, split: test }`,
      'retrievers:',
      '  - { id: approx, type: dense, model: glove-6b-100d-static, index: { type: hnsw, M: 4, ef_construction: 8, ef_search: 10 }, top_k: 10 }',
      '  - { id: exact, type: dense, model: glove-6b-100d-static, index: { type: exact }, top_k: 10 }',
      'rerankers: [{ id: none }]',
      `output: ${JSON.stringify(join(root, 'out'))}`,
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('HNSW audit on 1,500 documents with a small ef_search', () => {
  it('reports overlap < 1, exact metrics = the exact index, delta = approximate − exact', async () => {
    await runCommand({ config: join(root, 'c.yaml'), cache: false, quiet: true });
    const approx = JSON.parse(readFileSync(join(root, 'out', 'approx', 'none', 'metrics.json'), 'utf8')) as {
      metrics: Record<string, number>;
      approximation: { overlap: Record<string, number>; exact_metrics: Record<string, number>; delta: Record<string, number> };
    };
    const exact = JSON.parse(readFileSync(join(root, 'out', 'exact', 'none', 'metrics.json'), 'utf8')) as { metrics: Record<string, number>; approximation?: unknown };
    const a = approx.approximation;
    expect(exact.approximation).toBeUndefined();
    expect(Math.min(...Object.values(a.overlap))).toBeLessThan(1);
    expect(a.overlap['10']).toBeLessThan(1);
    for (const [k, v] of Object.entries(exact.metrics)) {
      expect(a.exact_metrics[k], k).toBe(v);
      expect(Math.abs(a.delta[k]! - (approx.metrics[k]! - v)), k).toBeLessThanOrEqual(1.5e-5); // each side rounded to 5 decimals
    }
    expect(Object.values(a.delta).some((d) => d !== 0)).toBe(true);
  });
});
