/**
 * The summary's fusion-tuning section: per tuned fusion, the split and metric it was tuned by, the
 * point chosen and every point of the grid with its score on the tuning split (pipeline/fusion-tuning.ts).
 * Formatting only; empty when no fusion was tuned.
 */
import type { ExperimentResult } from '../pipeline/experiment.js';
import type { TuningPoint } from '../pipeline/fusion-tuning.js';
import { plural } from '../util/plural.js';
import { formatFixed } from '../util/python-round.js';
import type { Medium } from './medium.js';

const param = (p: TuningPoint): string => (p.rrf_k !== undefined ? `rrf_k=${p.rrf_k}` : `norm=${p.norm}`);

export function renderTuningSection(res: ExperimentResult, m: Medium): string {
  if (!res.tuning?.length) return '';
  const out: string[] = [`\n${m.h2('Fusion tuning')}\n\n`];
  out.push(
    `Each tuned fusion's parameters were chosen on its tuning split (that split's queries, gold and skills) and applied unchanged to the runs above. Score: the metric's mean over the tuning queries, ×100, 4 decimals.\n`,
  );
  for (const t of res.tuning) {
    const c = t.grid[t.chosen]!;
    out.push(
      `\n${m.bold(m.esc(t.retriever))} (${t.method}) tuned on split ${m.bold(m.esc(t.split))} (${plural(t.queries, 'query', 'queries')}, ${plural(t.skills, 'skill')}) by ${t.metric}; ran ${t.ran.map((id) => m.esc(id)).join(', ')} there. ` +
        `Chosen: ${param(c)}, weights=[${c.weights.join(', ')}]. Ties: ${t.tie_rule}.` +
        (t.split === res.dataset.split
          ? ` ${m.bold('Tuned on the evaluated split itself')} (allow_eval_split): its metrics above are fitted to the queries they are measured on.`
          : ` Nothing of split ${m.esc(res.dataset.split)} was read while tuning.`) +
        '\n\n',
    );
    const header = [t.method === 'rrf' ? 'rrf_k' : 'norm', 'weights', `${t.metric} (${m.esc(t.split)})`, 'chosen'];
    const body = t.grid.map((p, i) => [p.rrf_k !== undefined ? String(p.rrf_k) : m.esc(p.norm ?? ''), `[${p.weights.join(', ')}]`, Number.isFinite(p.score) ? formatFixed(p.score * 100, 4) : '–', i === t.chosen ? 'yes' : '']);
    out.push(m.table(header, body, [t.method === 'rrf' ? 'r' : 'l', 'l', 'r', 'l']));
  }
  return out.join('');
}
