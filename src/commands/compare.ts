/**
 * `skillret-eval compare <runDirA> <runDirB>`: renders the paired comparison of two finished runs
 * (src/api/compare.ts) as a table or JSON.
 */
import { UserError } from '../core/errors.js';
import { compareRuns } from '../api/compare.js';
import { renderComparisonJson, renderComparisonTable } from '../report/comparison.js';

export interface CompareOptions {
  a: string;
  b: string;
  format: 'table' | 'json';
  seed?: number;
  iterations?: number;
  keys?: string[];
  allowDifferentData?: boolean;
}

export async function compareCommand(o: CompareOptions): Promise<string> {
  if (o.format !== 'table' && o.format !== 'json') {
    throw new UserError(`--format: expected "table" or "json", got ${JSON.stringify(o.format)}`);
  }
  const c = await compareRuns(o.a, o.b, { ...(o.seed !== undefined ? { seed: o.seed } : {}), ...(o.iterations !== undefined ? { iterations: o.iterations } : {}), ...(o.keys !== undefined ? { keys: o.keys } : {}), ...(o.allowDifferentData ? { allowDifferentData: true } : {}) });
  return o.format === 'json' ? renderComparisonJson(c) : renderComparisonTable(c);
}
