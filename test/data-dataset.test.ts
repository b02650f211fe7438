import { createHash } from 'node:crypto';
import { userError } from './helpers/cli.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset, loadGold, type DatasetOptions } from '../src/data/dataset.js';
import { cleanupTemp, jsonl, makeDataset, makeTempDir, type DatasetFiles } from './fixtures/data/make-dataset.js';

afterAll(cleanupTemp);

const S = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: `n-${id}`, description: `d-${id}`, skill_md: `md-${id}`, ...extra });
const SKILLS = [S('s1'), S('s2'), S('s3'), S('s4')];

/** Loads a dataset built from `files`; returns it with the folder and file paths. */
async function load(files: DatasetFiles, o: Partial<DatasetOptions> = {}) {
  const dir = makeDataset(files);
  const ds = await loadDataset({ path: dir, split: 'test', ...o });
  return { dir, ds };
}

/** Error message of loading a dataset built from `files`, with paths. */
async function loadError(files: DatasetFiles, o: Partial<DatasetOptions> = {}) {
  const dir = makeDataset(files);
  const msg = await userError(loadDataset({ path: dir, split: 'test', ...o }));
  return {
    msg,
    skills: join(dir, 'skills', 'test.jsonl'),
    queries: join(dir, 'queries', 'test.jsonl'),
    qrels: join(dir, 'qrels', 'test.jsonl'),
    dir,
  };
}

const qrelsToObj = (q: Map<string, Map<string, number>>) => Object.fromEntries([...q].map(([k, v]) => [k, Object.fromEntries(v)]));

describe('loadDataset: gold from a qrels file', () => {
  it('takes qrels as the truth: graded relevance kept, unjudged queries left out, all-non-positive ones kept (zeros), disagreement with skill_ids listed', async () => {
    const { dir, ds } = await load({
      skills: SKILLS,
      queries: [
        { id: 'q3', query: 'third', skill_ids: ['not-a-skill'] }, // skill_ids are ignored when qrels exist
        { id: 'q1', query: 'first' },
        { id: 'q2', query: 'second' }, // absent from qrels
        { id: 'q4', query: 'fourth' }, // only a relevance-0 judgement
      ],
      qrels: [
        { query_id: 'q1', skill_id: 's2', relevance: 1 },
        { query_id: 'q1', skill_id: 's1', relevance: 2 },
        { query_id: 'q3', skill_id: 's3', relevance: 1 },
        { query_id: 'q3', skill_id: 's4', relevance: 0 },
        { query_id: 'q4', skill_id: 's4', relevance: 0 },
      ],
    });
    expect(ds.goldSource).toBe('qrels');
    expect(ds.queries).toEqual([
      { id: 'q3', text: 'third' },
      { id: 'q1', text: 'first' },
      { id: 'q4', text: 'fourth' },
    ]);
    expect(qrelsToObj(ds.qrels)).toEqual({ q3: { s3: 1, s4: 0 }, q1: { s2: 1, s1: 2 }, q4: { s4: 0 } });
    expect([...ds.qrels.keys()]).toEqual(['q3', 'q1', 'q4']);
    expect(ds.evaluation).toBe('trec_eval');
    expect(ds.stats).toEqual({
      skillMdFallbacks: 0,
      skillsFilteredOut: 0,
      queriesWithoutGold: ['q2'],
      queriesWithoutRelevant: ['q4'],
      droppedGoldPairs: 0,
      droppedGoldQueries: [],
      unknownGoldKept: 0,
      goldDisagreement: ['q3', 'q1', 'q4'],
      grades: { judgements: 5, maxGrade: 2, aboveOne: 1 },
    });
    expect(ds.skills.map((s) => s.id)).toEqual(['s1', 's2', 's3', 's4']);
    expect(ds.dir).toBe(dir);
    expect(ds.split).toBe('test');
    expect(ds.files.map((f) => [f.role, f.records])).toEqual([
      ['skills', 4],
      ['queries', 4],
      ['qrels', 5],
    ]);
    for (const f of ds.files) {
      const buf = readFileSync(f.path);
      expect(f.path).toBe(join(dir, f.role, 'test.jsonl'));
      expect(f.bytes).toBe(buf.length);
      expect(f.sha256).toBe(createHash('sha256').update(buf).digest('hex'));
    }
  });

  it('requireQrels refuses a folder without qrels', async () => {
    const e = await loadError({ skills: SKILLS, queries: [{ id: 'q1', query: 'x', skill_ids: ['s1'] }] }, { requireQrels: true });
    expect(e.msg).toMatch(new RegExp(`^${escapeRe(e.qrels)}: file not found; expected layout `));
  });
});

