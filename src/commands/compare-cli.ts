/**
 * The `compare` command's dispatch: exactly two run folders (or per-query.jsonl files) with only
 * the options the two-run form always had (--format table|json, --seed, --iterations, --keys, --allow-different-data) keep
 * the detailed two-run view (src/commands/compare.ts: CI, helped/hurt, the queries hurt most);
 * anything else is the many-system table (src/commands/compare-systems.ts).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { compareCommand } from './compare.js';
import { compareWithCheck, type CompareFormat } from './compare-systems.js';
import { CheckFailure } from '../core/errors.js';
import type { TestName } from '../significance/systems.js';
import type { Correction } from '../stats/correction.js';

export interface CompareCliOptions {
  format: CompareFormat;
  out?: string;
  baseline?: string;
  measures?: string[];
  keys?: string[];
  test: TestName;
  alpha: number;
  correction: Correction;
  seed: number;
  iterations: number;
  commonQueries?: boolean;
  pairs?: 'all';
  allowDifferentData?: boolean;
  paper?: boolean;
  check?: boolean;
  okWithin?: number;
  closeWithin?: number;
  slice?: string;
  categoryRule?: string;
}


function isSingleRun(path: string): boolean {
  const s = statSync(path, { throwIfNoEntry: false });
  if (s === undefined) return false;
  return s.isFile() || statSync(join(path, 'per-query.jsonl'), { throwIfNoEntry: false })?.isFile() === true;
}

/** Writes the output with `write`; a failed --check then throws CheckFailure (exit code 1). */
export async function compareCli(paths: string[], o: CompareCliOptions, given: (option: string) => boolean, write: (s: string) => void): Promise<void> {
  const newOptions = ['out', 'baseline', 'measures', 'test', 'alpha', 'correction', 'commonQueries', 'pairs', 'paper', 'check', 'okWithin', 'closeWithin', 'slice', 'categoryRule'].filter(given);
  const twoRun = paths.length === 2 && paths.every(isSingleRun) && newOptions.length === 0 && (o.format === 'table' || o.format === 'json');
  if (twoRun) {
    write(await compareCommand({ a: paths[0]!, b: paths[1]!, format: o.format as 'table' | 'json', seed: o.seed, iterations: o.iterations, ...(o.keys ? { keys: o.keys } : {}), ...(o.allowDifferentData ? { allowDifferentData: true } : {}) }));
    return;
  }
  const measures = o.measures ?? o.keys;
  const r = await compareWithCheck({
    paths,
    format: o.format,
    ...(o.out !== undefined ? { out: o.out } : {}),
    ...(o.baseline !== undefined ? { baseline: o.baseline } : {}),
    ...(measures !== undefined ? { measures } : {}),
    test: o.test,
    alpha: o.alpha,
    correction: o.correction,
    seed: o.seed,
    iterations: o.iterations,
    commonQueries: o.commonQueries === true,
    ...(o.pairs !== undefined ? { pairs: o.pairs } : {}),
    allowDifferentData: o.allowDifferentData === true,
    paper: o.paper === true,
    check: o.check === true,
    ...(o.okWithin !== undefined ? { okWithin: o.okWithin } : {}),
    ...(o.closeWithin !== undefined ? { closeWithin: o.closeWithin } : {}),
    ...(o.slice !== undefined ? { slice: o.slice } : {}),
    ...(o.categoryRule !== undefined ? { categoryRule: o.categoryRule } : {}),
  });
  write(r.text);
  if (r.failures > 0) throw new CheckFailure(`--check: ${r.failures} paper-reproduction verdict${r.failures === 1 ? ' is' : 's are'} FAIL`);
}
