/**
 * The run writers and caches of src/formats against plain definitions:
 *
 * - `SpelledRun` (spelled-run.ts: a memo per query of the ranking in trec_eval order, via
 *   `trecOrder`'s already-sorted shortcut, and each score's `String(score)`) = sorting a copy by
 *   score descending, then doc id descending by UTF-8 bytes (`Buffer.compare`), and `String()`; the
 *   same object on every later call; an empty ranking for a query the run lacks.
 * - `formatOfficialResult` (official-json.ts, written by hand: no object per query, ids that look
 *   like integers kept in trec_eval order, a doc id twice in one ranking written once) = JSON.stringify
 *   (2-space indent) of the objects, keys kept in insertion order; `readOfficialJson` of that text =
 *   JSON.parse's objects (Object.entries order) as a Run.
 * - `formatTrecRun` / `formatTrecQrels` then `readTrecRun` / `readTrecQrels` = the run in trec_eval
 *   order (queries in the given order, then by UTF-8 bytes) and the qrels sorted by UTF-8 bytes, with
 *   doc-id counts 2^k ± 2 (k = 4..13: the interner's and QueryRows' capacities, read back).
 * - `encodeCompactRun` / `decodeCompactRun` (compact-run.ts) = the run over the query list (a query
 *   without hits: empty), in memory and through JSON, with corpus sizes 2^k ± 2 (k = 4..14) and
 *   hits at both ends of the corpus; a hit number that is not a document (the corpus size, -1, 1.5,
 *   null, a string such as "length") is refused.
 * The only capacities here are those of the readers (crossed above); the memo and the writers' maps
 * have none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import type { Qrels, Run, ScoredDoc } from '../src/core/types.js';
import { decodeCompactRun, encodeCompactRun } from '../src/formats/compact-run.js';
import { formatOfficialResult, OFFICIAL_METRICS, readOfficialJson } from '../src/formats/official-json.js';
import { SpelledRun } from '../src/formats/spelled-run.js';
import { formatTrecQrels, readTrecQrels } from '../src/formats/trec-qrels.js';
import { formatTrecRun, readTrecRun } from '../src/formats/trec-run.js';
import { roundHalfEven } from '../src/util/python-round.js';
import { around, makeId, outcome, prng } from './helpers/plain-trec.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-writers-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function file(content: string): string {
  const p = join(dir, `f${fileNo++}`);
  writeFileSync(p, content);
  return p;
}

/** trec_eval order, plainly: score descending, then doc id descending by its UTF-8 bytes. */
function plainTrecOrder(docs: readonly ScoredDoc[]): ScoredDoc[] {
  return [...docs].sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : Buffer.compare(Buffer.from(b.docId), Buffer.from(a.docId))));
}

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Valid Unicode (a lone surrogate made U+FFFD, as any UTF-8 file holds it). */
const unicode = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

/** Ids: integer-like, needing JSON escapes, astral vs U+E000..U+FFFF (UTF-16 order differs), '__proto__'. */
const ID_POOL = ['7', '10', '2', '0', 's-1', 'a"q', 'b\\s', 'uni-é漢😀', '\uffff', '\ue000x', '😀', 'ctl\u0001', 'line\nbreak', '\u2028', '__proto__', 'x'.repeat(40), ''];
const idArb = fc.oneof(fc.constantFrom(...ID_POOL), fc.string({ unit: 'binary', maxLength: 6 }).map(unicode));
/** Scores with ties, signed zeros, float32 values, extremes; `inf`: also non-finite ones. */
const scoreArb = (inf: boolean) =>
  fc.oneof(
    fc.constantFrom(0, -0, 1, 2, 0.5, 1e-7, 2.5e21, 5e-324, Number.MAX_VALUE, -1, ...(inf ? [Infinity, -Infinity] : [])),
    fc.double({ noNaN: true, noDefaultInfinity: !inf }),
    fc.float({ noNaN: true, noDefaultInfinity: true }),
  );
const rankingArb = (inf: boolean) => fc.array(fc.record({ docId: idArb, score: scoreArb(inf) }), { maxLength: 40 });
/** A run whose rankings are sometimes already in trec_eval order (`trecOrder`'s shortcut) or reversed. */
const runArb = (inf: boolean) =>
  fc
    .array(fc.tuple(idArb, rankingArb(inf), fc.constantFrom('as is', 'sorted', 'reversed')), { maxLength: 12 })
    .map((qs) => new Map(qs.map(([q, docs, how]) => [q, how === 'as is' ? docs : how === 'sorted' ? plainTrecOrder(docs) : plainTrecOrder(docs).reverse()])) as Run);

describe('SpelledRun = sort a copy in trec_eval order, String() each score', () => {
  test.prop([runArb(true), fc.array(idArb, { maxLength: 30 })], { numRuns: 500 })('every query, asked any number of times, in any order', (run, asked) => {
    const before = [...run].map(([q, docs]) => [q, [...docs]]);
    const spelled = new SpelledRun(run);
    const first = new Map<string, unknown>();
    for (const q of [...asked, ...run.keys(), ...asked]) {
      const got = spelled.get(q);
      const docs = plainTrecOrder(run.get(q) ?? []);
      expect(got.docs).toEqual(docs);
      expect(got.scores).toEqual(docs.map((d) => String(d.score)));
      if (run.has(q)) {
        if (!first.has(q)) first.set(q, got);
        expect(got).toBe(first.get(q)); // the memo: spelled once
      }
    }
    expect([...run].map(([q, docs]) => [q, [...docs]])).toEqual(before); // the run is not reordered
  });
});

