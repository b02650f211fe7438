/**
 * Cross-check of evaluate() against trec_eval's own per-query (-q) output, stored as fixtures in
 * test/fixtures/trec_eval (see the README there for how they were made).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrecQrels } from '../src/formats/trec-qrels.js';
import { readTrecRun } from '../src/formats/trec-run.js';
import { evaluate } from '../src/metrics/evaluate.js';
import { defaultMeasures, type Measure } from '../src/metrics/measures.js';
import { parseTrecEval } from './helpers/trec-eval-output.js';

const DIR = join(import.meta.dirname, 'fixtures', 'trec_eval');
const KS = [5, 10, 15];

interface Case {
  case: string;
  output: string;
  trec_eval: string;
  flags: string;
  runMissingAsEmpty: boolean;
}

const cases = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as Case[];


/** Our measure key for a trec_eval measure name (recip_rank is handled separately). */
function ourKey(name: string): string | undefined {
  const m = /^(ndcg_cut|map_cut|recall|P)_(\d+)$/.exec(name);
  if (!m) return undefined;
  const base = { ndcg_cut: 'NDCG', map_cut: 'MAP', recall: 'Recall', P: 'Precision' }[m[1] as 'ndcg_cut' | 'map_cut' | 'recall' | 'P'];
  return `${base}@${m[2]}`;
}

describe.each(cases)('trec_eval $trec_eval $flags on $case', (c) => {
  it('matches per query and overall exactly (trec_eval built to print %.17g)', async () => {
    const qrels = await readTrecQrels(join(DIR, `${c.case}.qrels`));
    const run = await readTrecRun(join(DIR, `${c.case}.run`));
    if (c.runMissingAsEmpty) for (const q of qrels.keys()) if (!run.has(q)) run.set(q, []);
    // MRR@1000 is uncut for these runs (depth <= 25): trec_eval's recip_rank.
    const measures: Measure[] = [...defaultMeasures(KS), { name: 'MRR', k: 1000 }];
    const ev = evaluate(qrels, run, measures);
    const ref = parseTrecEval(readFileSync(join(DIR, c.output), 'utf8'));

    // Same evaluated queries as trec_eval.
    const refQids = [...ref.get('P_5')!.keys()].filter((q) => q !== 'all').sort();
    expect([...ev.perQuery.keys()].sort()).toEqual(refQids);
    expect(ev.counts.evaluated).toBe(refQids.length);

    let compared = 0;
    for (const [name, byQ] of ref) {
      for (const [qid, want] of byQ) {
        const keys: Array<[string, number]> = [];
        if (name === 'recip_rank') {
          keys.push(['MRR@1000', want]);
          if (qid !== 'all') for (const k of KS) keys.push([`MRR@${k}`, want >= 1 / k ? want : 0]);
        } else {
          const key = ourKey(name);
          if (key === undefined) throw new Error(`unexpected trec_eval measure ${name}`);
          keys.push([key, want]);
          // Completeness@k is 1 exactly when trec_eval's recall@k is 1.
          if (name.startsWith('recall_') && qid !== 'all') keys.push([key.replace('Recall', 'Completeness'), want === 1 ? 1 : 0]);
        }
        for (const [key, expected] of keys) {
          const got = qid === 'all' ? ev.aggregate[key] : ev.perQuery.get(qid)?.[key];
          expect(got, `${key} ${qid}`).toBeDefined();
          expect(got, `${key} ${qid}: ours ${got} trec_eval ${expected}`).toBe(expected);
          compared++;
        }
      }
    }
    // Overall MRR@k and Completeness@k: the mean of the derived per-query values.
    for (const k of KS) {
      const rr = [...ref.get('recip_rank')!].filter(([q]) => q !== 'all').map(([, v]): number => (v >= 1 / k ? v : 0));
      expect(ev.aggregate[`MRR@${k}`]).toBe(rr.reduce((a, b) => a + b, 0) / rr.length);
      const rc = [...ref.get(`recall_${k}`)!].filter(([q]) => q !== 'all').map(([, v]): number => (v === 1 ? 1 : 0));
      expect(ev.aggregate[`Completeness@${k}`]).toBe(rc.reduce((a, b) => a + b, 0) / rc.length);
    }
    // Per query 19 values (12 trec_eval measures + 3 Completeness + 4 MRR), plus the 13 "all" rows:
    // nothing was silently skipped.
    expect(compared).toBe(refQids.length * 19 + 13);
  });
});
