/**
 * The file a command writes with `--out`, checked before any work: its folder exists, it is not a
 * folder, a device, a FIFO or under /proc, /sys or /dev, and it does not overwrite what a command
 * reads: a file inside one of the input folders (a results folder's manifest.json or a run's
 * per-query.jsonl would be ruined), or an input file itself. A new file beside the inputs, and the
 * names in `allowed` (report.html of a results folder, which `report` rewrites), are fine.
 */
import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UserError } from '../core/errors.js';

const SYSTEM = ['/proc', '/sys', '/dev'];

const inside = (child: string, parent: string) => {
  const r = relative(parent, child);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r);
};

export function checkOutFile(out: string, o: { flag?: string; inputs?: readonly string[]; allowed?: readonly string[] } = {}): void {
  const flag = o.flag ?? '--out';
  if (out.trim() === '') throw new UserError(`${flag}: empty path`);
  const abs = resolve(out);
  const rel = relative('.', abs);
  const shown = rel === '' || rel.startsWith('..') ? abs : rel;
  if (SYSTEM.some((d) => abs === d || abs.startsWith(d + sep))) throw new UserError(`${flag}: ${shown} is a system path, not a file to write`);
  const dir = dirname(abs);
  const ds = statSync(dir, { throwIfNoEntry: false });
  if (!ds?.isDirectory()) throw new UserError(`${flag}: ${relative('.', dir) || dir}: no such folder`);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (st?.isDirectory()) throw new UserError(`${flag}: ${shown} is a folder; name a file in it`);
  if (st && !st.isFile()) throw new UserError(`${flag}: ${shown} is not a regular file (a device, FIFO or socket)`);
  for (const input of o.inputs ?? []) {
    const inAbs = resolve(input);
    const is = statSync(inAbs, { throwIfNoEntry: false });
    if (abs === inAbs) throw new UserError(`${flag}: ${shown} is one of the inputs; writing it would destroy what is read`);
    if (is?.isDirectory() && inside(abs, inAbs) && st !== undefined && !(o.allowed ?? []).includes(relative(inAbs, abs).split(sep).join('/'))) {
      throw new UserError(`${flag}: ${shown} is a file of the input folder ${relative('.', inAbs) || inAbs} (${basename(abs)} would be overwritten); write somewhere else`);
    }
  }
}
