/**
 * The names of every file this tool writes into a results folder (`run`, `report`, `explain`): at
 * its top (summary.md, manifest.json, report.html, queries.jsonl, skills.jsonl) and in each run's
 * folder `<retriever id>/<reranker id>/`. An id that is one of them would name a folder where a
 * results file goes, so the config check refuses it (pipeline/kind-config/config-parts.ts).
 */
export const RESULTS_FILE_NAMES: ReadonlySet<string> = new Set([
  'metrics.json',
  'run.trec',
  'per-query.jsonl',
  'official.json',
  'breakdown.json',
  'operating-points.json',
  'explain.jsonl',
  'explain.json',
  'summary.md',
  'manifest.json',
  'report.html',
  'queries.jsonl',
  'skills.jsonl',
  'gates.json',
  'mask.json',
  'siblings.json',
]);
