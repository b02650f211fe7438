/**
 * scripts/bench-profile.mjs, the profile `npm run bench` prints under a missed target: it must name
 * the function and module where a process spends its time, on the main thread and on workers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'bench-profile-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function profile(script: string): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  return execFileSync(process.execPath, ['scripts/bench-profile.mjs', '--top', '5', '--', file], { encoding: 'utf8' });
}

describe('bench profile', () => {
  it('puts the busy function at the top of the main thread, with its file and line', () => {
    const md = profile(
      `function spinHere(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }\n` +
        `console.log(spinHere(400) > 0);\n`,
    );
    expect(md).toMatch(/^1 profiled thread \(main\)/);
    const rows = md.split('\n').filter((l) => l.startsWith('| spinHere'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/\.mjs:1 \| /);
    // The first function row of the table is the spinning one.
    const firstFunction = md.split('| function (self time) | s |\n|---|---|\n')[1]?.split('\n')[0] ?? '';
    expect(firstFunction).toMatch(/^\| (spinHere|now) /);
  });

  it('profiles worker threads too, one table each', () => {
    const md = profile(
      `import { Worker } from 'node:worker_threads';\n` +
        `const code = "function workerSpin(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; } workerSpin(300);";\n` +
        `await new Promise((resolve, reject) => { const w = new Worker(code, { eval: true }); w.on('exit', resolve); w.on('error', reject); });\n`,
    );
    expect(md).toMatch(/^2 profiled threads \(main and 1 worker\)/);
    expect(md).toMatch(/Thread 2 \(worker\)/);
    expect(md).toMatch(/\| workerSpin · /);
  });

  it('fails with a usage line and exit code 2 without a command', () => {
    let code = 0;
    try {
      execFileSync(process.execPath, ['scripts/bench-profile.mjs'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      code = (e as { status: number }).status;
    }
    expect(code).toBe(2);
  });
});
