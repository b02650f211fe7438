/** The results files of a results folder whose names are in `names` (relative path → content), for byte-for-byte comparisons. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function resultsFiles(dir: string, names: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p, `${rel}${e}/`);
      else if (names.has(e)) out.set(`${rel}${e}`, readFileSync(p, 'utf8'));
    }
  };
  walk(dir, '');
  return out;
}
