/**
 * Brings a hub model's sentence-transformers files (st-config.ts) into its cache folder, next to the
 * files transformers.js downloads, so the model's own pooling, normalisation and prompts can be read.
 * Online only; a file the repository does not have (404) is simply absent. Written atomically.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../core/errors.js';
import { writeFileAtomic } from '../util/atomic.js';
import { hubEndpoint, isOffline, type ModelLocationOptions, type ResolvedModel } from './resolve.js';
import { ST_FILES } from './st-config.js';
import { makeDirs } from '../util/dirs.js';

async function fetchOne(m: ResolvedModel, file: string, o: ModelLocationOptions): Promise<void> {
  const target = join(m.folder, file);
  if (existsSync(target)) return;
  const rev = encodeURIComponent(m.revision ?? 'main');
  const url = `${hubEndpoint(o.endpoint)}${m.location}/resolve/${rev}/${file}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: process.env.HF_TOKEN ? { authorization: `Bearer ${process.env.HF_TOKEN}` } : {} });
  } catch (e) {
    throw new UserError(`model "${m.location}": cannot fetch ${file} (${e instanceof Error ? e.message : String(e)})`);
  }
  if (res.status === 404) return;
  if (!res.ok) throw new UserError(`model "${m.location}": fetching ${file} answered HTTP ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  makeDirs(dirname(target));
  writeFileAtomic(target, body);
}

/** Fetches modules.json, the prompts and max-length files and the Pooling module's config of a hub model. */
export async function fetchStFiles(m: ResolvedModel, o: ModelLocationOptions): Promise<void> {
  if (m.source !== 'hub' || isOffline(o)) return;
  for (const f of ST_FILES) await fetchOne(m, f, o);
  const modulesFile = join(m.folder, 'modules.json');
  if (!existsSync(modulesFile)) return;
  const { readFileSync } = await import('node:fs');
  let mods: unknown;
  try {
    mods = JSON.parse(readFileSync(modulesFile, 'utf8'));
  } catch {
    return; // st-config.ts reports the malformed file
  }
  if (!Array.isArray(mods)) return;
  for (const mod of mods as { type?: unknown; path?: unknown }[]) {
    if (typeof mod?.type === 'string' && mod.type.endsWith('.Pooling') && typeof mod.path === 'string' && !mod.path.includes('..')) {
      await fetchOne(m, `${mod.path}/config.json`, o);
    }
  }
}
