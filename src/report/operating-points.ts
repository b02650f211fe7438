/**
 * The injection operating points of each run (src/operating-points/points.ts): the
 * `operating-points.json` file of a run folder and the summary.md section that names, per run,
 * the smallest top-K and token budget reaching the target completeness. Rendering only.
 */
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import { TOKENIZER } from '../operating-points/token-count.js';
import { formatFixed, roundHalfEven } from '../util/python-round.js';
import { MARKDOWN, type Medium } from './medium.js';
import { runName } from './strategies.js';
import { pct } from './cells.js';

/** Rounds every non-integer number to 5 decimals (scores, means); integers stay exact. */
function round5(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? v : roundHalfEven(v, 5);
  if (Array.isArray(v)) return v.map(round5);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, round5(x)]));
  return v;
}

export function operatingPointsJson(r: RunResult): Record<string, unknown> {
  return {
    retriever: r.retriever,
    reranker: r.reranker,
    tokenizer: TOKENIZER,
    injected_text: 'SKILL.md (skill_md, description when missing)',
    note: 'means over queries with gold; injection = a prefix of the ranking (trec order); budget: skills in rank order while the total fits',
    ...(round5(r.operatingPoints) as Record<string, unknown>),
  };
}


export function renderOperatingPointsSection(res: ExperimentResult, m: Medium = MARKDOWN): string {
  if (!res.runs.length) return '';
  const target = res.runs[0]!.operatingPoints.target_completeness;
  const K = 3;
  const out: string[] = [`\n${m.h2('Operating points for skill injection')}\n`];
  out.push(
    `An agent that injects the retrieved SKILL.md texts: the smallest top-K and the smallest context budget (${TOKENIZER} tokens, skills added in rank order while they fit) at which ${formatFixed(100 * target, 0)}% of the queries get every gold skill (Completeness), and what top-${K} injects. "not reached": some gold skills are not in the run's lists. Full curves (top-K 1…N, score-threshold quantiles, budgets) in each run's ${m.code('operating-points.json')}.\n`,
  );
  const header = ['Run', `Smallest K for ${formatFixed(100 * target, 0)}%`, `Smallest budget for ${formatFixed(100 * target, 0)}%`, `Recall@K=${K}`, `Completeness@K=${K}`, `No gold@K=${K}`, `Tokens@K=${K}`];
  const rows = res.runs.map((r) => {
    const op = r.operatingPoints;
    const at = op.top_k[Math.min(K, op.top_k.length) - 1];
    return [
      runName(res, r, m),
      op.min_k === null ? 'not reached' : String(op.min_k),
      op.min_budget === null ? 'not reached' : String(op.min_budget),
      pct(at?.recall),
      pct(at?.completeness),
      pct(at?.no_gold),
      at ? formatFixed(at.tokens, 0) : '–',
    ];
  });
  out.push(m.table(header, rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r']));
  return out.join('\n');
}
