/**
 * The leakage audit between two splits (src/training/{shingles,minhash,leakage}.ts,
 * src/api/audit-leakage.ts, `skillret-eval audit-leakage`):
 * - normalisation and shingles as documented; exact Jaccard equal to the plain set definition;
 * - MinHash against the plain definition (fast-check, differential): every reported pair carries the
 *   plain definition's Jaccard exactly and is at the threshold or above, and every pair at the
 *   threshold + 0.2 or above is found (the bands make a miss there less likely than 1e-7 per pair);
 *   on a fixed seed, the signature agreement estimates Jaccard (mean error below 0.05);
 * - on a test-made pair of splits: planted exact duplicates (case, punctuation and spacing changed)
 *   and paraphrases (an adjacent word swap and a word replaced) are found, nothing else; a clean
 *   pair reports none; the JSON file is written atomically and is the same on a rerun;
 * - bad input: one line, exit 2; --check exits 1 on leakage.
 */
import { fc, test } from '@fast-check/vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLeakage as auditSplits } from '../src/api/audit-leakage.js';
import { auditLeakage, type SplitQuery } from '../src/training/leakage.js';
import { candidateProbability, lshBands, MinHasher } from '../src/training/minhash.js';
import { jaccard, normalizeQuery, wordShingles } from '../src/training/shingles.js';
import { seededRng } from '../src/stats/rng.js';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { runCli } from './helpers/cli.js';

/** The plain definition: k-word windows of the whitespace-split normalised text, as a Set; |A∩B| / |A∪B|. */
function plainShingles(text: string, k: number): Set<string> {
  const words = normalizeQuery(text).split(' ').filter((w) => w !== '');
  if (words.length === 0) return new Set();
  if (words.length <= k) return new Set([words.join(' ')]);
  const out = new Set<string>();
  for (let i = 0; i + k <= words.length; i++) out.add(words.slice(i, i + k).join(' '));
  return out;
}
function plainJaccard(a: Set<string>, b: Set<string>): number {
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  const union = a.size + b.size - common;
  return union === 0 ? 0 : common / union;
}

describe('normalisation, shingles, exact Jaccard', () => {
  it('normalises case, Unicode forms, punctuation and spacing', () => {
    expect(normalizeQuery('  Hello,  WORLD!! ﬁle—name\tA1 ')).toBe('hello world file name a1');
    expect(normalizeQuery('...')).toBe('');
  });
  it('shingles: k-word windows, sorted, no repeats; a short text is one shingle', () => {
    expect(wordShingles('a b c a b c', 2)).toEqual(['a b', 'b c', 'c a']);
    expect(wordShingles('a b', 3)).toEqual(['a b']);
    expect(wordShingles('', 3)).toEqual([]);
  });
  test.prop([fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), fc.integer({ min: 1, max: 4 })])('jaccard equals the plain set definition exactly', (x, y, k) => {
    expect(jaccard(wordShingles(normalizeQuery(x), k), wordShingles(normalizeQuery(y), k))).toBe(plainJaccard(plainShingles(x, k), plainShingles(y, k)));
  });
});

