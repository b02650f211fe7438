/**
 * Downloads a dataset split from the Hugging Face hub into the cache, laid out as a dataset folder
 * (`<cacheDir>/datasets/<owner>/<name>/<revision>/{skills,queries,qrels}/<split>.jsonl`), and the pinned
 * SkillRet releases (docs/protocol.md §1).
 *
 * - The revision must be pinned: a 40-hex commit or a tag; branch heads (main, master, HEAD) are refused.
 * - Files are downloaded by `downloadResumable` (download.ts): retried with backoff on dropped
 *   connections, timeouts and 5xx (a host that does not resolve fails at once), resumed with HTTP Range into `<file>.part` (checked against the
 *   server's ETag and size), SHA-256 checked, then renamed into place; a mismatching download leaves
 *   nothing in place. A file already in place (and matching its expected SHA-256, if given) is not
 *   fetched again.
 * - The endpoint (option, `dataset.hub.endpoint`, `--endpoint` or HF_ENDPOINT) must not hold
 *   credentials, a query string or a fragment: refused in one line naming where it came from.
 * - qrels is optional: HTTP 404 records its absence in a `<split>.jsonl.absent` marker (not asked again).
 * - The token (env HF_TOKEN, else HUGGINGFACE_TOKEN) is sent as `Authorization: Bearer` only to the
 *   endpoint's own origin (redirects are followed by hand; a redirect to another host, e.g. a CDN, gets
 *   no token). It is never printed, logged or written; messages never echo request headers.
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError, where } from '../core/errors.js';
import { writeFileAtomic } from '../util/atomic.js';
import { cacheWrite } from '../cache/write-failures.js';
import { sha256File } from '../util/hash.js';
import { hubUrlProblem, maskSecrets, urlCredentialProblem } from '../util/secrets.js';
import { downloadResumable, type RetryPolicy } from './download.js';
import { splitNameProblem } from './split-name.js';

export type HubSubset = 'skills' | 'queries' | 'qrels';

/** One pinned file outside the splits (taxonomy). */
export interface PinnedFile {
  /** Path inside the dataset repository. */
  path: string;
  bytes: number;
  sha256: string;
}

/** A pinned SkillRet release. */
export interface SkillretRelease {
  version: string;
  repo: string;
  revision: string;
  /** split -> subset -> SHA-256 of `data/<subset>/<split>.jsonl` (usable as `expectedSha256`). */
  files: Readonly<Record<string, Readonly<Record<HubSubset, string>>>>;
  /** split -> subset -> size in bytes. */
  bytes: Readonly<Record<string, Readonly<Record<HubSubset, number>>>>;
  taxonomy?: PinnedFile;
}

/**
 * The SkillRet releases pinned by the protocol (ThakiCloud/SKILLRET; only the test split's files are
 * pinned there). Never compare v1.0 with v1.1.
 */
export const SKILLRET_RELEASES: readonly SkillretRelease[] = [
  {
    version: 'v1.1',
    repo: 'ThakiCloud/SKILLRET',
    revision: 'a050ad233a504a43135bafe8cdf45574052b5729',
    files: {
      test: {
        skills: '1960453e422e4ba01977197580934ca3c02b2ac302dfa9c0d074707d961b7c81',
        queries: '4d07a35f40e597f8468c6dab480c95a1f9b40ecbde80274081ba2e7c643d0f6d',
        qrels: 'edbfae0b8109de460d54e27e6235b1b47316f34956744db0571ad1b4ddb860af',
      },
    },
    bytes: { test: { skills: 117_606_037, queries: 6_053_507, qrels: 661_204 } },
    taxonomy: { path: 'data/taxonomy.json', bytes: 5_372, sha256: '8fb8e8e8eeb22b8781615d455350a1d9d03e7fe10ca26940993fc37b0cdacf48' },
  },
  {
    version: 'v1.0',
    repo: 'ThakiCloud/SKILLRET',
    revision: '7cae7cfbad2b0e1ebc9170892f568993aae543b0',
    files: {
      test: {
        skills: '4b3db14f528b288077b77207343211dede58f11c15b95a4ced7f6e0f01cbcea9',
        queries: '7475fc12e06c81acb256831dbe25b10cca3c489f23be5774ded034f3bb3877ea',
        qrels: '12142c4433ffe6c6d6b2b98a277168d35c81338e1b50818eadd8a3c6bb2a6f44',
      },
    },
    bytes: { test: { skills: 127_443_784, queries: 6_948_024, qrels: 767_924 } },
  },
];

