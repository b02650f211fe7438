/**
 * Reading a run folder's "beyond the paper" files: operating-points.json (written by `run`) and,
 * where `explain` was run, explain.jsonl. Each is optional.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RunInsightFiles {
  label: string;
  operatingPoints?: Record<string, unknown>;
  explain?: Record<string, unknown>[];
}

/** Reads operating-points.json and explain.jsonl of a run folder (each optional). */
export function readInsight(label: string, dir: string): RunInsightFiles {
  const out: RunInsightFiles = { label };
  const op = join(dir, 'operating-points.json');
  if (existsSync(op)) out.operatingPoints = JSON.parse(readFileSync(op, 'utf8')) as Record<string, unknown>;
  const ex = join(dir, 'explain.jsonl');
  if (existsSync(ex))
    out.explain = readFileSync(ex, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return out;
}
