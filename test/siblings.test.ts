/**
 * Sibling families on a temp copy of data/mini with planted near-copies: exact copies (same text,
 * an id that wins BM25's ties) of q-00001's gold skills, a near-copy with three words swapped and a
 * chain of three (each two swaps from the last). The report (`analysis: {siblings: …}`) finds
 * exactly the planted families; its sibling misses and family metrics equal a plain recount from
 * per-query.jsonl; and the strict results files of a run with the analysis equal, byte for byte,
 * those of the same config without it (only siblings.json, the summary section and skills.jsonl's
 * `family` are added). Also the family metrics by hand on a tiny case, and the config's checks.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Qrels, Run } from '../src/core/types.js';
import { evaluateFamilies, familyQrels, familyRun, siblingMisses } from '../src/siblings/family-metrics.js';
import { evaluate } from '../src/metrics/evaluate.js';
import { configError, runCli } from './helpers/cli.js';
import { explorerDataOfPage } from '../src/report/html/explorer-data.js';

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'siblings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, unknown> & { id: string; name: string; skill_md: string; body: string };

/** Swaps words i and i+1 of the body (after the front matter) at each of `at`. */
function swapWords(text: string, at: readonly number[]): string {
  const cut = text.indexOf('\n---', 4) + 4;
  const words = text.slice(cut).split(' ');
  for (const i of at) [words[i], words[i + 1]] = [words[i + 1]!, words[i]!];
  return text.slice(0, cut) + words.join(' ');
}

