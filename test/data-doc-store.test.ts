import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../src/data/dataset.js';
import { JsonlDocStore, MemoryDocStore, StoreTextMap, docArray, fileDocSource } from '../src/data/doc-store.js';
import { buildDocumentText } from '../src/data/text.js';
import { cleanupTemp, makeDataset } from './fixtures/data/make-dataset.js';

afterAll(cleanupTemp);

// Non-ASCII (2-, 3- and 4-byte UTF-8), escapes, Python whitespace to strip, a blank SKILL.md
// (description fallback), a missing name, CRLF and lone-CR line ends, blank lines, and a BOM.
const records = [
  { id: 'a', name: ' Café ', description: 'déjà vu\u3000', skill_md: '\u0085# Über 中文 🎉\r\nline two\t' },
  { id: 'b', name: 'B', description: 'only the description', skill_md: '  \n ' },
  { id: 'c', description: 'x', skill_md: 'emoji 👍🏽 and \\u escapes \u2028 ok', major: 'dev', sub: 'ops', source_url: 'https://e.x/c' },
  { id: 'é-d', name: 'D', description: '', skill_md: 'plain' },
];
const lines = records.map((r) => JSON.stringify(r));
const fileText = '\ufeff' + lines[0] + '\r\n' + lines[1] + '\r\n\r\n' + lines[2] + '\r' + lines[3] + '\n';
const queries = '{"id":"q1","query":"über","skill_ids":["a"]}\n';

async function load(textOnDemand: boolean, extra: Record<string, unknown> = {}) {
  const dir = makeDataset({ skills: fileText, queries });
  return { dir, ds: await loadDataset({ path: dir, split: 'test', textOnDemand, ...extra }) };
}

describe('JsonlDocStore', () => {
  it('reads by offset exactly the texts the in-memory path builds (non-ASCII, CRLF, lone CR, BOM, fallbacks)', async () => {
    const { ds: eager } = await load(false);
    const { ds: lazy } = await load(true);
    const fields = ['name', 'description', 'skill_md'] as const;
    const expected = eager.skills.map((s) => ({ id: s.id, text: buildDocumentText(s, fields, ' | ') }));
    expect(expected[0]!.text).toBe('Café | déjà vu | # Über 中文 🎉\r\nline two');
    expect(expected[1]!.text).toBe('B | only the description | only the description');
    const store = new JsonlDocStore(fileDocSource(lazy.skillRecords, fields, ' | '));
    expect(store.size).toBe(4);
    expect(store.ids).toEqual(['a', 'b', 'c', 'é-d']);
    expect(expected.map((_, i) => store.text(i))).toEqual(expected.map((d) => d.text));
    expect([...store.texts()]).toEqual(expected.map((d) => d.text));
    expect([...store.texts(1, 3)]).toEqual(expected.slice(1, 3).map((d) => d.text));
    expect(docArray(store)).toEqual(expected);
    expect(store.indexOf('é-d')).toBe(3);
    expect(store.indexOf('zz')).toBeUndefined();
    // other fields and separators
    const names = new JsonlDocStore(fileDocSource(lazy.skillRecords, ['skill_md'], '\n'));
    expect([...names.texts()]).toEqual(eager.skills.map((s) => buildDocumentText(s, ['skill_md'], '\n')));
  });

  it('gives skills with text on demand that equal the eagerly loaded ones', async () => {
    const { ds: eager } = await load(false);
    const { ds: lazy } = await load(true);
    expect(lazy.skills.map((s) => ({ ...s }))).toEqual(eager.skills);
    expect(lazy.stats).toEqual(eager.stats);
  });

  it('follows a skill filter (offsets of the kept skills only)', async () => {
    const filter = { kind: 'field' as const, field: 'major' as const, values: ['dev'] };
    const { ds } = await load(true, { skillFilter: filter, unknownGold: 'keep' });
    const store = new JsonlDocStore(fileDocSource(ds.skillRecords));
    expect(store.ids).toEqual(['c']);
    expect(store.text(0)).toBe(' | x | emoji 👍🏽 and \\u escapes \u2028 ok');
  });

  it('refuses a skills file that changed after loading', async () => {
    const { dir, ds } = await load(true);
    const store = new JsonlDocStore(fileDocSource(ds.skillRecords));
    expect(store.text(2)).toContain('emoji');
    appendFileSync(join(dir, 'skills', 'test.jsonl'), '{"id":"e"}\n');
    expect(() => store.text(2)).toThrow(/changed/);
    expect(() => [...store.texts()]).toThrow(/changed/);
  });

  it('refuses a record whose id is not the one loaded at that offset', async () => {
    const { dir, ds } = await load(true);
    const store = new JsonlDocStore(fileDocSource(ds.skillRecords));
    const p = join(dir, 'skills', 'test.jsonl');
    // same size, same mtime check bypassed by rewriting with an equal-length different id
    writeFileSync(p, fileText.replace('"id":"b"', '"id":"z"'));
    const moved = new JsonlDocStore({ ...store.source, mtimeMs: (await import('node:fs')).statSync(p).mtimeMs });
    expect(() => moved.text(1)).toThrow(/changed/);
    expect(moved.text(0)).toContain('Café');
  });
});

describe('MemoryDocStore and StoreTextMap', () => {
  it('serves ids and texts from memory, and by id through the map (reading each text once)', () => {
    const docs = [
      { id: 'x', text: 'one' },
      { id: 'y', text: 'two ü' },
    ];
    const store = new MemoryDocStore(docs);
    expect(store.source).toBeUndefined();
    expect([...store.texts()]).toEqual(['one', 'two ü']);
    expect(store.text(1)).toBe('two ü');
    expect(() => store.text(2)).toThrow(RangeError);
    let reads = 0;
    const counting = { ...store, ids: store.ids, size: store.size, source: undefined, indexOf: (id: string) => store.indexOf(id), texts: () => store.texts(), text: (i: number) => (reads++, store.text(i)) };
    const map = new StoreTextMap(counting);
    expect(map.has('y')).toBe(true);
    expect(map.has('q')).toBe(false);
    expect(map.get('y')).toBe('two ü');
    expect(map.get('y')).toBe('two ü');
    expect(reads).toBe(1);
    expect(map.get('q')).toBeUndefined();
    expect([...map]).toEqual([
      ['x', 'one'],
      ['y', 'two ü'],
    ]);
    expect(map.size).toBe(2);
  });
});
