/**
 * Compares a TREC run of ours with a bm25s reference output ({qid: [[doc, score], ...]}, written
 * by scripts/bm25s-reference.py): per query, the same float32 score sequence, and the same
 * documents except for the order among exactly equal scores and, at the last place, which of the
 * documents tied there got in (numpy's tie order is unspecified). Prints JSON:
 * {queries, identical, tieOrderOnly, different, firstDifferent}.
 *
 *   node scripts/compare-bm25-runs.mjs RUN.trec BM25S.json
 */
import { readFileSync } from 'node:fs';

export function compareBm25Runs(trecText, ref) {
  const ours = new Map();
  for (const line of trecText.split('\n')) {
    if (!line.trim()) continue;
    const [q, , d, , s] = line.split(/\s+/);
    if (!ours.has(q)) ours.set(q, []);
    ours.get(q).push([d, Number(s)]);
  }
  let identical = 0;
  let tieOrderOnly = 0;
  const different = [];
  for (const [q, hits] of Object.entries(ref)) {
    const mine = ours.get(q) ?? [];
    const sameScores = mine.length === hits.length && mine.every((h, i) => h[1] === hits[i][1]);
    if (sameScores && mine.every((h, i) => h[0] === hits[i][0])) {
      identical++;
      continue;
    }
    const last = hits.length ? hits[hits.length - 1][1] : 0;
    const above = (l) => l.filter((h) => h[1] !== last).map((h) => `${h[0]} ${h[1]}`).sort().join();
    if (sameScores && above(mine) === above(hits)) tieOrderOnly++;
    else different.push(q);
  }
  return { queries: Object.keys(ref).length, identical, tieOrderOnly, different: different.length, firstDifferent: different.slice(0, 5) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [run, ref] = process.argv.slice(2);
  console.log(JSON.stringify(compareBm25Runs(readFileSync(run, 'utf8'), JSON.parse(readFileSync(ref, 'utf8')))));
}