describe('loadDataset: gold from the queries', () => {
  it('reads labels (array and JSON string, graded) before skill_ids, and skill_ids at relevance 1', async () => {
    const { ds } = await load({
      skills: SKILLS,
      queries: [
        { id: 'qa', query: 'a', labels: [{ id: 's1', relevance: 2 }, { id: 's2', relevance: 1 }], skill_ids: ['s4'] },
        { id: 'qb', query: 'b', labels: JSON.stringify([{ id: 's3', relevance: 1 }, { id: 's4', relevance: 0 }]) },
        { id: 'qc', query: 'c', skill_ids: ['s4', 's2'] },
        { id: 'qd', query: 'd' }, // neither: no gold, not an error
        { id: 'qe', query: 'e', labels: [] }, // labels win even when empty
        { id: 'qf', query: 'f', labels: null, skill_ids: ['s1'] }, // null labels = absent
      ],
    });
    expect(ds.goldSource).toBe('queries');
    expect(ds.queries.map((q) => q.id)).toEqual(['qa', 'qb', 'qc', 'qf']);
    expect(qrelsToObj(ds.qrels)).toEqual({
      qa: { s1: 2, s2: 1 },
      qb: { s3: 1, s4: 0 },
      qc: { s4: 1, s2: 1 },
      qf: { s1: 1 },
    });
    expect(ds.stats.queriesWithoutGold).toEqual(['qd', 'qe']);
    expect(ds.files.map((f) => f.role)).toEqual(['skills', 'queries']);
  });
});

describe('loadDataset: skill fields and fallbacks', () => {
  it('falls back to the description when skill_md is missing, null or blank after Python strip, and counts it', async () => {
    const { ds } = await load({
      skills: [
        { id: 'a', name: 'A', description: 'desc a', skill_md: '  body a  ' },
        { id: 'b', name: 'B', description: ' desc b ' }, // missing
        { id: 'c', name: 'C', description: 'desc c', skill_md: '\x1c \n\u0085\t' }, // Python-blank
        { id: 'd', description: 'desc d', skill_md: null }, // null; no name
        { id: 'e', name: null, skill_md: '' }, // no description either
        { id: 'f', name: 'F', description: 'desc f', skill_md: '\ufeff' }, // U+FEFF is not Python whitespace
      ],
      queries: [{ id: 'q', query: 'x', skill_ids: ['a'] }],
    });
    expect(ds.skills).toEqual([
      { id: 'a', name: 'A', description: 'desc a', skillMd: '  body a  ' },
      { id: 'b', name: 'B', description: ' desc b ', skillMd: ' desc b ' },
      { id: 'c', name: 'C', description: 'desc c', skillMd: 'desc c' },
      { id: 'd', name: '', description: 'desc d', skillMd: 'desc d' },
      { id: 'e', name: '', description: '', skillMd: '' },
      { id: 'f', name: 'F', description: 'desc f', skillMd: '\ufeff' },
    ]);
    expect(ds.stats.skillMdFallbacks).toBe(4);
  });

  it('reads the SKILL.md text from a configured field, and keeps major/sub', async () => {
    const { ds } = await load(
      {
        skills: [
          { id: 'a', name: 'A', description: 'da', body: 'BODY', skill_md: 'ignored', major: 'Data & ML', sub: 'Data Analysis' },
          { id: 'b', name: 'B', description: 'db', body: ' ' },
        ],
        queries: [{ id: 'q', query: 'x', skill_ids: ['b'] }],
      },
      { skillMdField: 'body' },
    );
    expect(ds.skills).toEqual([
      { id: 'a', name: 'A', description: 'da', skillMd: 'BODY', major: 'Data & ML', sub: 'Data Analysis' },
      { id: 'b', name: 'B', description: 'db', skillMd: 'db' },
    ]);
    expect(ds.stats.skillMdFallbacks).toBe(1);
  });

  it('refuses a SKILL.md field that no record carries (default and configured)', async () => {
    const files = { skills: [{ id: 'a', description: 'd', body: 'b' }], queries: [{ id: 'q', query: 'x', skill_ids: ['a'] }] };
    let e = await loadError(files);
    expect(e.msg).toBe(
      `${e.skills}: skill_md: no record has this field (configured as the SKILL.md field); name the right one (e.g. skillMdField 'body'), or 'description' to index descriptions only`,
    );
    e = await loadError(files, { skillMdField: 'skill_markdown' });
    expect(e.msg).toMatch(new RegExp(`^${escapeRe(e.skills)}: skill_markdown: no record has this field`));
  });
});

