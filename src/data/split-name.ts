/**
 * A split's name becomes part of file paths (`<dataset>/<role>/<split>.jsonl`, the hub cache), so it
 * is a plain name: letters, digits, '.', '_', '-', not starting with '.', '_' or '-' (no `..`, no
 * `/`, no hidden file). Checked wherever a split is given: the config's `dataset.split` (so
 * `--dry-run` refuses it), `data fetch --split`, `init --split`, `score --split` and the loaders.
 */
export const SPLIT_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why `split` is not a split name, or null. */
export function splitNameProblem(split: string): string | null {
  return SPLIT_RE.test(split) ? null : `${JSON.stringify(split)} is not a valid split name (letters, digits, '.', '_', '-')`;
}
