/**
 * The `compare` command's dispatch: exactly two run folders (or per-query.jsonl files) with only
 * the options the two-run form always had (--format table|json, --seed, --iterations, --keys, --allow-different-data) keep
 * the detailed two-run view (src/commands/compare.ts: CI, helped/hurt, the queries hurt most);
 * anything else is the many-system table (src/commands/compare-systems.ts).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { compareCommand } from './compare.js';
import { compareWithCheck, type CompareSystemsOptions } from './compare-systems.js';
import { CheckFailure } from '../core/errors.js';

/** Options the CLI always fills in (commander defaults). */
type Defaulted = 'format' | 'test' | 'alpha' | 'correction' | 'seed' | 'iterations';

/**
 * `compare`'s options as the CLI parses them: the many-system command's own (compare-systems.ts),
 * those with a default always present, plus --keys (the two-run form's name for --measures).
 */
export type CompareCliOptions = Omit<CompareSystemsOptions, 'paths' | Defaulted> & Required<Pick<CompareSystemsOptions, Defaulted>> & { keys?: string[] };

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
  const { keys, measures = keys, ...rest } = o;
  const r = await compareWithCheck({ ...rest, paths, ...(measures !== undefined ? { measures } : {}) });
  write(r.text);
  if (r.failures > 0) throw new CheckFailure(`--check: ${r.failures} paper-reproduction verdict${r.failures === 1 ? ' is' : 's are'} FAIL`);
}
