/**
 * Fault injection for the test/faults suite (never set in normal use): with
 * `SKILLRET_FAULT_AT=<point>` the process kills itself with SIGKILL (as `kill -9` would) the first
 * time it reaches that point; with `SKILLRET_FAULT_AT=<point>:error` it throws an I/O error (EIO)
 * there instead; with `<point>:<CODE>` (ENOSPC, EACCES, EROFS, ENOTDIR, EDQUOT) it throws that
 * filesystem error every time it gets there (a full disk, a read-only mount…); with
 * `<point>:sigterm` / `<point>:sigint` it sends itself that signal (as a user's Ctrl-C or a job
 * scheduler would) and goes on until the signal is handled. Points: loading, indexing, encoding,
 * searching, reranking, writing, swapping, and cache-write (every write into a cache root:
 * cache/write-failures.ts).
 * Deterministic, so the suite needs no timing.
 */
export type FaultPoint = 'loading' | 'indexing' | 'encoding' | 'searching' | 'reranking' | 'writing' | 'swapping' | 'cache-write';

const FS_CODES = new Set(['ENOSPC', 'EACCES', 'EROFS', 'ENOTDIR', 'EDQUOT']);

export function faultPoint(point: FaultPoint): void {
  const at = process.env.SKILLRET_FAULT_AT;
  if (at === undefined || at === '') return;
  if (at === point) process.kill(process.pid, 'SIGKILL');
  if (at === `${point}:sigterm`) process.kill(process.pid, 'SIGTERM');
  if (at === `${point}:sigint`) process.kill(process.pid, 'SIGINT');
  if (at === `${point}:error`) throw Object.assign(new Error(`injected fault at ${point}`), { code: 'EIO', syscall: 'write' });
  const code = at.startsWith(`${point}:`) ? at.slice(point.length + 1) : '';
  if (FS_CODES.has(code)) throw Object.assign(new Error(`${code}: injected fault at ${point}`), { code, syscall: 'write' });
}