describe('loadDataset: unknown gold ids', () => {
  const files: DatasetFiles = {
    skills: [S('s1'), S('s2')],
    queries: [
      { id: 'q1', query: 'a' },
      { id: 'q2', query: 'b' },
      { id: 'q3', query: 'c' },
    ],
    qrels: [
      { query_id: 'q1', skill_id: 's1', relevance: 1 },
      { query_id: 'q1', skill_id: 'ghost', relevance: 1 },
      { query_id: 'q2', skill_id: 'ghost2', relevance: 2 },
      { query_id: 'q2', skill_id: 's2', relevance: 0 },
      { query_id: 'q3', skill_id: 's2', relevance: 1 },
    ],
  };

  it('is an error naming the qrels line by default', async () => {
    const e = await loadError(files);
    expect(e.msg).toBe(`${e.qrels}:2: skill_id: skill "ghost" (gold for query "q1") is not in the skill corpus`);
  });

  it("with unknownGold 'drop' drops and counts; a query left with only a grade-0 judgement scores 0 (trec_eval)", async () => {
    const { ds } = await load(files, { unknownGold: 'drop' });
    expect(ds.queries.map((q) => q.id)).toEqual(['q1', 'q2', 'q3']);
    expect(qrelsToObj(ds.qrels)).toEqual({ q1: { s1: 1 }, q2: { s2: 0 }, q3: { s2: 1 } });
    expect(ds.stats).toEqual({
      skillMdFallbacks: 0,
      skillsFilteredOut: 0,
      queriesWithoutGold: [],
      queriesWithoutRelevant: ['q2'],
      droppedGoldPairs: 2,
      droppedGoldQueries: [],
      unknownGoldKept: 0,
      grades: { judgements: 3, maxGrade: 1, aboveOne: 0 },
    });
  });

  it('names the query line and field for labels and skill_ids', async () => {
    let e = await loadError({
      skills: [S('s1')],
      queries: [
        { id: 'q1', query: 'a', skill_ids: ['s1'] },
        { id: 'q2', query: 'b', labels: [{ id: 's1', relevance: 1 }, { id: 'zz', relevance: 1 }] },
      ],
    });
    expect(e.msg).toBe(`${e.queries}:2: labels[1].id: skill "zz" (gold for query "q2") is not in the skill corpus`);
    e = await loadError({ skills: [S('s1')], queries: [{ id: 'q1', query: 'a', skill_ids: ['s1', 'zz'] }] });
    expect(e.msg).toBe(`${e.queries}:1: skill_ids[1]: skill "zz" (gold for query "q1") is not in the skill corpus`);
  });
});

