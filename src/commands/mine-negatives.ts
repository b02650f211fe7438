/**
 * `skillret-eval mine-negatives`: hard negatives from one first stage of a config over a named split,
 * as training triplets; prints where they went and what the guards dropped.
 */
import { relative } from 'node:path';
import { mineNegatives, type MineNegativesOptions } from '../api/mine-negatives.js';
import { plural } from '../util/plural.js';

function shown(p: string): string {
  const r = relative(process.cwd(), p);
  return r !== '' && !r.startsWith('..') ? r : p;
}

export type MineNegativesCommandOptions = Omit<MineNegativesOptions, 'log' | 'progress'> & { quiet?: boolean };

export async function mineNegativesCommand(o: MineNegativesCommandOptions): Promise<string> {
  const log = o.quiet ? () => {} : (line: string) => void process.stderr.write(`${line}\n`);
  const r = await mineNegatives({ ...o, log, progress: !o.quiet });
  const c = r.counts;
  const g = r.guards;
  const guards = [
    `ranks ${Math.max(g.range.from, g.skipTop + 1)}–${g.range.to ?? r.depth} of ${r.depth}`,
    'gold and copies of gold excluded',
    ...(g.maxScoreRatio !== undefined ? [`score ≤ ${g.maxScoreRatio} × lowest gold score`] : []),
    ...(g.maxScore !== undefined ? [`score ≤ ${g.maxScore}`] : []),
    `${g.sampling === 'top' ? 'the top' : `a random sample (seed ${g.seed}) of`} ${g.negatives} per query`,
  ];
  return [
    `mined ${r.split} with ${r.retriever}: ${plural(c.mined, 'query', 'queries')} of ${c.queries}, ${plural(c.negatives, 'negative')} → ${shown(r.out)} (${r.format}, ${plural(r.lines, 'line')})`,
    `guards: ${guards.join('; ')}`,
    `dropped: ${c.dropped.rank} by rank, ${c.dropped.gold} gold, ${c.dropped.sameText} same text as gold, ${c.dropped.ceiling} above the ceiling`,
    `queries left out: ${c.noGold} without gold, ${c.noPositiveScore} without a positive gold score in the list, ${c.noNegatives} with no negative left; ${c.short} with fewer than ${g.negatives}`,
    `manifest: ${shown(r.meta)}`,
  ].join('\n') + '\n';
}
