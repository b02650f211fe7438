/**
 * The rerank matrix (paper Table 10's shape): per retriever and reranker group, the main metric of
 * the first stage alone, after reranking at each depth, and over the oracle pool. Present only when
 * some reranker group runs at more than one depth or with an oracle pool.
 */
import type { ExperimentResult } from '../pipeline/experiment.js';

export interface RerankMatrix {
  key: string;
  /** The depths of the plain columns and of the oracle columns, ascending. */
  depths: number[];
  oracleDepths: number[];
  rows: { retriever: string; group: string; firstStage: number | undefined; atDepth: (number | undefined)[]; oracle: (number | undefined)[] }[];
}

export function rerankMatrix(res: ExperimentResult, key: string): RerankMatrix | undefined {
  const entries = res.config.rerankers.filter((r): r is Extract<typeof r, { group: string }> => 'group' in r);
  const groups = [...new Set(entries.map((r) => r.group))];
  const multi = groups.filter((g) => entries.filter((r) => r.group === g).length > 1 || entries.some((r) => r.group === g && r.oracle));
  if (multi.length === 0) return undefined;
  const depths = [...new Set(entries.filter((r) => multi.includes(r.group) && !r.oracle).map((r) => r.depth))].sort((a, b) => a - b);
  const oracleDepths = [...new Set(entries.filter((r) => multi.includes(r.group) && r.oracle).map((r) => r.depth))].sort((a, b) => a - b);
  const rows: RerankMatrix['rows'] = [];
  for (const ret of res.config.retrievers) {
    const firstStage = res.runs.find((x) => x.retriever === ret.id && x.onOff)?.onOff?.base.aggregate[key];
    for (const g of multi) {
      const cell = (d: number, oracle: boolean) => {
        const e = entries.find((r) => r.group === g && r.depth === d && r.oracle === oracle);
        const run = e && res.runs.find((x) => x.retriever === ret.id && x.reranker === e.id);
        return run ? run.evaluation.aggregate[key] : undefined;
      };
      rows.push({ retriever: ret.id, group: g, firstStage, atDepth: depths.map((d) => cell(d, false)), oracle: oracleDepths.map((d) => cell(d, true)) });
    }
  }
  return { key, depths, oracleDepths, rows };
}