describe('loadDataset: every bad record is a one-line UserError naming file:line: field', () => {
  const Q = [{ id: 'q1', query: 'x', skill_ids: ['s1'] }];

  it('skills', async () => {
    const cases: Array<[unknown[], string]> = [
      [[S('s1'), { name: 'no id' }], ':2: id: must be a non-empty string, got nothing (field missing)'],
      [[{ ...S('s1'), id: '' }], ':1: id: must be a non-empty string, got an empty string'],
      [[{ ...S('s1'), id: 7 }], ':1: id: must be a non-empty string, got the number 7'],
      [[S('s1'), S('s2'), S('s1')], ':3: id: duplicate skill id "s1" (first on line 1)'],
      [[{ ...S('s1'), name: 5 }], ':1: name: must be a string, got the number 5'],
      [[{ ...S('s1'), description: ['x'] }], ':1: description: must be a string, got an array'],
      [[{ ...S('s1'), skill_md: { t: 1 } }], ':1: skill_md: must be a string, got an object'],
      [[{ ...S('s1'), major: true }], ':1: major: must be a string, got the boolean true'],
    ];
    for (const [skills, tail] of cases) {
      const e = await loadError({ skills, queries: Q });
      expect(e.msg).toBe(e.skills + tail);
    }
  });

  it('queries', async () => {
    const sk = [S('s1'), S('s2')];
    const cases: Array<[unknown[], string]> = [
      [[{ query: 'x' }], ':1: id: must be a non-empty string, got nothing (field missing)'],
      [[{ id: 'q1', query: 'a', skill_ids: ['s1'] }, { id: 'q1', query: 'b' }], ':2: id: duplicate query id "q1" (first on line 1)'],
      [[{ id: 'q1' }], ':1: query: must be a string, got nothing (field missing)'],
      [[{ id: 'q1', query: 3 }], ':1: query: must be a string, got the number 3'],
      [[{ id: 'q1', query: 'a', labels: 5 }], ':1: labels: must be an array (or a JSON string of one) of {"id", "relevance"}, got the number 5'],
      [[{ id: 'q1', query: 'a', labels: '{"id":' }], ':1: labels: is a string but not valid JSON ('],
      [[{ id: 'q1', query: 'a', labels: '{"id":"s1","relevance":1}' }], ':1: labels: must be an array (or a JSON string of one) of {"id", "relevance"}, got an object'],
      [[{ id: 'q1', query: 'a', labels: [{ id: 's1' }] }], ':1: labels[0].relevance: must be an integer, got nothing (field missing)'],
      [[{ id: 'q1', query: 'a', labels: [{ id: 's1', relevance: 1 }, 's2'] }], ':1: labels[1]: must be an object {"id", "relevance"}, got the string "s2"'],
      [[{ id: 'q1', query: 'a', labels: [{ id: 's1', relevance: 1.5 }] }], ':1: labels[0].relevance: must be an integer, got the number 1.5'],
      [[{ id: 'q1', query: 'a', labels: [{ id: 's1', relevance: 1 }, { id: 's1', relevance: 2 }] }], ':1: labels[1].id: duplicate skill id "s1" in this query\'s labels'],
      [[{ id: 'q1', query: 'a', skill_ids: 's1' }], ':1: skill_ids: must be an array of skill ids, got the string "s1"'],
      [[{ id: 'q1', query: 'a', skill_ids: ['s1', 2] }], ':1: skill_ids[1]: must be a non-empty string, got the number 2'],
      [[{ id: 'q1', query: 'a', skill_ids: ['s2', 's1', 's2'] }], ':1: skill_ids[2]: duplicate skill id "s2" in this query\'s skill_ids'],
    ];
    for (const [queries, tail] of cases) {
      const e = await loadError({ skills: sk, queries });
      if (tail.endsWith('(')) expect(e.msg.startsWith(e.queries + tail)).toBe(true);
      else expect(e.msg).toBe(e.queries + tail);
    }
  });

  it('qrels', async () => {
    const qs = [
      { id: 'q1', query: 'a' },
      { id: 'q2', query: 'b' },
    ];
    const ok = { query_id: 'q1', skill_id: 's1', relevance: 1 };
    const cases: Array<[unknown[], string]> = [
      [[ok, { skill_id: 's1', relevance: 1 }], ':2: query_id: must be a non-empty string, got nothing (field missing)'],
      [[{ ...ok, skill_id: '' }], ':1: skill_id: must be a non-empty string, got an empty string'],
      [[{ ...ok, relevance: '1' }], ':1: relevance: must be an integer, got the string "1"'],
      [[{ ...ok, relevance: 0.5 }], ':1: relevance: must be an integer, got the number 0.5'],
      [[{ query_id: 'q1', skill_id: 's1' }], ':1: relevance: must be an integer, got nothing (field missing)'],
      [[ok, { query_id: 'q2', skill_id: 's1', relevance: 1 }, { ...ok, relevance: 2 }], ':3: skill_id: duplicate judgement for query "q1" and skill "s1" (first on line 1)'],
    ];
    for (const [qrels, tail] of cases) {
      const e = await loadError({ skills: [S('s1')], queries: qs, qrels });
      expect(e.msg).toBe(e.qrels + tail);
    }
    const e = await loadError({ skills: [S('s1')], queries: qs, qrels: [ok, { query_id: 'q9', skill_id: 's1', relevance: 1 }] });
    expect(e.msg).toBe(`${e.qrels}:2: query_id: query "q9" is not in ${e.queries}`);
  });

  it('malformed JSON and non-object lines in any file', async () => {
    let e = await loadError({ skills: jsonl([S('s1')]) + '{"id": "s2",\n', queries: Q });
    expect(e.msg.startsWith(`${e.skills}:2: malformed JSON (`)).toBe(true);
    e = await loadError({ skills: [S('s1')], queries: jsonl(Q) + '\n["q2"]\n' });
    expect(e.msg).toBe(`${e.queries}:3: expected a JSON object, got an array`);
  });

  it('empty files and nothing to evaluate', async () => {
    let e = await loadError({ skills: '\n\n', queries: Q });
    expect(e.msg).toBe(`${e.skills}: no skill records (the file is empty)`);
    e = await loadError({ skills: [S('s1')], queries: '' });
    expect(e.msg).toBe(`${e.queries}: no query records (the file is empty)`);
    e = await loadError({ skills: [S('s1')], queries: [{ id: 'q1', query: 'x' }] });
    expect(e.msg).toBe(`${e.queries}: no query has a relevant judgement (relevance >= 1); nothing to evaluate`);
    e = await loadError({ skills: [S('s1')], queries: [{ id: 'q1', query: 'x' }], qrels: '' });
    expect(e.msg).toBe(`${e.qrels}: no query has a relevant judgement (relevance >= 1); nothing to evaluate`);
  });
});

