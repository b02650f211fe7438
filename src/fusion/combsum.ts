/**
 * CombSUM and CombMNZ (Fox & Shaw 1994; ranx `sum` / `mnz`) over normalised scores:
 *   CombSUM(d) = Σ_i w_i · norm_i(d)
 *   CombMNZ(d) = hits(d) · Σ_i w_i · norm_i(d)
 * where norm_i is the per-query normalisation of input i's list (src/fusion/normalize.ts) and
 * hits(d) the number of inputs that returned d (whatever their weight). An input that did not
 * return d contributes nothing (0). Sums are taken in input order, so the result is deterministic.
 */
import type { Run } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';
import { fusedTopK, queryIds } from './candidates.js';
import { normalizeScores, type NormMethod } from './normalize.js';

export interface CombOptions {
  norm: NormMethod;
  /** One weight per input (default: all 1). */
  weights?: readonly number[];
  /** Documents kept per query, by trec order of the fused score. */
  topK: number;
}

function comb(runs: readonly Run[], o: CombOptions, mnz: boolean): Run {
  const out: Run = new Map();
  for (const qid of queryIds(runs)) {
    const acc = new Map<string, number>();
    const hits = new Map<string, number>();
    runs.forEach((run, i) => {
      const w = o.weights?.[i] ?? 1;
      // A duplicate doc id within one list keeps its best-ranked entry only.
      const seen = new Set<string>();
      const list = trecOrder(run.get(qid) ?? []).filter((d) => !seen.has(d.docId) && seen.add(d.docId));
      for (const d of normalizeScores(list, o.norm)) {
        acc.set(d.docId, (acc.get(d.docId) ?? 0) + w * d.score);
        hits.set(d.docId, (hits.get(d.docId) ?? 0) + 1);
      }
    });
    if (mnz) for (const [docId, s] of acc) acc.set(docId, s * hits.get(docId)!);
    out.set(qid, fusedTopK(acc, o.topK));
  }
  return out;
}

export function combsum(runs: readonly Run[], o: CombOptions): Run {
  return comb(runs, o, false);
}

export function combmnz(runs: readonly Run[], o: CombOptions): Run {
  return comb(runs, o, true);
}