function plantedDataset(): { ds: string; planted: string[][] } {
  const ds = join(dir, 'data');
  cpSync(join(root, 'data/mini'), ds, { recursive: true });
  const file = join(ds, 'skills/test.jsonl');
  const skills = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
  const gold = readFileSync(join(ds, 'qrels/test.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((j) => j.query_id === 'q-00001').map((j) => j.skill_id as string);
  const byId = new Map(skills.map((s) => [s.id, s]));
  const added: Rec[] = [];
  const planted: string[][] = [];
  gold.forEach((g, i) => {
    const id = `ffffffff-0000-4000-8000-00000000000${i}`;
    added.push({ ...byId.get(g)!, id });
    planted.push([g, id]);
  });
  const others = skills.filter((s) => !gold.includes(s.id));
  const near = others[0]!;
  const nearText = swapWords(near.skill_md, [10, 40, 80]);
  added.push({ ...near, id: 'ffffffff-1000-4000-8000-000000000000', name: `${near.name}-fork`, skill_md: nearText, body: nearText });
  planted.push([near.id, 'ffffffff-1000-4000-8000-000000000000']);
  const chain = others[1]!;
  const c1 = swapWords(chain.skill_md, [12, 60]);
  const c2 = swapWords(c1, [100, 140]);
  added.push({ ...chain, id: 'ffffffff-2000-4000-8000-000000000001', skill_md: c1, body: c1 });
  added.push({ ...chain, id: 'ffffffff-2000-4000-8000-000000000002', skill_md: c2, body: c2 });
  planted.push([chain.id, 'ffffffff-2000-4000-8000-000000000001', 'ffffffff-2000-4000-8000-000000000002']);
  writeFileSync(file, [...skills, ...added].map((s) => JSON.stringify(s)).join('\n') + '\n');
  return { ds, planted: planted.map((f) => f.sort()) };
}

function config(ds: string, out: string, extra: string): string {
  const f = join(dir, `${out}.yaml`);
  writeFileSync(
    f,
    [`name: sib`, `dataset: { path: ${ds}, split: test }`, 'k: [1, 5, 10]', 'retrievers:', '  - { id: bm25, type: bm25, top_k: 20 }', 'stats: { iterations: 100 }', extra, `output: ${join(dir, out)}`, `cache_dir: ${join(dir, 'cache')}`].filter(Boolean).join('\n') + '\n',
  );
  return f;
}

describe('family metrics by hand', () => {
  it('maps the ranking to families (first occurrence kept, the rest moves up) and the gold to its families', () => {
    const familyOf = new Map([
      ['a', 'a'],
      ['a2', 'a'],
      ['b', 'b'],
      ['b2', 'b'],
    ]);
    const qrels: Qrels = new Map([['q', new Map([['a', 1], ['b', 2], ['b2', 1], ['c', 1]])]]);
    const run: Run = new Map([['q', [{ docId: 'a2', score: 5 }, { docId: 'x', score: 4 }, { docId: 'a', score: 3 }, { docId: 'b2', score: 2 }, { docId: 'c', score: 1 }]]]);
    expect(familyQrels(qrels, familyOf).get('q')).toEqual(new Map([['a', 1], ['b', 2], ['c', 1]]));
    expect(familyRun(run, familyOf).get('q')!.map((d) => d.docId)).toEqual(['a', 'x', 'b', 'c']);
    const fam = evaluateFamilies(qrels, run, familyOf, [{ name: 'Recall', k: 1 }, { name: 'Recall', k: 3 }]).aggregate;
    // Family ranking a, x, b, c against gold families {a, b, c}: @1 one of three, @3 two of three.
    expect(fam['Recall@1']).toBeCloseTo(1 / 3, 12);
    expect(fam['Recall@3']).toBeCloseTo(2 / 3, 12);
    // Strict: a2 and x at @1..2 are not gold.
    expect(evaluate(qrels, run, [{ name: 'Recall', k: 1 }]).aggregate['Recall@1']).toBe(0);
    // At k = 2, a (rank 3) is missed while its sibling a2 is at rank 1; b, b2 and c are missed with no sibling in the top 2.
    expect(siblingMisses(qrels, run, familyOf, 2)).toEqual({ k: 2, misses: 4, siblingMisses: [{ query: 'q', gold: 'a', sibling: 'a2', rank: 1 }], queries: 1 });
    // With no family of two or more, the family metrics are the strict ones.
    const none = new Map<string, string>();
    const ms = [{ name: 'NDCG', k: 3 }, { name: 'Recall', k: 5 }] as const;
    expect(evaluateFamilies(qrels, run, none, ms).perQuery).toEqual(evaluate(qrels, run, ms).perQuery);
  });

  it('config: threshold in (0, 1], shingle a positive integer; unknown keys named', () => {
    const base = (a: string) => `name: t\ndataset: { path: /d }\nretrievers:\n  - { id: a, type: bm25 }\nanalysis: ${a}\noutput: /o\n`;
    expect(configError(base('{ siblings: { threshold: 0 } }'))).toBe('/cfg/x.yaml:5: analysis.siblings.threshold: expected number to be >0, got number 0');
    expect(configError(base('{ siblings: { threshold: 1.5 } }'))).toMatch(/^\/cfg\/x\.yaml:5: analysis\.siblings\.threshold: .*1\.5$/);
    expect(configError(base('{ siblings: { treshold: 0.8 } }'))).toBe('/cfg/x.yaml:5: analysis.siblings.treshold: unknown key (did you mean "threshold"?)');
    expect(configError(base('{ sibling: {} }'))).toBe('/cfg/x.yaml:5: analysis.sibling: unknown key (did you mean "siblings"?)');
  });
});

describe('sibling report on data/mini with planted near-copies', () => {
  it('finds the planted families, recounts match, and the strict results do not move', async () => {
    const { ds, planted } = plantedDataset();
    const withF = config(ds, 'with', 'analysis: { siblings: { threshold: 0.8 } }');
    const without = config(ds, 'without', '');
    for (const f of [withF, without]) {
      const r = await runCli(['run', f, '--offline', '-q']);
      expect(r.err, f).toBe('');
      expect(r.code, f).toBe(0);
    }
    const A = join(dir, 'with');
    const B = join(dir, 'without');
    const sj = JSON.parse(readFileSync(join(A, 'siblings.json'), 'utf8'));
    expect(sj).toMatchObject({ threshold: 0.8, shingle: 3, skills: 45 + 6 });
    const found = sj.families.map((f: { members: { id: string }[] }) => f.members.map((m) => m.id));
    expect(found).toEqual(planted.sort((a, b) => b.length - a.length || (a[0]! < b[0]! ? -1 : 1)));
    expect(existsSync(join(B, 'siblings.json'))).toBe(false);

    // Strict results: the same bytes with and without the analysis.
    for (const file of ['per-query.jsonl', 'run.trec', 'metrics.json', 'official.json', 'breakdown.json', 'operating-points.json'])
      expect(readFileSync(join(A, 'bm25/none', file), 'utf8'), file).toBe(readFileSync(join(B, 'bm25/none', file), 'utf8'));
    expect(readFileSync(join(A, 'queries.jsonl'), 'utf8')).toBe(readFileSync(join(B, 'queries.jsonl'), 'utf8'));
    const strip = (t: string) => t.replace(/,"family":"[^"]+"/g, '');
    expect(strip(readFileSync(join(A, 'skills.jsonl'), 'utf8'))).toBe(readFileSync(join(B, 'skills.jsonl'), 'utf8'));
    expect(readFileSync(join(A, 'skills.jsonl'), 'utf8')).toContain(`"family":"${planted[0]![0]}"`);
    const summaryA = readFileSync(join(A, 'summary.md'), 'utf8');
    if (process.env.SHOW_SUMMARY) console.log(summaryA);
    const summaryB = readFileSync(join(B, 'summary.md'), 'utf8');
    expect(summaryA).toContain('## Sibling families');
    const noCost = (t: string) => t.replace(/\n## Cost\n[\s\S]*?(?=\n## )/, ''); // seconds and cache outcomes differ between any two runs
    expect(noCost(summaryA.replace(/\n## Sibling families\n[\s\S]*?(?=\n## )/, ''))).toBe(noCost(summaryB));
    expect(summaryB).not.toContain('Sibling');

    // A plain recount from per-query.jsonl: sibling misses and family recall at each k.
    const familyOf = new Map<string, string>();
    for (const f of planted) for (const m of f) familyOf.set(m, f[0]!);
    const fam = (id: string) => familyOf.get(id) ?? id;
    const rows = readFileSync(join(A, 'bm25/none/per-query.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; gold: string[]; retrieved: string[]; metrics: Record<string, number> });
    const runJson = sj.runs[0];
    for (const at of runJson.at_k) {
      const k = at.k as number;
      let misses = 0;
      const sib: { query: string; gold: string; sibling: string; rank: number }[] = [];
      let recall = 0;
      for (const r of rows) {
        const top = r.retrieved.slice(0, k);
        for (const g of r.gold) {
          if (top.includes(g)) continue;
          misses++;
          const i = top.findIndex((d) => d !== g && fam(d) === fam(g));
          if (i >= 0) sib.push({ query: r.id, gold: g, sibling: top[i]!, rank: i + 1 });
        }
        const famTop: string[] = [];
        for (const d of r.retrieved) if (!famTop.includes(fam(d))) famTop.push(fam(d));
        const goldF = [...new Set(r.gold.map(fam))];
        recall += goldF.filter((f) => famTop.slice(0, k).includes(f)).length / goldF.length;
        expect(at.strict[`Recall@${k}`]).toBeCloseTo(JSON.parse(readFileSync(join(A, 'bm25/none/metrics.json'), 'utf8')).metrics[`Recall@${k}`], 12);
      }
      expect(at.misses, `k=${k}`).toBe(misses);
      expect(at.sibling_misses, `k=${k}`).toEqual(sib);
      expect(at.family[`Recall@${k}`]).toBeCloseTo(recall / rows.length, 5);
    }
    // The exact copies win BM25's ties (larger id first): at k = 1 some gold loses its place to its copy.
    const at1 = runJson.at_k.find((a: { k: number }) => a.k === 1);
    expect(at1.sibling_misses.length).toBeGreaterThan(0);
    expect(at1.family['Recall@1']).toBeGreaterThan(at1.strict['Recall@1']);
    expect(summaryA).toMatch(/\| bm25 \/ none \| 1 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+ \| [1-9]\d* \|/);

    // The explorer marks a sibling of a gold skill in the ranked lists.
    const shown = (dir: string) => explorerDataOfPage(readFileSync(join(dir, 'report.html'), 'utf8'));
    const families = Object.values(shown(A).skills).filter((s) => s.family !== undefined);
    expect(families.length).toBeGreaterThan(0);
    expect(Object.values(shown(B).skills).filter((s) => s.family !== undefined)).toEqual([]);
  });
});