describe('loadDataset: layout errors', () => {
  it('names a missing folder and the expected layout', async () => {
    const dir = join(makeTempDir(), 'nope');
    const msg = await userError(loadDataset({ path: dir, split: 'test' }));
    expect(msg).toBe(`${dir}: dataset folder not found; expected layout ${join(dir, '{skills,queries,qrels}', 'test.jsonl')} (qrels optional)`);
  });

  it('names a missing split file and lists the splits present', async () => {
    const dir = makeDataset({ skills: [S('s1')], queries: [{ id: 'q', query: 'x', skill_ids: ['s1'] }] }, 'train');
    const msg = await userError(loadDataset({ path: dir, split: 'test' }));
    expect(msg).toBe(
      `${join(dir, 'skills', 'test.jsonl')}: file not found; expected layout ${join(dir, '{skills,queries,qrels}', 'test.jsonl')} (qrels optional); splits present for skills: train`,
    );
    const dir2 = makeDataset({ skills: [S('s1')] });
    expect(await userError(loadDataset({ path: dir2, split: 'test' }))).toMatch(new RegExp(`^${escapeRe(join(dir2, 'queries', 'test.jsonl'))}: file not found`));
  });

  it('refuses a split name that is not a plain file name', async () => {
    const dir = makeDataset({ skills: [S('s1')] });
    expect(await userError(loadDataset({ path: dir, split: '../x' }))).toBe(`${dir}: split: "../x" is not a valid split name (letters, digits, '.', '_', '-')`);
  });

  it('loads any split name that has files', async () => {
    const dir = makeDataset({ skills: [S('s1')], queries: [{ id: 'q', query: 'x', skill_ids: ['s1'] }] }, 'dev-2');
    const ds = await loadDataset({ path: dir, split: 'dev-2' });
    expect(ds.queries).toEqual([{ id: 'q', text: 'x' }]);
  });
});

describe('loadGold', () => {
  it('reads only the qrels file when present (no skills needed)', async () => {
    const dir = makeDataset({
      qrels: [
        { query_id: 'q2', skill_id: 'a', relevance: 2 },
        { query_id: 'q1', skill_id: 'b', relevance: 1 },
        { query_id: 'q3', skill_id: 'c', relevance: 0 },
      ],
    });
    const g = await loadGold(dir, 'test');
    expect(g.goldSource).toBe('qrels');
    expect(qrelsToObj(g.qrels)).toEqual({ q2: { a: 2 }, q1: { b: 1 }, q3: { c: 0 } }); // judged, none relevant: scores 0
    expect(g.queriesWithoutGold).toEqual([]);
    expect(g.files.map((f) => [f.role, f.records])).toEqual([['qrels', 3]]);
  });

  it('falls back to the queries labels / skill_ids', async () => {
    const dir = makeDataset({
      queries: [
        { id: 'q1', query: 'a', labels: '[{"id":"x","relevance":2}]' },
        { id: 'q2', query: 'b' },
        { id: 'q3', query: 'c', skill_ids: ['y', 'z'] },
      ],
    });
    const g = await loadGold(dir, 'test');
    expect(g.goldSource).toBe('queries');
    expect(qrelsToObj(g.qrels)).toEqual({ q1: { x: 2 }, q3: { y: 1, z: 1 } });
    expect(g.queriesWithoutGold).toEqual(['q2']);
  });

  it('errors when neither file is there, and with requireQrels', async () => {
    const dir = makeTempDir();
    expect(await userError(loadGold(dir, 'test'))).toMatch(new RegExp(`^${escapeRe(join(dir, 'queries', 'test.jsonl'))}: file not found`));
    const dir2 = makeDataset({ queries: [{ id: 'q1', query: 'a', skill_ids: ['x'] }] });
    expect(await userError(loadGold(dir2, 'test', { requireQrels: true }))).toMatch(new RegExp(`^${escapeRe(join(dir2, 'qrels', 'test.jsonl'))}: file not found`));
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
