/**
 * Where the workspace's shared material lives: `../shared` beside the checkout
 * (in CI too). Tests that need it skip with a printed reason when it is absent.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const SHARED_DIR = resolve(__dirname, '../../../shared');
export const SAMPLE_DIR = join(SHARED_DIR, 'data/skillret-sample');
export const PROTOCOL_DOC = join(SHARED_DIR, 'docs/skillret-protocol.md');
export const sampleExists = existsSync(join(SAMPLE_DIR, 'skills/test.jsonl'));
/** The full-size split of real SKILL.md text with synthetic queries, xz-compressed (its README says how to unpack it). */
export const FULLSIZE_DIR = join(SHARED_DIR, 'data/synth-fullsize');
export const fullsizeExists = ['skills', 'queries', 'qrels'].every((f) => existsSync(join(FULLSIZE_DIR, `${f}.test.jsonl.xz`)));
