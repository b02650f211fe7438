/**
 * The README's library example compiles under `tsc --strict` (and skipLibCheck off, so the shipped
 * .d.ts files are checked too) against the package as a user resolves it: `import … from
 * 'skillret-eval'` through the exports map to dist/index.d.ts. (test/install.test.ts also runs it,
 * from the installed tarball.)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../src/util/paths.js';
import { readmeLibraryExample, strictTsconfig } from './helpers/readme-example.js';

const root = packageRoot();
const tmp = mkdtempSync(join(tmpdir(), 'skillret-readme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const tsc = join(root, 'node_modules', '.bin', 'tsc');

describe('README library example', () => {
  const example = readmeLibraryExample();
  beforeAll(() => {
    mkdirSync(join(tmp, 'node_modules'));
    symlinkSync(root, join(tmp, 'node_modules', 'skillret-eval'), 'dir');
    writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
    writeFileSync(join(tmp, 'tsconfig.json'), strictTsconfig({ typeRoots: join(root, 'node_modules', '@types') }));
  });

  it('is about ten lines and uses the main verbs', () => {
    const lines = example.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(12);
    for (const verb of ['loadConfig', 'runExperiment', 'scoreRun', 'compare(']) expect(example).toContain(verb);
    expect(example).toMatch(/from 'skillret-eval'/);
  });

  it('compiles under tsc --strict against the package entry point', async () => {
    writeFileSync(join(tmp, 'example.ts'), example);
    const res = await promisify(execFile)(tsc, ['-p', tmp, '--strict', '--pretty', 'false']).then(
      () => 'ok',
      (e: { stdout: string; stderr: string }) => `${e.stdout}${e.stderr}`,
    );
    expect(res).toBe('ok');
  });

  it('a misuse does not compile (the check has teeth)', async () => {
    writeFileSync(join(tmp, 'example.ts'), `${example}\nconst n: number = (await scoreRun({ qrels: 'q', run: 'r' })).metrics;\n`);
    const res = await promisify(execFile)(tsc, ['-p', tmp, '--pretty', 'false']).then(
      () => 'ok',
      (e: { stdout: string }) => e.stdout,
    );
    expect(res).toMatch(/example\.ts\(\d+,\d+\): error TS2322/);
  });
});
