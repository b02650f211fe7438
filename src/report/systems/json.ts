/** JSON rendering of a SystemsComparison: the whole value at full precision; NaN (undefined p) → null. */
import type { SystemsComparison } from '../../significance/systems.js';
import { plural } from '../../util/plural.js';
import { allPairs } from './model.js';

export function renderComparisonJsonMany(c: SystemsComparison): string {
  const s = c.settings;
  const value = {
    queries: c.queries,
    dropped: c.dropped,
    baseline: c.rows[s.baseline]!.label,
    settings: s,
    delta: 'run - baseline',
    families: {
      baseline: `per metric, the ${plural(c.rows.length - 1, 'run')} compared with the baseline`,
      top_group: `per metric, the ${plural(c.rows.length - 1, 'run')} compared with the column's best`,
      ...(c.pairs ? { pairs: `${allPairs(c.pairs.family)} on ${c.pairs.key}` } : {}),
    },
    runs: c.rows,
    ...(c.pairs ? { pairs: { ...c.pairs, runs: c.rows.map((r) => r.label) } } : {}),
  };
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n';
}
