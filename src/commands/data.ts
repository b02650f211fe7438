/**
 * `skillret-eval data fetch`: downloads one split of a dataset on the Hugging Face hub (a pinned
 * SkillRet release by default) into the cache through `ensureHubDataset` (src/data/hub.ts), which
 * verifies the pinned SHA-256s, and prints the local folder, every file's size, SHA-256 and origin
 * (downloaded now or already in the cache) and the config lines that use it.
 *
 * Which dataset: `--version v1.1|v1.0` (default v1.1) or `--repo owner/name --revision <commit|tag>`
 * (a pair that is a pinned release is verified as that release; any other is downloaded unverified,
 * its hashes printed). Offline (`--offline`, SKILLRET_OFFLINE=1, HF_HUB_OFFLINE=1) nothing is
 * downloaded: a complete cache is reported, a missing file is refused with the folder to fill.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { closest } from 'fastest-levenshtein';
import { UserError } from '../core/errors.js';
import { ensureHubDataset, hubFileUrl, SKILLRET_RELEASES, type HubSubset, type SkillretRelease } from '../data/hub.js';
import { sha256File } from '../util/hash.js';
import { defaultCacheDir, offlineFromEnv } from '../util/paths.js';

export interface DataFetchOptions {
  /** A pinned release name (`v1.1`, `v1.0`); the default when neither it nor repo/revision is given is v1.1. */
  version?: string;
  repo?: string;
  revision?: string;
  /** Default `test`. */
  split?: string;
  /** Default: $SKILLRET_CACHE_DIR or <checkout>/.cache (as `run`). */
  cacheDir?: string;
  offline?: boolean;
  /** Hub base URL; default env HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  /** Download progress lines (default: none). */
  log?: (line: string) => void;
  /** The pinned releases (default SKILLRET_RELEASES; tests pass their own). */
  releases?: readonly SkillretRelease[];
  fetchImpl?: typeof fetch;
  /** Waits between download attempts (tests pass one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_VERSION = 'v1.1';
const SUBSETS: readonly HubSubset[] = ['skills', 'queries', 'qrels'];

interface Target {
  repo: string;
  revision: string;
  release: SkillretRelease | undefined;
}

function target(o: DataFetchOptions, releases: readonly SkillretRelease[]): Target {
  const known = releases.map((r) => r.version);
  if (o.version !== undefined && (o.repo !== undefined || o.revision !== undefined))
    throw new UserError('--version: give either --version or --repo with --revision, not both');
  if ((o.repo === undefined) !== (o.revision === undefined))
    throw new UserError(o.repo === undefined ? '--repo: missing; --revision needs --repo (owner/name)' : '--revision: missing; --repo needs a pinned --revision (a 40-hex commit or a tag)');
  if (o.repo !== undefined && o.revision !== undefined) {
    const release = releases.find((r) => r.repo === o.repo && r.revision === o.revision);
    return { repo: o.repo, revision: o.revision, release };
  }
  const version = o.version ?? DEFAULT_VERSION;
  const release = releases.find((r) => r.version === version);
  if (!release) {
    const best = known.length ? closest(version, known) : undefined;
    throw new UserError(`--version: unknown release ${JSON.stringify(version)} (known: ${known.join(', ')}${best ? `; did you mean "${best}"?` : ''})`);
  }
  return { repo: release.repo, revision: release.revision, release };
}

/** Returns the report for stdout. */
export async function dataFetchCommand(o: DataFetchOptions): Promise<string> {
  const releases = o.releases ?? SKILLRET_RELEASES;
  const t = target(o, releases);
  const split = o.split ?? 'test';
  const cacheDir = resolve(o.cacheDir ?? defaultCacheDir());
  const offline = Boolean(o.offline) || offlineFromEnv();
  const endpoint = o.endpoint ?? process.env['HF_ENDPOINT'] ?? 'https://huggingface.co';
  const pinned = t.release?.files[split];

  // Which files were asked of the hub: every download starts with a GET of the file's own URL.
  const requested = new Set<string>();
  const baseFetch = o.fetchImpl ?? fetch;
  const recordingFetch: typeof fetch = (input, init) => {
    requested.add(typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url);
    return baseFetch(input, init);
  };

  const dir = await ensureHubDataset({
    repo: t.repo,
    revision: t.revision,
    split,
    ...(o.endpoint !== undefined ? { endpoint: o.endpoint } : {}),
    cacheDir,
    offline,
    ...(pinned ? { expectedSha256: pinned } : {}),
    fetchImpl: recordingFetch,
    endpointLabel: '--endpoint',
    splitLabel: '--split',
    ...(o.sleep ? { sleep: o.sleep } : {}),
    ...(o.log ? { log: o.log } : {}),
  });

  const rows: string[][] = [];
  for (const subset of SUBSETS) {
    const rel = `${subset}/${split}.jsonl`;
    const file = join(dir, subset, `${split}.jsonl`);
    const asked = requested.has(hubFileUrl(endpoint, t.repo, t.revision, subset, split));
    if (!existsSync(file)) {
      rows.push([rel, '–', 'absent on the hub: gold comes from the queries', '', asked ? 'asked the hub (HTTP 404)' : 'from the cache (404 remembered)']);
      continue;
    }
    const bytes = statSync(file).size;
    const sha = await sha256File(file);
    rows.push([rel, `${bytes} bytes`, `sha256 ${sha}`, pinned ? 'verified (pinned)' : 'not pinned', asked ? 'downloaded' : 'from the cache']);
  }

  const widths = rows[0]!.map((_, j) => Math.max(...rows.map((r) => r[j]!.length)));
  const cell = (r: string[]) => '  ' + r.map((c, j) => (j === 1 ? c.padStart(widths[j]!) : c.padEnd(widths[j]!))).join('  ').trimEnd();
  const name = t.release ? `SkillRet ${t.release.version}: ` : '';
  const lines = [
    `${name}${t.repo} @ ${t.revision}, split ${split}${pinned ? '' : t.release ? ' (this split is not pinned: SHA-256 not verified)' : ' (not a pinned release: SHA-256 not verified)'}`,
    `folder: ${dir}`,
    ...rows.map(cell),
    '',
    'Use it in an experiment config:',
    '  dataset:',
    `    hub: { repo: ${t.repo}, revision: ${t.revision}${o.endpoint !== undefined ? `, endpoint: ${o.endpoint}` : ''} }`,
    `    split: ${split}`,
    ...(o.cacheDir !== undefined ? [`  cache_dir: ${cacheDir}   # or run with --cache-dir ${cacheDir}`] : []),
    'or, as a plain local folder:',
    `  dataset: { path: ${dir}, split: ${split} }`,
  ];
  return lines.join('\n') + '\n';
}
