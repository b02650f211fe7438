/**
 * Helpers of the fault suite (test/faults/): every file under folders with its SHA-256, to show that
 * a refused command changed nothing in a results folder or a cache; and the CLI run in process,
 * asserted to end in one line on stderr (no stack trace) with the exit code asked.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli, type CliResult } from './cli.js';

/** Every file under `dir` (relative path → SHA-256); an absent folder gives an empty map. */
export function treeHashes(dir: string): Map<string, string> {
  const m = new Map<string, string>();
  if (!existsSync(dir)) return m;
  const walk = (p: string, rel: string) => {
    for (const e of readdirSync(p).sort()) {
      const f = join(p, e);
      if (statSync(f).isDirectory()) walk(f, `${rel}${e}/`);
      else m.set(`${rel}${e}`, createHash('sha256').update(readFileSync(f)).digest('hex'));
    }
  };
  walk(dir, '');
  return m;
}

/** What a refused command must leave as it was: folders exactly (results folders), and folders whose files must all stay (a cache may gain a memo of an input's hash). */
export interface Untouched {
  same?: readonly string[];
  kept?: readonly string[];
}

/**
 * Runs the CLI with `args` and asserts it ends with exit `code` (default 2) and exactly one line on
 * stderr matching `re`, no stack trace, every file under `o.same` (results folders) as before and
 * every file under `o.kept` (caches) still there with its bytes. The line, without the
 * `skillret-eval: ` prefix.
 */
export async function refusedInOneLine(args: string[], re: RegExp, o: Untouched, code = 2): Promise<string> {
  const same = o.same ?? [];
  const kept = o.kept ?? [];
  const before = same.map(treeHashes);
  const keptBefore = kept.map(treeHashes);
  const r: CliResult = await runCli(args);
  expect(r.code, r.err).toBe(code);
  const lines = r.err.trimEnd().split('\n');
  expect(lines, r.err).toHaveLength(1);
  expect(r.err).not.toMatch(/\n\s+at /);
  const line = lines[0]!.replace(/^skillret-eval: /, '');
  expect(line).toMatch(re);
  expect(same.map(treeHashes)).toEqual(before);
  kept.forEach((d, i) => {
    const now = treeHashes(d);
    for (const [f, h] of keptBefore[i]!) expect(now.get(f), `${d}/${f}`).toBe(h);
  });
  return line;
}
