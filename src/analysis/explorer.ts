/**
 * What the explorer of a report shows beside the numbers, chosen once per experiment: each judged
 * query's text, generator model and gold ids (dataset order), and every skill a report shows (each
 * query's gold and each run's top `maxK`, corpus order). report/explorer-files.ts writes them as
 * queries.jsonl and skills.jsonl; formats/explorer-files.ts reads them back.
 */
import type { ExperimentResult } from '../pipeline/experiment.js';
import { trecOrder } from '../metrics/rank.js';
import type { QueryInfo, SkillInfo } from '../formats/explorer-files.js';

/** What queries.jsonl holds: each judged query's text, generator model and gold ids, in dataset order. */
export function queryInfos(res: ExperimentResult): QueryInfo[] {
  const out: QueryInfo[] = [];
  for (const q of res.dataset.queries) {
    const judged = res.dataset.qrels.get(q.id);
    if (!judged) continue;
    const gold = [...judged].filter(([, g]) => g >= 1).map(([id]) => id);
    out.push({ id: q.id, query: q.text, ...(q.generatorModel !== undefined ? { generatorModel: q.generatorModel } : {}), gold });
  }
  return out;
}

/** What skills.jsonl holds: every skill a report shows (each query's gold and each run's top `maxK`), in corpus order. */
export function skillInfos(res: ExperimentResult): SkillInfo[] {
  const maxK = Math.max(...res.config.k);
  const shown = new Set<string>();
  for (const judged of res.dataset.qrels.values()) for (const [id, g] of judged) if (g >= 1) shown.add(id);
  for (const r of res.runs) for (const docs of r.run.values()) for (const d of trecOrder(docs).slice(0, maxK)) shown.add(d.docId);
  return res.dataset.skills
    .filter((s) => shown.has(s.id))
    .map((s) => ({
      id: s.id,
      name: s.name,
      ...(s.major !== undefined ? { major: s.major } : {}),
      ...(s.sub !== undefined ? { sub: s.sub } : {}),
      ...(s.sourceUrl !== undefined ? { sourceUrl: s.sourceUrl } : {}),
    }));
}
