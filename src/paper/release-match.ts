/**
 * Whether a loaded dataset is a pinned SkillRet release, by content: the published numbers apply
 * only to the exact pinned files (docs/protocol.md §1 and §7 rule 1).
 *
 * Rule: the dataset's skills and queries files must have the SHA-256 of one release's split, and
 * its qrels file, when there is one, must too (without a qrels file the gold comes from the queries'
 * `skill_ids`, which for the published files agree with the qrels). Only the test split is pinned.
 * The release list is a parameter (default `SKILLRET_RELEASES`) so the rule can be tested on a
 * small stand-in release.
 */
import { SKILLRET_RELEASES, type HubSubset, type SkillretRelease } from '../data/hub.js';

export interface ReleaseMatch {
  release: SkillretRelease;
  /** The release split whose files matched (`test`). */
  split: string;
}

/** The release (and split) whose pinned files the dataset's files are, if any. */
export function matchPinnedRelease(
  files: readonly { role: HubSubset; sha256: string }[],
  releases: readonly SkillretRelease[] = SKILLRET_RELEASES,
): ReleaseMatch | undefined {
  const sha = new Map<HubSubset, string>();
  for (const f of files) sha.set(f.role, f.sha256.toLowerCase());
  const skills = sha.get('skills');
  const queries = sha.get('queries');
  if (skills === undefined || queries === undefined) return undefined;
  for (const release of releases) {
    for (const [split, pinned] of Object.entries(release.files)) {
      if (pinned.skills.toLowerCase() !== skills || pinned.queries.toLowerCase() !== queries) continue;
      const qrels = sha.get('qrels');
      if (qrels !== undefined && pinned.qrels.toLowerCase() !== qrels) continue;
      return { release, split };
    }
  }
  return undefined;
}
