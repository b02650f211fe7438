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
