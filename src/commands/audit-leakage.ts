/**
 * `skillret-eval audit-leakage`: the leakage audit between a training split and a test split, as a
 * table (and the JSON file of `--out`); `--check` exits 1 when a test query is an exact or near
 * duplicate of a training query.
 */
import { relative } from 'node:path';
import { CheckFailure } from '../core/errors.js';
import { auditLeakage, type AuditLeakageOptions } from '../api/audit-leakage.js';
import { plural } from '../util/plural.js';

export type AuditLeakageCommandOptions = AuditLeakageOptions & { check?: boolean };

export async function auditLeakageCommand(o: AuditLeakageCommandOptions, write: (s: string) => void): Promise<void> {
  const r = await auditLeakage(o);
  write(r.text + (r.out !== undefined ? `written: ${relative(process.cwd(), r.out) || r.out}\n` : ''));
  const c = r.audit.counts;
  if (o.check && c.exactDuplicates + c.nearDuplicates > 0) {
    throw new CheckFailure(`--check: ${plural(c.exactDuplicates, 'test query', 'test queries')} exactly and ${c.nearDuplicates} nearly duplicate a ${r.train.split} query`);
  }
}