/**
 * formatOfficialResult's definition: JSON.stringify (2-space indent) of the objects. Every key is
 * prefixed with U+0000 while stringifying, so that no key looks like an integer and insertion order
 * is kept, then the prefix is taken off each key (a key starts its line: `^ *"\u0000`).
 */
function plainOfficial(split: string, aggregate: Record<string, number>, ks: readonly number[], run: Run, order: readonly string[]): string {
  const K = (k: string) => `\u0000${k}`;
  const metrics: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const m of OFFICIAL_METRICS) for (const k of ks) if (aggregate[`${m}@${k}`] !== undefined) metrics[K(`${m}@${k}`)] = roundHalfEven(aggregate[`${m}@${k}`]!, 5);
  const retrieval: Record<string, Record<string, number>> = Object.create(null) as Record<string, Record<string, number>>;
  for (const q of order) {
    const docs: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const d of plainTrecOrder(run.get(q) ?? [])) docs[K(d.docId)] = d.score; // a repeated key: first place, last value
    retrieval[K(q)] = docs;
  }
  const text = JSON.stringify({ metrics: { [K(split)]: metrics }, retrieval: { [K(split)]: retrieval } }, null, 2);
  return text.replace(/^( *)"\\u0000/gm, '$1"') + '\n';
}

/** What JSON.parse makes of the written retrieval: objects (integer-like keys first), as a Run. */
function plainParsedRun(run: Run, order: readonly string[]): Run {
  const retrieval: Record<string, Record<string, number>> = Object.create(null) as Record<string, Record<string, number>>;
  for (const q of order) {
    const docs: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const d of plainTrecOrder(run.get(q) ?? [])) docs[d.docId] = d.score === 0 ? 0 : d.score; // JSON writes -0 as 0
    retrieval[q] = docs;
  }
  return new Map(Object.entries(retrieval).map(([q, docs]) => [q, Object.entries(docs).map(([docId, score]) => ({ docId, score }))]));
}

const AGG_KEYS = OFFICIAL_METRICS.flatMap((m) => [1, 5, 10].map((k) => `${m}@${k}`));

describe('formatOfficialResult = JSON.stringify of the objects (insertion order); readOfficialJson reads it back', () => {
  test.prop(
    [
      runArb(true),
      fc.array(idArb, { maxLength: 8 }),
      fc.constantFrom('test', 'dev', 'te"st', '0'),
      fc.dictionary(fc.constantFrom(...AGG_KEYS), fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(Number.NaN, 0.123455, 0.000005))),
      fc.array(fc.constantFrom(1, 5, 10), { maxLength: 4 }),
      fc.boolean(),
    ],
    { numRuns: 400 },
  )('any ids (integer-like, escapes, repeated in a ranking), scores (non-finite: null), query orders', async (run, extra, split, aggregate, ks, shared) => {
    // the run's queries (some listed twice) and some it lacks, in a drawn order
    const order = [...extra, ...run.keys(), ...[...run.keys()].slice(0, 2), ...extra.slice(0, 1)];
    const spelled = new SpelledRun(run);
    if (shared) for (const q of order.slice(0, 3)) spelled.get(q); // a spelling used before by another writer
    const text = formatOfficialResult(split, aggregate, ks, run, order, spelled);
    expect(text).toBe(plainOfficial(split, aggregate, ks, run, order));
    // read back: the objects JSON.parse makes, unless a score that stays in them is not finite (null)
    const want = plainParsedRun(run, order);
    const back = await outcome(() => readOfficialJson(file(text), { split }));
    if ([...want.values()].every((docs) => docs.every((d) => Number.isFinite(d.score)))) {
      expect(back).toEqual({ ok: want });
      if ('ok' in back) expect([...back.ok.keys()]).toEqual([...want.keys()]); // toEqual ignores a Map's order
    } else {
      expect(back).toMatchObject({ error: expect.stringMatching(/score must be a finite number, got null$/) });
    }
  });
});

/** Doc-id counts at every size where the readers' arrays grow (see formats-readers.property.test.ts). */
const DOC_COUNTS = Array.from({ length: 10 }, (_, k) => 2 ** (k + 4)).flatMap((p) => around(p));

/**
 * A run over `nDocs` distinct TREC-safe ids (no whitespace, not empty, not starting with U+FEFF:
 * a reader takes that at the start of a file for a BOM) in `nQueries` queries, docs repeated across
 * queries, scores with ties, and tied ids whose UTF-16 order is not their UTF-8 byte order.
 */
