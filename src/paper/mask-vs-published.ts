/**
 * `explain --mask` beside paper Table 5 (`v1.0-sentence-erasure`: NDCG@10 of the single-gold v1.0
 * test queries with the top 1/2/3 attributed sentences masked). Level 0 pairs with the column
 * `Full query`, level k with `mask_top_<k>`; levels beyond 3 have no published column.
 *
 * The published numbers apply only when all of these hold (otherwise each failing one is a reason,
 * and no Δ or verdict is given):
 * - the run's first stage has a published counterpart (its kind's `paperCounterpart`) with a row in
 *   the table (Qwen3-Embedding-0.6B "Base", SkillRet-Embedding-0.6B "Trained");
 * - the dataset is a pinned release (paper/release-match.ts) of the table's split, v1.0;
 * - every query of the dataset was considered (no selection flag, no cap).
 * Then Δ = yours − published in points (the difference of the printed numbers, official rounding)
 * and the verdict is metrics/verdict.ts's.
 */
import { SKILLRET_RELEASES, type SkillretRelease } from '../data/hub.js';
import type { DatasetFileInfo } from '../data/dataset.js';
import type { PaperCounterpart } from '../core/stages.js';
import { percentDeltaFromPublished } from '../metrics/official-percent.js';
import { DEFAULT_TOLERANCES, verdictOf, worstVerdict, type Tolerances, type Verdict } from '../metrics/verdict.js';
import { matchPinnedRelease } from './release-match.js';
import { findPaperTable, sameModel, type PaperRow } from './results.js';
import { datasetDeviations } from './published-vs-measured.js';

export const MASK_TABLE_ID = 'v1.0-sentence-erasure';

/** What the paper leaves open, as this implementation settles it. */
export const MASK_ASSUMPTIONS: readonly string[] = [
  'sentences by Intl.Segmenter (UAX #29, English); the paper does not name its segmenter',
  'importance is computed with the run\'s own first stage; ties: earlier sentence first',
  'a query with fewer sentences than k has all its sentences masked at level k',
];

/** The published column of masking level k (undefined beyond the table). */
export function maskColumn(level: number): string {
  return level === 0 ? 'Full query' : `mask_top_${level}`;
}

export interface MaskPaperCell {
  level: number;
  column: string;
  /** Percent as published. */
  published: number;
  /** Published relative change vs the full query (percent), levels >= 1. */
  publishedRelative?: number;
  /** Only when the numbers apply. */
  delta?: number;
  verdict?: Verdict;
}

export interface MaskPaper {
  table: string;
  source: string;
  /** The matched row's model (and label), when the first stage has one. */
  row?: string;
  applies: boolean;
  /** Why the published numbers do not apply (empty when they do). */
  reasons: string[];
  release?: { version: string; repo: string; revision: string };
  /** Per published level: the published cell, with Δ and verdict when the numbers apply. */
  cells: MaskPaperCell[];
  /** How the run's setup differs from the paper's (listed, not a reason). */
  deviations: string[];
  /** What the paper does not say and this implementation chose. */
  assumptions: readonly string[];
  tolerances: Tolerances;
  /** The worst verdict of the cells, when the numbers apply. */
  verdict?: Verdict;
}

export interface MaskMeasured {
  /** Mean NDCG@10 per level 0..k, fractions. */
  ndcg10: readonly number[];
  counterpart: PaperCounterpart | undefined;
  firstStage: string;
  subset: boolean;
  selection: string;
  dataset: { files: readonly DatasetFileInfo[]; fields: readonly string[]; separator: string; skillMdField: string; droppedGoldPairs: number };
}

export function maskPaper(m: MaskMeasured, releases: readonly SkillretRelease[] = SKILLRET_RELEASES, tolerances: Tolerances = DEFAULT_TOLERANCES): MaskPaper {
  const table = findPaperTable(MASK_TABLE_ID);
  if (!table) throw new Error(`paper-results.json: no table ${MASK_TABLE_ID}`);
  const reasons: string[] = [];
  let row: PaperRow | undefined;
  if (!m.counterpart) reasons.push(`${m.firstStage} has no published counterpart`);
  else {
    row = table.rows.find((r) => sameModel(r, m.counterpart!.model));
    if (!row) reasons.push(`Table 5 has no row for ${m.counterpart.model} (rows: ${table.rows.map((r) => r.model).join(', ')})`);
  }
  const match = matchPinnedRelease(m.dataset.files, releases);
  const pinned = releases.find((r) => r.version === table.split);
  if (!match) reasons.push(`not a pinned release: Table 5 was measured on the pinned ${table.split} test split${pinned ? ` (${pinned.repo}@${pinned.revision.slice(0, 7)})` : ''}`);
  else if (match.release.version !== table.split) reasons.push(`the dataset is the pinned ${match.release.version} release; Table 5 is on ${table.split} (never compare the two)`);
  if (m.subset) reasons.push(`measured on part of the queries (${m.selection}); Table 5 uses every single-gold query`);
  const applies = reasons.length === 0;
  const cells: MaskPaperCell[] = [];
  if (row) {
    for (let level = 0; level < m.ndcg10.length; level++) {
      const column = maskColumn(level);
      const published = row.values[column];
      if (published === undefined) continue;
      const rel = row.relative_change_pct?.[column];
      const cell: MaskPaperCell = { level, column, published, ...(rel !== undefined ? { publishedRelative: rel } : {}) };
      if (applies) {
        const delta = percentDeltaFromPublished(m.ndcg10[level]!, published);
        cell.delta = delta;
        cell.verdict = verdictOf(delta, tolerances);
      }
      cells.push(cell);
    }
  }
  return {
    table: table.id,
    source: table.source,
    ...(row ? { row: row.label ? `${row.model} (${row.label})` : row.model } : {}),
    applies,
    reasons,
    ...(match ? { release: { version: match.release.version, repo: match.release.repo, revision: match.release.revision } } : {}),
    cells,
    // The masked queries are scored exactly (explain's scorer), so the run's HNSW index is no deviation here.
    deviations: [...datasetDeviations(m.dataset), ...(m.counterpart?.deviations ?? []).filter((d) => !d.startsWith('HNSW index'))],
    assumptions: MASK_ASSUMPTIONS,
    tolerances,
    ...(applies && cells.length ? { verdict: worstVerdict(cells.map((c) => c.verdict!)) } : {}),
  };
}
