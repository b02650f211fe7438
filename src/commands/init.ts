/**
 * `skillret-eval init [dir]`: writes the starter config (src/api/init.ts) and says what it wrote and
 * what to run next, as a command that runs from the folder it was printed in.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { initProject, type InitOptions } from '../api/init.js';
import { packageFile } from '../util/paths.js';

/** How this process was started and where: what `cliCommand` decides by. */
export interface Invocation {
  /** The script node was started with (process.argv[1]). */
  script: string | undefined;
  /** The working folder. */
  cwd: string;
  /** $PATH. */
  path: string | undefined;
}

function realpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** `dir` is a checkout of skillret-eval itself (npx runs a project's own bin without the registry). */
function isSkillretCheckout(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; bin?: unknown };
    return pkg.name === 'skillret-eval' && typeof pkg.bin === 'object' && pkg.bin !== null && 'skillret-eval' in pkg.bin;
  } catch {
    return false;
  }
}

/** A word for a POSIX shell (single-quoted when it holds anything but safe characters). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that starts this CLI from `cwd`, decided by how this process was started, so that the
 * printed command never goes to the npm registry (`npx skillret-eval` would, in a folder that does
 * not depend on the package: it is not published):
 *  - the project in `cwd` depends on it (`node_modules/.bin/skillret-eval`), or is a checkout of it:
 *    `npx --no-install skillret-eval` (never the registry);
 *  - started as the `skillret-eval` command of a folder on $PATH (a global install, npm link; not a
 *    folder npx added for the one command): `skillret-eval`;
 *  - started through another path to this package's bin (a checkout's `bin/skillret-eval.js`, a
 *    project's `.bin` from another folder): that path (`node <path>` for the .js file), relative to
 *    `cwd` when under it;
 *  - started otherwise (in-process, from a program of one's own): `node <this package's bin>`.
 */
export function cliCommand(o: Invocation): string {
  if (existsSync(join(o.cwd, 'node_modules', '.bin', 'skillret-eval')) || isSkillretCheckout(o.cwd)) return 'npx --no-install skillret-eval';
  const bin = packageFile('bin', 'skillret-eval.js');
  const script = o.script !== undefined ? resolve(o.cwd, o.script) : undefined;
  const ours = script !== undefined && realpath(script) !== undefined && realpath(script) === realpath(bin);
  if (ours && basename(script) === 'skillret-eval') {
    // Folders npx puts on PATH for one command (its cache, a project's node_modules/.bin) are not there afterwards.
    const onPath = (o.path ?? '').split(delimiter).filter((d) => d !== '' && !/[\\/]_npx[\\/]/.test(d) && !/node_modules[\\/]\.bin[\\/]?$/.test(d));
    // The first `skillret-eval` on PATH must be this one: that is what the bare name will run.
    const first = onPath.map((d) => join(resolve(o.cwd, d), 'skillret-eval')).find((f) => existsSync(f));
    if (first !== undefined && realpath(first) === realpath(bin)) return 'skillret-eval';
  }
  const target = ours ? script : bin;
  const rel = relative(o.cwd, target);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? `./${rel}` : target;
  return target.endsWith('.js') ? `node ${shellWord(shown)}` : shellWord(shown);
}

/** The CLI's text for stdout. */
export function initCommand(o: InitOptions = {}, invocation?: Invocation): string {
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
  const cli = cliCommand(invocation ?? { script: process.argv[1], cwd, path: process.env.PATH });
  lines.push(`Next: ${cli} run ${shellWord(show(res.config))}`);
  return lines.join('\n') + '\n';
}
