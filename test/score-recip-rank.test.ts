/**
 * `score --measures recip_rank` (README: trec_eval names, `recip_rank` among them, are accepted):
 * trec_eval's reciprocal rank of the first relevant document over the whole ranking (no cutoff),
 * ties broken the trec_eval way. Checked against trec_eval's own per-query output (the fixtures of
 * test/fixtures/trec_eval) and against a plain definition on rankings deeper than any cutoff.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreRun } from '../src/api/score.js';
import { measureKey, parseMeasure, parseMeasures } from '../src/metrics/measures.js';
import { runCli } from './helpers/cli.js';
import { mulberry32 } from './helpers/mulberry32.js';
import { cleanupTemp, makeTempDir } from './fixtures/data/make-dataset.js';

const DIR = join(import.meta.dirname, 'fixtures', 'trec_eval');
afterAll(() => cleanupTemp());

/** trec_eval -q output: qid (or "all") → value of `name`. */
function trecEvalValues(file: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(join(DIR, file), 'utf8').split('\n')) {
    const [m, qid, value] = line.trim().split(/\s+/);
    if (m === name) out.set(qid!, Number(value));
  }
  return out;
}

describe('parseMeasure: recip_rank', () => {
  it('is accepted without a cutoff (any case), keyed recip_rank; recip_rank@10 stays MRR@10', () => {
    for (const s of ['recip_rank', 'RECIP_RANK', ' recip_rank ']) {
      const m = parseMeasure(s);
      expect(m.name).toBe('MRR');
      expect(m.k).toBe(Number.POSITIVE_INFINITY);
      expect(measureKey(m)).toBe('recip_rank');
    }
    expect(measureKey(parseMeasure('recip_rank@10'))).toBe('MRR@10');
    expect(measureKey(parseMeasure('recip_rank_10'))).toBe('MRR@10');
    expect(parseMeasures(['recip_rank', 'MRR@10', 'recip_rank']).map(measureKey)).toEqual(['recip_rank', 'MRR@10']);
  });
});

describe('recip_rank against trec_eval 10.0 / 9.0.8 (per query and the mean, exactly)', () => {
  const cases = (JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as { case: string; output: string; runMissingAsEmpty: boolean }[]).filter(
    (c) => !c.runMissingAsEmpty,
  );
  it.each(cases)('$case ($output)', async (c) => {
    const got = await scoreRun({ qrels: join(DIR, `${c.case}.qrels`), run: join(DIR, `${c.case}.run`), measures: ['recip_rank'] });
    const want = trecEvalValues(c.output, 'recip_rank');
    const perQuery = new Map([...got.evaluation.perQuery].map(([q, rec]) => [q, rec['recip_rank']]));
    expect(new Map([...want].filter(([q]) => q !== 'all'))).toEqual(perQuery);
    expect(got.evaluation.aggregate['recip_rank']).toBe(want.get('all'));
    expect(Object.keys(got.metrics)).toEqual(['recip_rank']);
  });
});

describe('recip_rank = the plain definition on deep rankings with ties (beyond any cutoff)', () => {
  it('score --measures recip_rank --format json --per-query', async () => {
    const rand = mulberry32(26);
    const dir = makeTempDir('skillret-recip-rank-');
    const qrels: string[] = [];
    const run: string[] = [];
    /** plain: the ranking sorted by score descending, ties by doc id descending (UTF-8 bytes); 1 / rank of the first relevant. */
    const plain = new Map<string, number>();
    for (let q = 0; q < 40; q++) {
      const qid = `q${q}`;
      const depth = 1 + Math.floor(rand() * 1500);
      const docs = Array.from({ length: depth }, (_, i) => ({ id: `d${Math.floor(rand() * 1e6)}-${i}`, score: Math.floor(rand() * 20) / 4 }));
      // 0 to 2 relevant documents, anywhere (often deep); a judged non-relevant one too
      const rel = new Set<string>();
      const nRel = q % 7 === 0 ? 0 : 1 + Math.floor(rand() * 2);
      for (let i = 0; i < nRel; i++) rel.add(docs[Math.floor(rand() * depth)]!.id);
      if (q % 5 === 0) rel.add('never-retrieved');
      for (const id of rel) qrels.push(`${qid} 0 ${id} ${1 + Math.floor(rand() * 2)}`);
      const zero = docs.find((d) => !rel.has(d.id));
      if (zero) qrels.push(`${qid} 0 ${zero.id} 0`);
      for (const [i, d] of docs.entries()) run.push(`${qid} Q0 ${d.id} ${i + 1} ${d.score} t`);
      const sorted = [...docs].sort((a, b) => b.score - a.score || Buffer.compare(Buffer.from(b.id), Buffer.from(a.id)));
      const first = sorted.findIndex((d) => rel.has(d.id));
      plain.set(qid, first < 0 ? 0 : 1 / (first + 1));
    }
    writeFileSync(join(dir, 'qrels.trec'), qrels.join('\n') + '\n');
    writeFileSync(join(dir, 'run.trec'), run.join('\n') + '\n');
    const r = await runCli(['score', '--qrels', join(dir, 'qrels.trec'), '--run', join(dir, 'run.trec'), '--measures', 'recip_rank,MRR@10', '--format', 'json', '--per-query']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { metrics: Record<string, number>; means: Record<string, number>; per_query: Record<string, Record<string, number>> };
    expect(Object.keys(doc.metrics)).toEqual(['recip_rank', 'MRR@10']);
    for (const [qid, v] of plain) {
      expect(doc.per_query[qid]!['recip_rank'], qid).toBe(v);
      expect(doc.per_query[qid]!['MRR@10'], qid).toBe(v >= 1 / 10 ? v : 0);
    }
    // some first relevant documents lie beyond rank 1000: the measure is not cut
    expect([...plain.values()].some((v) => v > 0 && v < 1 / 1000)).toBe(true);
    const ids = [...plain.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(doc.means['recip_rank']).toBe(ids.reduce((s, q) => s + plain.get(q)!, 0) / ids.length);

    // the table names it as trec_eval does
    const t = await runCli(['score', '--qrels', join(dir, 'qrels.trec'), '--run', join(dir, 'run.trec'), '--measures', 'recip_rank']);
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/^recip_rank +\d+\.\d\d$/m);
    expect(t.out).not.toContain('Infinity');
  });
});
