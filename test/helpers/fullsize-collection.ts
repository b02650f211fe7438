/**
 * A seeded collection at the size of the SkillRet v1.1 test split, for the full-size differential
 * tests: 6,006 skills with UUID-shaped ids, 4,392 queries with 1–3 gold each (a few graded 2 and a
 * few judged 0, so every gain path runs), and runs of depth 20 whose scores come from a handful of
 * values, so exact ties are everywhere (also across a gold and a non-gold document, and across the
 * cut at 5, 10 and 15). Written in the official layout (skills/, queries/, qrels/ JSONL) plus the
 * qrels as a TREC file and each run as a TREC file and as official JSON. Nothing here is real
 * relevance data.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from './mulberry32.js';

export const FULL_SKILLS = 6006;
export const FULL_QUERIES = 4392;
export const FULL_DEPTH = 20;


function uuid(rnd: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
}

export interface FullCollection {
  dir: string;
  skillIds: string[];
  queryIds: string[];
  /** TREC qrels file. */
  qrelsTrec: string;
  /** Per run name: its TREC file and official JSON file. */
  runs: Record<string, { trec: string; json: string }>;
}

/** Writes the collection under `dir` with runs named `names` (each drawn with its own seed). */
export function writeFullCollection(dir: string, seed: number, names: readonly string[] = ['a', 'b']): FullCollection {
  const rnd = mulberry32(seed);
  const skillIds = Array.from({ length: FULL_SKILLS }, () => uuid(rnd));
  const queryIds = Array.from({ length: FULL_QUERIES }, (_, i) => `q-${String(i + 1).padStart(5, '0')}`);
  for (const sub of ['skills', 'queries', 'qrels']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(
    join(dir, 'skills', 'test.jsonl'),
    skillIds.map((id, i) => JSON.stringify({ id, name: `skill-${i}`, description: `Skill number ${i} for task ${i % 97}.`, skill_md: `# Skill ${i}\n\nDoes task ${i % 97}.` }) + '\n').join(''),
  );
  writeFileSync(join(dir, 'queries', 'test.jsonl'), queryIds.map((id, i) => JSON.stringify({ id, query: `request ${i} about task ${i % 97}` }) + '\n').join(''));

  const gold = new Map<string, Map<string, number>>();
  const qrelsJsonl: string[] = [];
  const qrelsTrec: string[] = [];
  for (const q of queryIds) {
    const g = new Map<string, number>();
    const n = 1 + Math.floor(rnd() * 3);
    while (g.size < n) g.set(skillIds[Math.floor(rnd() * FULL_SKILLS)]!, rnd() < 0.05 ? 2 : 1);
    if (rnd() < 0.03) g.set(skillIds[Math.floor(rnd() * FULL_SKILLS)]!, 0); // judged, not relevant
    gold.set(q, g);
    for (const [d, r] of g) {
      qrelsJsonl.push(JSON.stringify({ query_id: q, skill_id: d, relevance: r }) + '\n');
      qrelsTrec.push(`${q} 0 ${d} ${r}\n`);
    }
  }
  writeFileSync(join(dir, 'qrels', 'test.jsonl'), qrelsJsonl.join(''));
  const qrelsFile = join(dir, 'qrels.trec');
  writeFileSync(qrelsFile, qrelsTrec.join(''));

  const runs: FullCollection['runs'] = {};
  const SCORES = [0.5, 0.25, 0.125, 1, 2, 3.75, 10, 0.1];
  for (const name of names) {
    const trec: string[] = [];
    const json: Record<string, Record<string, number>> = {};
    for (const q of queryIds) {
      const docs = new Map<string, number>();
      for (const [d, r] of gold.get(q)!) if (r > 0 && rnd() < 0.75) docs.set(d, SCORES[Math.floor(rnd() * 4)]!);
      while (docs.size < FULL_DEPTH) docs.set(skillIds[Math.floor(rnd() * FULL_SKILLS)]!, SCORES[Math.floor(rnd() * SCORES.length)]!);
      json[q] = Object.fromEntries(docs);
      let rank = 1;
      for (const [d, s] of docs) trec.push(`${q} Q0 ${d} ${rank++} ${s} ${name}\n`); // file order is not trec order
    }
    const trecFile = join(dir, `run-${name}.trec`);
    const jsonFile = join(dir, `run-${name}.json`);
    writeFileSync(trecFile, trec.join(''));
    writeFileSync(jsonFile, JSON.stringify(json));
    runs[name] = { trec: trecFile, json: jsonFile };
  }
  return { dir, skillIds, queryIds, qrelsTrec: qrelsFile, runs };
}
