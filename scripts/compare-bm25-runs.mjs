/**
 * Compares a TREC run of ours with a bm25s reference output ({qid: [[doc, score], ...]}, written
 * by scripts/bm25s-reference.py, or the same shape from scripts/bench-bm25.mjs --write-run): per
 * query, the same float32 score sequence, and the same documents except for the order among
 * exactly equal scores and, at the last place, which of the documents tied there got in (numpy's
 * tie order is unspecified). A query of ours that the reference does not have counts as different
 * too. Prints JSON: {queries, identical, tieOrderOnly, different, extra, firstDifferent, details}
 * (details: the first differing rank of each of the first differing queries); exits 1 when any
 * query differs.
 *
 *   node scripts/compare-bm25-runs.mjs RUN.trec BM25S.json
 */
import { readFileSync } from 'node:fs';
import { Check } from './bench-checks.mjs';

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
  const details = [];
  const hit = (h) => (h ? `${h[0]} ${h[1]}` : '(none)');
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
    else {
      different.push(q);
      if (details.length < 10) {
        let i = 0;
        while (i < Math.max(mine.length, hits.length) && mine[i]?.[0] === hits[i]?.[0] && mine[i]?.[1] === hits[i]?.[1]) i++;
        details.push({ query: q, rank: i + 1, ours: hit(mine[i]), reference: hit(hits[i]) });
      }
    }
  }
  const extra = [...ours.keys()].filter((q) => !Object.hasOwn(ref, q));
  for (const q of extra.slice(0, Math.max(0, 10 - details.length))) details.push({ query: q, rank: 1, ours: hit(ours.get(q)[0]), reference: '(query absent)' });
  return { queries: Object.keys(ref).length, identical, tieOrderOnly, different: different.length, extra: extra.length, firstDifferent: different.slice(0, 5), details };
}

/**
 * The comparison as a bench check (scripts/bench-checks.mjs): one value per query of the reference
 * (and per extra query of ours); a query whose documents or scores differ beyond the order of
 * exactly tied scores is a difference.
 */
export function bm25RankingsCheck(trecText, ref, name, reference) {
  const c = compareBm25Runs(trecText, ref);
  const check = new Check(name, reference);
  check.compared = c.identical + c.tieOrderOnly;
  for (const d of c.details) check.differences.push({ where: `query ${d.query} rank ${d.rank}`, ours: d.ours, reference: d.reference });
  check.compared += c.different + c.extra;
  check.differing = c.different + c.extra;
  check.note(`${c.identical} of ${c.queries} top lists identical, ${c.tieOrderOnly} differ only in the order of exactly tied scores (or which tied document takes the last place)`);
  return { check, counts: c };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [run, ref] = process.argv.slice(2);
  const c = compareBm25Runs(readFileSync(run, 'utf8'), JSON.parse(readFileSync(ref, 'utf8')));
  console.log(JSON.stringify(c));
  process.exitCode = c.different + c.extra > 0 ? 1 : 0;
}
