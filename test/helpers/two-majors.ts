/**
 * A five-query, two-major dataset written to a temp folder, with BM25 results that can be worked out
 * by hand (the paper-comparison and breakdown tests share it), and a helper that runs an experiment
 * on a dataset folder without the CLI.
 *
 * BM25 (top 20, only scores > 0 kept) on it:
 * - q-1 "postgres backup"         gold s-pg (A)          → s-pg alone, rank 1: every metric 1
 * - q-2 "kubernetes helm"         gold s-k8s (A)         → s-k8s alone, rank 1: every metric 1
 * - q-3 "watercolor painting"     gold s-paint (B)       → s-paint alone, rank 1: every metric 1
 * - q-4 "zebra quokka"            gold s-poem (B)        → nothing retrieved: every metric 0
 * - q-5 "postgres"                gold s-paint, s-pg     → s-pg alone, rank 1. Primary = s-paint (first
 *   qrels row), so the query is B. NDCG@k = 1 / (1 + 1/log2 3) = 0.6131471927654584, Recall 0.5,
 *   Completeness 0.
 * By major (NDCG@10): A (q-1, q-2) = 1; B (q-3, q-4, q-5) = 1.6131471927654584 / 3; all = 3.6131471927654584 / 5.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/pipeline/config.js';
import { runExperiment, type ExperimentResult } from '../../src/pipeline/experiment.js';
import { silentProgress } from '../../src/util/progress.js';

const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Writes the dataset; returns its folder. */
export function writeTwoMajors(): string {
  const dir = mkdtempSync(join(tmpdir(), 'two-majors-'));
  for (const d of ['skills', 'queries', 'qrels']) mkdirSync(join(dir, d));
  const skill = (id: string, name: string, text: string, major: string) => ({ id, name, description: text, skill_md: text, major, sub: 'x' });
  writeFileSync(
    join(dir, 'skills/test.jsonl'),
    jsonl([
      skill('s-pg', 'postgres-backup', 'postgres backup restore', 'Alpha Engineering'),
      skill('s-k8s', 'kubernetes-helm', 'kubernetes helm deploy', 'Alpha Engineering'),
      skill('s-paint', 'watercolor-painting', 'watercolor painting brushes', 'Beta Creation'),
      skill('s-poem', 'poetry-rhyme', 'poetry rhyme meter', 'Beta Creation'),
    ]),
  );
  const q = (id: string, query: string, skill_ids: string[]) => ({ id, query, skill_ids });
  writeFileSync(
    join(dir, 'queries/test.jsonl'),
    jsonl([
      q('q-1', 'postgres backup', ['s-pg']),
      q('q-2', 'kubernetes helm', ['s-k8s']),
      q('q-3', 'watercolor painting', ['s-paint']),
      q('q-4', 'zebra quokka', ['s-poem']),
      q('q-5', 'postgres', ['s-paint', 's-pg']),
    ]),
  );
  const rel = (query_id: string, skill_id: string) => ({ query_id, skill_id, relevance: 1 });
  writeFileSync(
    join(dir, 'qrels/test.jsonl'),
    jsonl([rel('q-1', 's-pg'), rel('q-2', 's-k8s'), rel('q-3', 's-paint'), rel('q-4', 's-poem'), rel('q-5', 's-paint'), rel('q-5', 's-pg')]),
  );
  return dir;
}

/** Runs BM25 (plus `extraRetrievers` YAML list items) on a dataset folder, no cache, silent. */
export async function runOn(datasetDir: string, opts: { extraRetrievers?: string; output?: string } = {}): Promise<ExperimentResult> {
  const out = opts.output ?? mkdtempSync(join(tmpdir(), 'exp-out-'));
  const text = `name: t
dataset: { path: ${JSON.stringify(datasetDir)}, split: test }
retrievers:
  - { id: bm25, type: bm25 }
${opts.extraRetrievers ?? ''}rerankers:
  - { id: none }
output: ${JSON.stringify(out)}
`;
  const config = parseConfig(text, join(out, 'exp.yaml'));
  return runExperiment({ cacheDir: join(out, 'cache'), useCache: false, offline: true, progress: silentProgress, log: () => {} }, config);
}
