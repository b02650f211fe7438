/**
 * The reference material beside the checkout (`../shared`: the real SkillRet sample and the
 * protocol document) that several suites measure against. Locally a missing folder only skips
 * those suites (with a printed reason); in CI (`CI=true`) it is a failure, so a CI run can never
 * stay green by skipping every comparison with the real data.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FULLSIZE_DIR, PROTOCOL_DOC, SAMPLE_DIR } from './helpers/shared.js';

const inCi = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const required = [join(SAMPLE_DIR, 'skills', 'test.jsonl'), join(SAMPLE_DIR, 'queries', 'test.jsonl'), PROTOCOL_DOC, ...['skills', 'queries', 'qrels'].map((f) => join(FULLSIZE_DIR, `${f}.test.jsonl.xz`))];
const missing = required.filter((p) => !existsSync(p));

if (!inCi && missing.length > 0) console.log(`shared-reference: ${missing.join(', ')} absent; the suites that need them skip (CI=true makes this a failure)`);

describe('reference material in ../shared', () => {
  it.runIf(inCi)('is present in CI (the reference suites must not skip there)', () => {
    expect(missing, `missing in CI: ${missing.join(', ')}`).toEqual([]);
  });
});