describe('MinHash LSH', () => {
  it('bands: the most rows per band that still catch a pair at the threshold with probability ≥ 0.99', () => {
    const { bands, rows } = lshBands(128, 0.5);
    expect({ bands, rows }).toEqual({ bands: 42, rows: 3 });
    expect(candidateProbability(0.5, bands, rows)).toBeGreaterThanOrEqual(0.99);
    expect(candidateProbability(0.5, Math.floor(128 / (rows + 1)), rows + 1)).toBeLessThan(0.99);
    expect(candidateProbability(0.7, bands, rows)).toBeGreaterThan(1 - 1e-7);
  });

  it('on a fixed seed, signature agreement estimates Jaccard (mean absolute error < 0.05)', () => {
    const rng = seededRng(7);
    const word = () => `w${uniformInt(rng, 0, 60)}`;
    const hasher = new MinHasher(256, 3);
    let err = 0;
    const n = 200;
    for (let t = 0; t < n; t++) {
      const a = Array.from({ length: 30 }, word);
      const b = a.map((w) => (uniformInt(rng, 0, 9) < 3 ? word() : w));
      const sa = wordShingles(a.join(' '), 2);
      const sb = wordShingles(b.join(' '), 2);
      const x = hasher.signature(sa);
      const y = hasher.signature(sb);
      let same = 0;
      for (let i = 0; i < x.length; i++) if (x[i] === y[i]) same++;
      err += Math.abs(same / x.length - jaccard(sa, sb));
    }
    expect(err / n).toBeLessThan(0.05);
  });

  // Queries over a small vocabulary; test queries are train queries with words replaced, swapped or
  // dropped, so every Jaccard from 0 to 1 occurs.
  const vocab = fc.constantFrom(...'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon'.split(' '));
  const sentence = fc.array(vocab, { minLength: 0, maxLength: 25 });
  const edit = fc.array(fc.tuple(fc.constantFrom('replace', 'swap', 'drop'), fc.nat(), vocab), { maxLength: 4 });
  const splits = fc.tuple(fc.array(sentence, { minLength: 1, maxLength: 12 }), fc.array(fc.tuple(fc.nat(), edit, fc.boolean(), sentence), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), fc.nat({ max: 1000 }));

  test.prop([splits])('reported pairs carry the plain Jaccard and pass the threshold; every pair at threshold + 0.2 is found', ([trainWords, tests, k, seed]) => {
    const train: SplitQuery[] = trainWords.map((w, i) => ({ id: `t${i}`, text: w.join(' '), gold: [] }));
    const test: SplitQuery[] = tests.map(([pick, edits, fresh, other], i) => {
      let w = fresh ? other : [...trainWords[pick % trainWords.length]!];
      for (const [op, at, v] of edits) {
        if (w.length === 0) break;
        const j = at % w.length;
        if (op === 'replace') w[j] = v;
        else if (op === 'drop') w = [...w.slice(0, j), ...w.slice(j + 1)];
        else if (j + 1 < w.length) [w[j], w[j + 1]] = [w[j + 1]!, w[j]!];
      }
      return { id: `q${i}`, text: w.join(' '), gold: [] };
    });
    const threshold = 0.5;
    const a = auditLeakage(train, test, { shingle: k, permutations: 128, seed, near: threshold, close: threshold });
    const plain = (q: string, t: string) => plainJaccard(plainShingles(test.find((x) => x.id === q)!.text, k), plainShingles(train.find((x) => x.id === t)!.text, k));
    for (const p of [...a.near, ...a.closest]) {
      expect(p.jaccard).toBe(plain(p.test, p.train));
      expect(p.jaccard).toBeGreaterThanOrEqual(threshold);
    }
    const exact = new Set(a.exact.flatMap((e) => e.train.map((t) => `${e.test} ${t}`)));
    const near = new Set(a.near.map((p) => `${p.test} ${p.train}`));
    for (const q of test) {
      const best = Math.max(0, ...train.map((t) => (normalizeQuery(t.text) !== '' && normalizeQuery(q.text) !== '' ? plain(q.id, t.id) : 0)));
      for (const t of train) {
        const isExact = normalizeQuery(q.text) === normalizeQuery(t.text);
        expect(exact.has(`${q.id} ${t.id}`)).toBe(isExact);
        if (isExact || normalizeQuery(q.text) === '') continue;
        const j = plain(q.id, t.id);
        if (j >= threshold + 0.2) expect(near.has(`${q.id} ${t.id}`), `${q.id} ${t.id} at ${j}`).toBe(true);
        if (near.has(`${q.id} ${t.id}`)) expect(j).toBeGreaterThanOrEqual(threshold);
      }
      const closest = a.closest.find((p) => p.test === q.id);
      if (best >= threshold + 0.2) expect(closest?.jaccard).toBe(best);
      if (closest) expect(closest.jaccard).toBeLessThanOrEqual(best);
    }
  });
});

// A test-made pair of splits: 40 train queries of 60 words from a 400-word vocabulary (seeded).
const root = mkdtempSync(join(tmpdir(), 'leakage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sentences(seed: number, n: number): string[][] {
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => Array.from({ length: 60 }, () => `word${uniformInt(rng, 0, 399)}`));
}

function writeSplits(dir: string, train: { id: string; text: string; gold: string }[], test: { id: string; text: string; gold: string }[]): void {
  for (const sub of ['skills', 'queries', 'qrels']) mkdirSync(join(dir, sub), { recursive: true });
  const skills = Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: `s${i}`, name: `skill ${i}`, description: `does ${i}`, skill_md: `# skill ${i}` })).join('\n') + '\n';
  for (const [split, qs] of [['train', train], ['test', test]] as const) {
    writeFileSync(join(dir, 'skills', `${split}.jsonl`), skills);
    writeFileSync(join(dir, 'queries', `${split}.jsonl`), qs.map((q) => JSON.stringify({ id: q.id, query: q.text })).join('\n') + '\n');
    writeFileSync(join(dir, 'qrels', `${split}.jsonl`), qs.map((q) => JSON.stringify({ query_id: q.id, skill_id: q.gold, relevance: 1 })).join('\n') + '\n');
  }
}