function bigRun(seed: number, nDocs: number, nQueries: number, shape: number): Run {
  const r = prng(seed);
  const ids = Array.from({ length: nDocs }, (_, i) => makeId(seed, i, shape));
  const run: Run = new Map();
  let next = 0;
  for (let q = 0; q < nQueries; q++) {
    const n = q === 0 ? nDocs : Math.floor(r() * Math.min(nDocs, 300));
    const docs: ScoredDoc[] = [];
    for (let k = 0; k < n; k++) {
      const score = r() < 0.3 ? Math.floor(r() * 3) : r() < 0.5 ? Math.fround(r() * 30) : (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
      docs.push({ docId: ids[(next + k) % nDocs]!, score: r() < 0.05 ? -0 : score });
    }
    next += n;
    // ids whose UTF-16 order is not their byte order (astral vs U+E000..U+FFFF), tied
    if (q % 2 === 1) for (const id of ['a\u{1f600}', 'a\uffff', 'a\ue000', 'a', 'a\u{10000}b']) docs.push({ docId: id, score: 1 });
    run.set([`q${q}`, `${q}`, `é${q}`][q % 3]!, docs);
  }
  return run;
}

describe('TREC writers then readers = the run in trec_eval order, the qrels sorted', () => {
  test.prop([fc.integer(), fc.constantFrom(...DOC_COUNTS), fc.integer({ min: 1, max: 6 }), fc.nat(3), fc.boolean()], { numRuns: 30 })(
    'doc ids 2^k ± 2 (k = 4..13) written and read back',
    async (seed, nDocs, nQueries, shape, ordered) => {
      const run = bigRun(seed, nDocs, nQueries, shape);
      run.set('empty', []); // writes no line
      const queryOrder = ordered ? [...run.keys()].reverse().slice(0, 2) : undefined;
      const back = await readTrecRun(file(formatTrecRun(run, 'tag', queryOrder)));
      const rest = [...run.keys()].filter((q) => !(queryOrder ?? []).includes(q)).sort(byBytes);
      const want = [...(queryOrder ?? []), ...rest]
        .filter((q) => run.get(q)!.length > 0)
        .map((q) => [q, plainTrecOrder(run.get(q)!).map((d) => ({ docId: d.docId, score: d.score === 0 ? 0 : d.score }))]); // String(-0) is "0"
      expect([...back]).toEqual(want);

      const qrels: Qrels = new Map([...run].map(([q, docs], i) => [q, new Map(docs.map((d, k) => [d.docId, ((k * 7 + i) % 5) - 1]))]));
      const qback = await readTrecQrels(file(formatTrecQrels(qrels)));
      const qwant = [...qrels.keys()].sort(byBytes).filter((q) => qrels.get(q)!.size > 0).map((q) => [q, [...qrels.get(q)!].sort(([a], [b]) => byBytes(a, b))]);
      expect([...qback].map(([q, m]) => [q, [...m]])).toEqual(qwant);
    },
  );
});

/** Corpus sizes around 2^k ± 2, k = 4..14. */
const CORPUS_SIZES = Array.from({ length: 11 }, (_, k) => 2 ** (k + 4)).flatMap((p) => around(p));

describe('compact run: decode(encode(run)) = the run over the query list', () => {
  test.prop([fc.integer(), fc.constantFrom(...CORPUS_SIZES), fc.integer({ min: 0, max: 8 }), fc.boolean()], { numRuns: 60 })(
    'corpus sizes 2^k ± 2 (k = 4..14), hits at both ends of the corpus, through JSON or not',
    (seed, nDocs, nQueries, viaJson) => {
      const r = prng(seed);
      const docIds = Array.from({ length: nDocs }, (_, i) => makeId(seed, i, i % 4));
      const queries = Array.from({ length: nQueries }, (_, i) => ({ id: `q${i}` }));
      const run: Run = new Map();
      for (const q of queries) {
        if (r() < 0.2) continue; // no hits: decoded as []
        const n = Math.floor(r() * 50);
        const hits = Array.from({ length: n }, (_, k) => {
          const at = k === 0 ? 0 : k === 1 ? nDocs - 1 : Math.floor(r() * nDocs);
          return { docId: docIds[at]!, score: r() < 0.1 ? -0 : Math.fround((r() - 0.3) * 40) };
        });
        run.set(q.id, hits);
      }
      const rows = encodeCompactRun(run, docIds, queries);
      const back = decodeCompactRun(viaJson ? JSON.parse(JSON.stringify(rows)) : rows, docIds, queries);
      const want = queries.map((q) => [q.id, (run.get(q.id) ?? []).map((h) => ({ docId: h.docId, score: viaJson && h.score === 0 ? 0 : h.score }))]);
      expect([...back]).toEqual(want);

      // a hit number that is no document is refused
      const at = rows.findIndex((row) => row[1].length > 0);
      if (at === -1) return;
      for (const bad of [nDocs, -1, 1.5, null, 'length', 'constructor', '0', Number.NaN]) {
        const broken = JSON.parse(JSON.stringify(rows)) as unknown[][];
        (broken[at]![1] as unknown[])[Math.floor(r() * (broken[at]![1] as unknown[]).length)] = bad;
        expect(() => decodeCompactRun(broken, docIds, queries), String(bad)).toThrow(/out of range/);
      }
    },
  );
});
