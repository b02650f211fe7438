/**
 * Graded gold: when the evaluated qrels carry a grade above 1 (the v1.1 code's "seed" grade 2; the
 * bundled fixture has two), the default NDCG differs from what the official Hub path gives (every
 * gold skill at relevance 1, eval.py:584-589). The dataset records its grades (manifest); every run
 * keeps its means under that binary gold; on a pinned release they are written beside the default
 * (metrics.json `hub_path_metrics`) and said in summary.md and on the terminal. They equal a run on
 * the same data with every grade set to 1. Off a pinned release nothing of it is written, so the
 * fixture's results files do not move.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/report.js';
import { SKILLRET_RELEASES, type SkillretRelease } from '../src/data/hub.js';
import type { ExperimentResult } from '../src/pipeline/experiment.js';
import { metricsJson } from '../src/report/results-folder.js';
import { renderSummary } from '../src/report/summary.js';
import { renderTerminalSummary } from '../src/report/systems/run-leaderboard.js';
import { runOn } from './helpers/two-majors.js';

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'graded-gold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** data/mini, its grades kept or every one set to 1. */
function mini(name: string, flatten: boolean): string {
  const d = join(dir, name);
  cpSync(join(root, 'data/mini'), d, { recursive: true });
  if (flatten) {
    const f = join(d, 'qrels', 'test.jsonl');
    const lines = readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.stringify({ ...(JSON.parse(l) as object), relevance: 1 }));
    writeFileSync(f, lines.join('\n') + '\n');
  }
  return d;
}

const files = { summary: 'summary.md', html: 'report.html' };

describe('graded gold', () => {
  let graded: ExperimentResult;
  let flat: ExperimentResult;
  let pinned: SkillretRelease;
  beforeAll(async () => {
    graded = await runOn(mini('graded', false));
    flat = await runOn(mini('flat', true));
    const sha = Object.fromEntries(graded.dataset.files.map((f) => [f.role, f.sha256])) as Record<'skills' | 'queries' | 'qrels', string>;
    const bytes = Object.fromEntries(graded.dataset.files.map((f) => [f.role, f.bytes])) as Record<'skills' | 'queries' | 'qrels', number>;
    pinned = { ...SKILLRET_RELEASES[0]!, files: { test: sha }, bytes: { test: bytes } };
  }, 120_000);

  it('records the grades, and keeps each run under the Hub path gold: the means of a run with every grade at 1', () => {
    expect(graded.dataset.stats.grades).toEqual({ judgements: 36, maxGrade: 2, aboveOne: 2 });
    expect(flat.dataset.stats.grades).toEqual({ judgements: 36, maxGrade: 1, aboveOne: 0 });
    expect(graded.runs[0]!.binaryGold).toEqual(flat.runs[0]!.evaluation.aggregate);
    expect(graded.runs[0]!.evaluation.aggregate['NDCG@10']).not.toBe(flat.runs[0]!.evaluation.aggregate['NDCG@10']);
    expect(flat.runs[0]!.binaryGold).toBeUndefined();
  });

  it('a pinned release writes and says both numbers; any other dataset neither', () => {
    const ndcg = (100 * flat.runs[0]!.evaluation.aggregate['NDCG@10']!).toFixed(2);
    const on = analyze(graded, { releases: [pinned] });
    const m = metricsJson(on, graded.runs[0]!);
    expect(m.hub_path_metrics).toEqual(metricsJson(analyze(flat), flat.runs[0]!).metrics);
    expect(renderSummary(on)).toContain(`with that gold NDCG@10 is: bm25 / none ${ndcg}`);
    expect(renderTerminalSummary(on, files)).toContain(`Graded gold (max grade 2): the official Hub path judges every gold skill at 1, giving NDCG@10 bm25/none ${ndcg}.`);
    const off = analyze(graded);
    expect(metricsJson(off, graded.runs[0]!).hub_path_metrics).toBeUndefined();
    expect(renderSummary(off)).not.toContain('Graded gold');
    expect(renderTerminalSummary(off, files)).not.toContain('Graded gold');
  });
});
