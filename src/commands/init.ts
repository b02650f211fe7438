/**
 * `skillret-eval init [dir]`: writes the starter config (src/api/init.ts) and says what it wrote and
 * what to run next.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { initProject, type InitOptions } from '../api/init.js';

/** The CLI's text for stdout. */
export function initCommand(o: InitOptions = {}): string {
  const res = initProject(o);
  const cwd = resolve(o.cwd ?? process.cwd());
  const show = (p: string) => {
    const r = relative(cwd, p);
    return r === '' || r.startsWith('..') || isAbsolute(r) ? p : r;
  };
  const lines = [`Wrote ${show(res.config)}`];
  if (res.fixture !== undefined) {
    const count = (role: string) => readFileSync(join(res.fixture!, role, 'test.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
    const what = `the bundled fixture (${count('skills')} skills, ${count('queries')} queries; not SkillRet data)`;
    lines.push(res.copied.length > 0 ? `Copied ${what} to ${show(res.fixture)}` : `Using ${what} already at ${show(res.fixture)}`);
  }
  lines.push(`Next: npx skillret-eval run ${show(res.config)}`);
  return lines.join('\n') + '\n';
}
