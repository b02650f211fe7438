/**
 * Provenance of an experiment: tool version and git commit, Node version,
 * config hash, dataset files (SHA-256, record counts), every parameter of every
 * stage, timings and peak memory. Timings live here and only here, so that the
 * results files stay byte-identical across runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isCheckout, packageRoot } from '../util/paths.js';
import { ownPackage } from '../util/package-version.js';

export interface ToolInfo {
  name: string;
  version: string;
  git_commit: string | null;
  git_dirty: boolean | null;
}

let tool: ToolInfo | undefined;

/** name and version from package.json (cheap: no git). */
export function packageInfo(): { name: string; version: string } {
  return ownPackage();
}

/** Tool version and git commit, for the manifest (runs git once per process). */
export function toolInfo(): ToolInfo {
  if (tool) return tool;
  const root = packageRoot();
  const pkg = packageInfo();
  let commit: string | null = null;
  let dirty: boolean | null = null;
  // Only a checkout of its own: an installed copy inside someone's repository must not report that repository's commit.
  if (isCheckout() && existsSync(join(root, '.git'))) {
    try {
      commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
      dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() !== '';
    } catch {
      /* git not installed: leave null */
    }
  }
  return (tool = { name: pkg.name, version: pkg.version, git_commit: commit, git_dirty: dirty });
}

/** Peak resident set size of this process so far, in bytes. */
export function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** Wall-clock timer for a stage. */
export function stopwatch(): () => number {
  const t0 = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - t0) / 1e9;
}
