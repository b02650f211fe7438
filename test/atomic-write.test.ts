/**
 * writeFileAtomic when the write itself fails part-way: a child process limited to 1 KiB per file
 * (ulimit -f, SIGXFSZ ignored, so write(2) fails with EFBIG after the first KiB reached the disk)
 * writes 200 KB over an existing file. The old file must be intact and no temporary file left.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../src/util/atomic.js';

const ATOMIC = pathToFileURL(resolve(__dirname, '..', 'dist', 'util', 'atomic.js')).href;
let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), 'skillret-atomic-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temporary sibling', () => {
    const p = join(root, 'a', 'b', 'f.txt');
    writeFileAtomic(p, 'one');
    writeFileAtomic(p, 'two');
    expect(readFileSync(p, 'utf8')).toBe('two');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['f.txt']);
  });

  it.runIf(process.platform === 'linux')('a write failing mid-way (EFBIG after 1 KiB) keeps the old file whole and removes the partial one', () => {
    const dir = join(root, 'limited');
    const target = join(dir, 'results.json');
    rmSync(dir, { recursive: true, force: true });
    writeFileAtomic(target, 'the old, complete content\n');
    const script = `import { writeFileAtomic } from ${JSON.stringify(ATOMIC)};
try { writeFileAtomic(${JSON.stringify(target)}, 'x'.repeat(200000)); console.log('written'); }
catch (e) { console.log(e.code); process.exit(3); }`;
    const r = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 1; exec "${process.execPath}" --input-type=module -e "$0"`, script], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('EFBIG');
    expect(r.status).toBe(3);
    expect(readFileSync(target, 'utf8')).toBe('the old, complete content\n');
    expect(readdirSync(dir)).toEqual(['results.json']);
  });
});
