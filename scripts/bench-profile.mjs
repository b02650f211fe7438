/**
 * The profile `npm run bench` shows under a target it misses: runs one whole Node process again
 * under V8's sampling profiler (`--cpu-prof`, which also profiles worker threads, one file each)
 * and folds the samples into where the time went: per thread, the self time of each module
 * (our sources named by their src/ path, a dependency by its package, Node's own code as
 * `node:internal`), the top functions, and V8's own buckets (garbage collection, `(program)`:
 * compiling and the runtime, `(idle)`: waiting). Also runs as a script:
 *
 *   node scripts/bench-profile.mjs [--top 10] -- <node args…>     # prints the Markdown
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { root } from './bench-lib.mjs';

const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/** Where a profile node's code lives: src/… for ours, the package for a dependency. */
export function moduleOf(url, functionName) {
  if (!url) return SPECIAL.has(functionName) ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node:internal';
  let path = url;
  try {
    path = url.startsWith('file:') ? fileURLToPath(url) : url;
  } catch {
    /* keep the url */
  }
  const nm = path.lastIndexOf(`node_modules${sep}`);
  if (nm >= 0) {
    const parts = path.slice(nm + 13).split(sep);
    return `npm:${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  const rel = relative(root, path);
  if (rel.startsWith('..')) return path;
  // Ours: dist/x/y.js is compiled from src/x/y.ts.
  return rel.startsWith(`dist${sep}`) ? `src/${rel.slice(5).replace(/\.js$/, '.ts')}`.split(sep).join('/') : rel.split(sep).join('/');
}

/** Self milliseconds by module and by function of one .cpuprofile. */
export function foldProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map(); // node id -> µs
  const { samples, timeDeltas } = profile;
  // timeDeltas[i] is the time before sample i; the time of a sample is the delta that follows it.
  for (let i = 0; i < samples.length; i++) {
    const dt = i + 1 < timeDeltas.length ? timeDeltas[i + 1] : 0;
    self.set(samples[i], (self.get(samples[i]) ?? 0) + Math.max(0, dt));
  }
  const modules = new Map();
  const functions = new Map();
  let total = 0;
  for (const [id, us] of self) {
    const n = byId.get(id);
    const cf = n.callFrame;
    const mod = moduleOf(cf.url, cf.functionName);
    const ms = us / 1000;
    total += ms;
    modules.set(mod, (modules.get(mod) ?? 0) + ms);
    if (!SPECIAL.has(cf.functionName)) {
      const key = `${cf.functionName || '(anonymous)'} · ${mod}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
      functions.set(key, (functions.get(key) ?? 0) + ms);
    }
  }
  const wall = (profile.endTime - profile.startTime) / 1000;
  return { wall, total, modules, functions };
}

const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/[\u0000-\u001f\u007f]/g, '');

/** Markdown for the profiles of one process (the main thread first, then each worker). */
export function renderProfiles(folded, { top = 10 } = {}) {
  const threads = [...folded].sort((a, b) => b.wall - a.wall);
  const busy = (t) => t.total - (t.modules.get('(idle)') ?? 0);
  const lines = [];
  const all = threads.reduce((s, t) => s + busy(t), 0);
  lines.push(
    `${threads.length} profiled thread${threads.length === 1 ? '' : 's'} (main${threads.length > 1 ? ` and ${threads.length - 1} worker${threads.length > 2 ? 's' : ''}` : ''}); busy (non-idle) CPU in all: ${(all / 1000).toFixed(2)} s.`,
  );
  threads.forEach((t, i) => {
    const gc = t.modules.get('(garbage collector)') ?? 0;
    const prog = t.modules.get('(program)') ?? 0;
    const idle = t.modules.get('(idle)') ?? 0;
    lines.push(
      '',
      `Thread ${i + 1} (${i === 0 ? 'longest, the main thread' : 'worker'}): ${(t.wall / 1000).toFixed(2)} s alive, busy ${(busy(t) / 1000).toFixed(2)} s; garbage collection ${(gc / 1000).toFixed(2)} s, (program) ${(prog / 1000).toFixed(2)} s, idle ${(idle / 1000).toFixed(2)} s.`,
      '',
      '| module (self time) | s | share of busy |',
      '|---|---|---|',
      ...sorted(t.modules)
        .filter(([m]) => m !== '(idle)')
        .slice(0, top)
        .map(([m, ms]) => `| ${esc(m)} | ${(ms / 1000).toFixed(2)} | ${((100 * ms) / Math.max(1, busy(t))).toFixed(0)}% |`),
      '',
      '| function (self time) | s |',
      '|---|---|',
      ...sorted(t.functions)
        .slice(0, top)
        .map(([f, ms]) => `| ${esc(f)} | ${(ms / 1000).toFixed(2)} |`),
    );
  });
  return lines.join('\n');
}

/**
 * Runs `node nodeArgs…` once under --cpu-prof (cwd: the repository, or `cwd`) and returns
 * { markdown, threads } with the folded profiles; the profile files are removed.
 */
export function profileProcess(node, nodeArgs, { top = 10, env = process.env, cwd = root } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'skillret-bench-prof-'));
  try {
    const r = spawnSync(node, ['--cpu-prof', '--cpu-prof-dir', dir, ...nodeArgs], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`profiled run failed (${r.status}): ${(r.stderr || '').slice(-500)}`);
    const threads = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort()
      .map((f) => foldProfile(JSON.parse(readFileSync(join(dir, f), 'utf8'))));
    return { threads, markdown: renderProfiles(threads, { top }) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf('--');
  const topAt = argv.indexOf('--top');
  const top = topAt >= 0 && topAt < dash ? Number(argv[topAt + 1]) : 10;
  if (dash < 0 || dash === argv.length - 1) {
    process.stderr.write('usage: node scripts/bench-profile.mjs [--top N] -- <node args…>\n');
    process.exit(2);
  }
  process.stdout.write(profileProcess(process.execPath, argv.slice(dash + 1), { top, cwd: process.cwd() }).markdown + '\n');
}