describe('audit-leakage on a test-made pair of splits', () => {
  const base = sentences(1, 40);
  const train = base.map((w, i) => ({ id: `tr-${i}`, text: w.join(' ') + '.', gold: `s${i}` }));
  const clean = sentences(2, 20).map((w, i) => ({ id: `te-${i}`, text: w.join(' ') + '?', gold: `s${40 + (i % 10)}` }));
  // Planted: te-0 is tr-3 with case, punctuation and spacing changed; te-1 is tr-7 with an adjacent
  // swap and one word replaced; te-2 is tr-11 with three words replaced.
  const paraphrase = [...base[7]!];
  [paraphrase[10], paraphrase[11]] = [paraphrase[11]!, paraphrase[10]!];
  paraphrase[40] = 'unseen';
  const replaced = [...base[11]!];
  for (const i of [5, 25, 45]) replaced[i] = 'other';
  const planted = [
    { id: 'te-0', text: '  ' + base[3]!.join('  ').toUpperCase() + '!!', gold: 's3' },
    { id: 'te-1', text: paraphrase.join(' '), gold: 's7' },
    { id: 'te-2', text: replaced.join(', '), gold: 's49' },
    ...clean.slice(3),
  ];
  const leaky = join(root, 'leaky');
  const tidy = join(root, 'clean');
  writeSplits(leaky, train, planted);
  writeSplits(tidy, train, clean);

  it('finds the planted exact and paraphrased duplicates and nothing else', async () => {
    const r = await auditSplits({ dataset: leaky, out: join(root, 'leaky.json') });
    expect(r.audit.exact).toEqual([{ test: 'te-0', train: ['tr-3'], sameGold: true }]);
    expect(r.audit.near.map((p) => [p.test, p.train, p.sameGold])).toEqual([
      ['te-1', 'tr-7', true],
      ['te-2', 'tr-11', false],
    ]);
    for (const p of r.audit.near) expect(p.jaccard).toBe(plainJaccard(plainShingles(planted.find((q) => q.id === p.test)!.text, 3), plainShingles(train.find((q) => q.id === p.train)!.text, 3)));
    expect(r.audit.closest.map((p) => p.test)).toEqual(['te-0', 'te-1', 'te-2']);
    expect(r.audit.sharedGold).toMatchObject({ testWithGold: 20, allGoldInTrain: 2, anyGoldInTrain: 2 }); // s3 and s7; the rest have gold s43…s49, none train gold
    expect(r.text).toMatch(/exact duplicate of a train query\s+1\s+5\.00%/);
    const doc = JSON.parse(readFileSync(join(root, 'leaky.json'), 'utf8')) as { exact_duplicates: unknown[]; near_duplicates: { jaccard: number }[]; settings: { bands: number; rows: number } };
    expect(doc.exact_duplicates).toHaveLength(1);
    expect(doc.near_duplicates).toHaveLength(2);
    expect(doc.settings).toMatchObject({ bands: 42, rows: 3 });
    const first = readFileSync(join(root, 'leaky.json'));
    await auditSplits({ dataset: leaky, out: join(root, 'leaky.json') });
    expect(readFileSync(join(root, 'leaky.json')).equals(first)).toBe(true);
  });

  it('reports none on a clean pair', async () => {
    const r = await auditSplits({ dataset: tidy });
    expect(r.audit.counts).toMatchObject({ exactDuplicates: 0, nearDuplicates: 0, nearPairs: 0, close: 0 });
    expect(r.text).toContain('no exact or near duplicate');
  });

  it('the command: a table, --check exits 1 on leakage and 0 on a clean pair; bad input is one line, exit 2', async () => {
    const leak = await runCli(['audit-leakage', '--dataset', leaky, '--check']);
    expect(leak.code).toBe(1);
    expect(leak.out).toContain('near duplicate (Jaccard ≥ 0.7, not exact)');
    expect(leak.err.trim().split('\n')).toHaveLength(1);
    expect((await runCli(['audit-leakage', '--dataset', tidy, '--check'])).code).toBe(0);
    for (const [args, msg] of [
      [['--dataset', tidy, '--near', '1.5'], /--near: expected a Jaccard threshold in \(0, 1\]/],
      [['--dataset', tidy, '--test', 'train'], /--train and --test: both name the split "train"/],
      [['--dataset', join(root, 'nope')], /--test: .*nope: no such folder/],
      [['--dataset', tidy, '--out', join(root, 'no-dir', 'x.json')], /--out: .*no such folder/],
      [['--dataset', tidy, '--shingle', 'x'], /--shingle: expected a non-negative integer/],
    ] as const) {
      const r = await runCli(['audit-leakage', ...args]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });
});