/** The pinned release for a repo and revision (or a version name), if any. */
export function findRelease(repoOrVersion: string, revision?: string): SkillretRelease | undefined {
  return SKILLRET_RELEASES.find((r) => (revision === undefined ? r.version === repoOrVersion : r.repo === repoOrVersion && r.revision === revision));
}

export interface HubDatasetOptions {
  /** `owner/name` of the dataset repository. */
  repo: string;
  /** A 40-hex commit or a tag. Required. */
  revision: string;
  split: string;
  /** Default: env HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  cacheDir: string;
  /** true: never touch the network; files must already be in the cache folder. */
  offline: boolean;
  expectedSha256?: Partial<Record<HubSubset, string>>;
  fetchImpl?: typeof fetch;
  /** Informational lines (download started/finished). */
  log?: (line: string) => void;
  /** How `endpoint` was given, for messages (default `dataset.hub.endpoint`; `--endpoint` for data fetch). */
  endpointLabel?: string;
  /** How the split was given, for messages (default `dataset.split`; `--split` for data fetch). */
  splitLabel?: string;
  /** Retries and waits of each download (download.ts defaults). */
  retry?: Partial<RetryPolicy>;
  /** Waits between attempts (tests pass one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
}

const SUBSETS: readonly HubSubset[] = ['skills', 'queries', 'qrels'];
const REPO_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const COMMIT_RE = /^[0-9a-f]{40}$/;
const TAG_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MUTABLE_REFS = new Set(['main', 'master', 'head']);

function hfToken(): string | undefined {
  const t = process.env['HF_TOKEN'] || process.env['HUGGINGFACE_TOKEN'];
  return t !== undefined && t !== '' ? t : undefined;
}

/** Removes the token (and any 6+ character piece of it) from a message, whatever produced it. */
function redact(s: string, token: string | undefined): string {
  return maskSecrets(s, [token]);
}

function userError(msg: string, token: string | undefined): UserError {
  return new UserError(redact(msg, token));
}

/** Why a hub pin is not usable: the key (`repo`, `revision`) and the reason; null when it is a pin. */
export function hubPinProblem(repo: string, revision: string | undefined): { key: 'repo' | 'revision'; text: string } | null {
  if (!REPO_RE.test(repo)) return { key: 'repo', text: `${JSON.stringify(repo)} is not an "owner/name" repository id` };
  if (revision === undefined || revision === '') return { key: 'revision', text: 'missing; pin a 40-hex commit or a tag (the hub head is mutable)' };
  if (COMMIT_RE.test(revision)) return null;
  if (/^[0-9a-fA-F]{7,39}$/.test(revision)) return { key: 'revision', text: `${JSON.stringify(revision)} looks like a short commit; give all 40 hex digits` };
  if (!TAG_RE.test(revision) || revision.includes('..')) return { key: 'revision', text: `${JSON.stringify(revision)} is neither a 40-hex commit nor a tag name` };
  if (MUTABLE_REFS.has(revision.toLowerCase())) return { key: 'revision', text: `${JSON.stringify(revision)} is a branch head, not a pin; give a 40-hex commit or a tag` };
  return null;
}

/** Checks repo and revision; throws a UserError naming the option. */
export function checkHubPin(repo: string, revision: string | undefined): void {
  const p = hubPinProblem(repo, revision);
  if (p) throw new UserError(`${where('dataset', undefined, p.key)}${p.text}`);
}

/**
 * The dataset files of a hub split missing from the cache (`hubDatasetDir`): skills and queries
 * (qrels is optional). What an offline run would refuse; contents are verified when the run reads them.
 */
export function missingHubFiles(cacheDir: string, repo: string, revision: string, split: string): string[] {
  const dir = hubDatasetDir(cacheDir, repo, revision);
  return (['skills', 'queries'] as const).map((subset) => join(dir, subset, `${split}.jsonl`)).filter((f) => !existsSync(f));
}

/** The local dataset folder for a repo at a revision. */
export function hubDatasetDir(cacheDir: string, repo: string, revision: string): string {
  const [owner = '', name = ''] = repo.split('/');
  return join(cacheDir, 'datasets', owner, name, revision);
}

/** `<endpoint>/datasets/<repo>/resolve/<revision>/data/<subset>/<split>.jsonl` */
export function hubFileUrl(endpoint: string, repo: string, revision: string, subset: HubSubset, split: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return `${base}/datasets/${repo}/resolve/${encodeURIComponent(revision)}/data/${subset}/${encodeURIComponent(split)}.jsonl`;
}

/**
 * Makes sure `<cacheDir>/datasets/<repo>/<revision>/{skills,queries,qrels}/<split>.jsonl` are present
 * (qrels optional) and returns that dataset folder, ready for loadDataset.
 */
export async function ensureHubDataset(o: HubDatasetOptions): Promise<string> {
  checkHubPin(o.repo, o.revision);
  const splitProblem = splitNameProblem(o.split);
  if (splitProblem) throw new UserError(`${o.splitLabel ?? 'dataset.split'}: ${splitProblem}`);
  const token = hfToken();
  const fromEnv = o.endpoint === undefined && process.env['HF_ENDPOINT'] !== undefined;
  const endpoint = o.endpoint ?? process.env['HF_ENDPOINT'] ?? 'https://huggingface.co';
  const label = fromEnv ? 'HF_ENDPOINT' : (o.endpointLabel ?? 'dataset.hub.endpoint');
  const secretProblem = urlCredentialProblem(endpoint);
  if (secretProblem) throw new UserError(`${label}: ${secretProblem}; give the bare hub URL and put a token in HF_TOKEN`);
  let origin: string;
  try {
    origin = new URL(endpoint).origin;
  } catch {
    throw new UserError(`${label}: ${JSON.stringify(redact(endpoint, token))} is not a URL`);
  }
  const notHttp = hubUrlProblem(endpoint);
  if (notHttp) throw new UserError(`${label}: ${redact(notHttp, token)} (nothing downloaded, not retried)`);
  const fetchFn = o.fetchImpl ?? fetch;
  const dir = hubDatasetDir(o.cacheDir, o.repo, o.revision);
  const log = o.log ?? (() => undefined);
  const missing: string[] = [];

  for (const subset of SUBSETS) {
    const target = join(dir, subset, `${o.split}.jsonl`);
    const absentMarker = `${target}.absent`;
    const expected = o.expectedSha256?.[subset];
    const optional = subset === 'qrels' && expected === undefined;
    if (existsSync(target)) {
      if (expected === undefined) continue;
      const actual = await sha256File(target);
      if (actual === expected.toLowerCase()) continue;
      if (o.offline) {
        throw new UserError(`${where(target)}sha256 mismatch: expected ${expected.toLowerCase()}, got ${actual}; replace the file (offline)`);
      }
      log(`${target}: sha256 ${actual} is not the pinned ${expected.toLowerCase()}; downloading again`);
      rmSync(target, { force: true });
    } else if (optional && existsSync(absentMarker)) {
      continue;
    }
    if (o.offline) {
      if (!optional) missing.push(target);
      continue;
    }
    const url = hubFileUrl(endpoint, o.repo, o.revision, subset, o.split);
    log(`downloading ${url}`);
    const got = await downloadResumable({
      url,
      target,
      origin,
      token,
      ...(expected !== undefined ? { expectedSha256: expected } : {}),
      fetchFn,
      ...(o.retry ? { retry: o.retry } : {}),
      ...(o.sleep ? { sleep: o.sleep } : {}),
      log,
    });
    if (got.kind === 'status') {
      if (got.status === 404 && optional) {
        // Only a note that saves asking again: a write that fails costs one warning (cache/write-failures.ts).
        cacheWrite(dirname(absentMarker), log, () => writeFileAtomic(absentMarker, `HTTP 404 for ${url}\n`));
        log(`${url}: no ${subset} file (404); gold will come from the queries`);
        continue;
      }
      const hint =
        got.status === 401 || got.status === 403
          ? `; access denied: set HF_TOKEN to a token that can read ${o.repo}${token === undefined ? '' : ' (the one set was refused)'}`
          : got.status === 404
            ? '; check repo, revision and split'
            : '';
      throw userError(`${where(url)}HTTP ${got.status}${hint}`, token);
    }
    rmSync(absentMarker, { force: true });
    log(`${target}: ${got.bytes} bytes, sha256 ${got.sha256}${got.resumedFrom.length > 0 ? ` (resumed at byte${got.resumedFrom.length > 1 ? 's' : ''} ${got.resumedFrom.join(', ')})` : ''}`);
  }
  if (missing.length > 0) {
    throw new UserError(
      `${where(missing[0]!)}missing and offline: fill the folder ${dir} with {skills,queries,qrels}/${o.split}.jsonl ` +
        `(qrels optional) from ${o.repo} at ${o.revision}, or run online`,
    );
  }
  return dir;
}
