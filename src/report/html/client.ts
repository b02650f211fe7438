/// <reference lib="dom" />
/**
 * The report page's only script (inlined, allowed by its hash in the CSP): sortable tables and the
 * per-query explorer, which reads its data from the page's compressed columns (explorer-data.ts)
 * with the browser's DecompressionStream. It builds every element with createElement/textContent, never HTML strings, so
 * no text of the data can become markup; an href is set only for an http(s) URL. The two sorting
 * rules are plain functions, exported for the tests and handed to the script: their source is
 * inlined beside it, so they use nothing outside their own bodies.
 */

export type SortDirection = 'ascending' | 'descending';

/**
 * The direction a click on a column header sorts: the column's best-first direction (`first`, from
 * the header's data-first: descending for means, Δ and W/T/L, ascending for p-values, K, budgets and
 * texts) on the first click, the other one on each further click.
 */
export function nextSortDirection(current: string | null, first: string | null): SortDirection {
  if (current === 'ascending') return 'descending';
  if (current === 'descending') return 'ascending';
  return first === 'descending' ? 'descending' : 'ascending';
}

/**
 * The order of a column's rows (indices into `keys`): numbers by value, texts by localeCompare, in
 * `direction`; a missing key (null: a cell without a value, such as the baseline's Δ) last either
 * way; equal keys keep their order.
 */
export function sortOrder(keys: readonly (number | string | null)[], direction: SortDirection): number[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return keys
    .map((_, i) => i)
    .sort((i, j) => {
      const a = keys[i]!;
      const b = keys[j]!;
      if (a === null || b === null) return a === null ? (b === null ? i - j : 1) : -1;
      const r = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
      return r === 0 ? i - j : sign * r;
    });
}

/* eslint-disable */
function reportClient(nextDirection: typeof nextSortDirection, order: typeof sortOrder): void {
  const doc = document;

  // Sortable tables: click a header; cells carry data-v (a number) or, in a column without numbers,
  // their text. The first click sorts the column best first (its data-first), the next reverses.
  for (const table of Array.from(doc.querySelectorAll('table.sortable'))) {
    const heads = Array.from(table.querySelectorAll('thead th'));
    heads.forEach((th, col) => {
      const b = doc.createElement('button');
      b.type = 'button';
      b.textContent = th.textContent;
      th.textContent = '';
      th.appendChild(b);
      b.addEventListener('click', () => {
        const dir = nextDirection(th.getAttribute('aria-sort'), th.getAttribute('data-first'));
        heads.forEach((h) => h.removeAttribute('aria-sort'));
        th.setAttribute('aria-sort', dir);
        const body = table.querySelector('tbody')!;
        const rows = Array.from(body.querySelectorAll('tr'));
        const cells = rows.map((tr) => tr.children[col] as HTMLElement | undefined);
        const numeric = cells.some((td) => td?.dataset.v !== undefined);
        const keys = cells.map((td): number | string | null => {
          if (!numeric) return td?.textContent ?? '';
          const v = td?.dataset.v;
          return v !== undefined && v !== '' && !Number.isNaN(Number(v)) ? Number(v) : null;
        });
        for (const i of order(keys, dir)) body.appendChild(rows[i]!);
      });
    });
  }

  // Explorer. The data block holds the runs in the clear and the per-query columns compressed
  // (explorer-data.ts): the filter menu is made at once, the list once the columns are inflated.
  const dataEl = doc.getElementById('explorer-data');
  if (!dataEl) return;
  interface Block { mainKey: string; k: number; runs: { label: string; reranked: boolean }[]; encoding: string; data: string }
  interface Cols {
    skills: { id: string[]; name: string[]; major: (string | null)[]; sub: (string | null)[]; url: (string | null)[]; rawUrl: (string | null)[]; family?: (string | null)[] };
    queries: { id: string[]; text: string[]; generatorModel: (string | null)[]; gold: number[][] };
    runs: { top: number[][]; goldRanks: (number | null)[][]; valueText: string[]; failed: number[]; vsNone: (number | null)[]; vsNoneText: (string | null)[] }[];
  }
  const block = JSON.parse(dataEl.textContent || '{}') as Block;
  const filter = doc.getElementById('q-filter') as HTMLSelectElement;
  const search = doc.getElementById('q-search') as HTMLInputElement;
  const list = doc.getElementById('q-list')!;
  const count = doc.getElementById('q-count')!;
  const more = doc.getElementById('q-more') as HTMLButtonElement;
  const PAGE = 40;
  let shown = PAGE;
  let data: Cols | null = null;

  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] => {
    const e = doc.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const opt = (value: string, text: string) => {
    const o = el('option', text);
    o.value = value;
    filter.appendChild(o);
  };
  opt('all', 'all queries');
  block.runs.forEach((r, i) => opt(`failed:${i}`, `${r.label}: missed a gold skill in its top ${block.k}`));
  block.runs.forEach((r, i) => {
    if (r.reranked) opt(`hurt:${i}`, `${r.label}: the reranker hurt ${block.mainKey}`);
  });
  count.textContent = 'reading the queries…';

  // Skills and queries by index into the columns.
  const skillName = (d: Cols, s: number) => d.skills.name[s] || d.skills.id[s]!;
  const familyOf = (d: Cols, s: number) => d.skills.family?.[s] ?? null;
  const matches = (d: Cols, q: number): boolean => {
    const f = filter.value;
    if (f.startsWith('failed:') && !d.runs[Number(f.slice(7))]!.failed[q]) return false;
    if (f.startsWith('hurt:')) {
      const v = d.runs[Number(f.slice(5))]!.vsNone[q];
      if (v === null || v === undefined || !(v < -1e-12)) return false;
    }
    const s = search.value.trim().toLowerCase();
    if (s === '') return true;
    const hay = [d.queries.id[q], d.queries.text[q], ...d.queries.gold[q]!.map((g) => skillName(d, g))].join('\n').toLowerCase();
    return hay.includes(s);
  };

  const card = (d: Cols, q: number): HTMLElement => {
    const id = d.queries.id[q]!;
    const text = d.queries.text[q]!;
    const gold = d.queries.gold[q]!;
    const det = el('details', undefined, 'query');
    det.dataset.qid = id;
    const sum = el('summary');
    sum.appendChild(el('span', id, 'qid'));
    d.runs.forEach((r, i) => {
      sum.appendChild(el('span', `${block.runs[i]!.label} ${r.valueText[q]}`, r.failed[q] ? 'badge failed' : 'badge'));
    });
    sum.appendChild(el('span', text.length > 140 ? `${text.slice(0, 140)}…` : text, 'qtext-short'));
    det.appendChild(sum);
    det.appendChild(el('p', text, 'qtext'));
    const gm = d.queries.generatorModel[q];
    if (gm) det.appendChild(el('p', `generator_model: ${gm}`, 'muted'));
    det.appendChild(el('h4', 'Gold skills'));
    const gl = el('ul', undefined, 'gold');
    for (const g of gold) {
      const sid = d.skills.id[g]!;
      const li = el('li');
      li.appendChild(el('strong', skillName(d, g)));
      const labels = [d.skills.major[g], d.skills.sub[g]].filter((x): x is string => !!x).join(' / ');
      if (labels) li.appendChild(el('span', ` (${labels})`, 'muted'));
      li.appendChild(el('span', ` ${sid}`, 'sid'));
      const fam = familyOf(d, g);
      if (fam) li.appendChild(el('span', ` sibling family ${fam}`, 'muted'));
      const url = d.skills.url[g];
      const raw = d.skills.rawUrl[g];
      if (url && /^https?:\/\//i.test(url)) {
        const a = el('a', 'source', 'src');
        a.href = url;
        a.rel = 'noopener noreferrer';
        a.target = '_blank';
        li.appendChild(doc.createTextNode(' '));
        li.appendChild(a);
      } else if (raw) {
        li.appendChild(el('span', ` source: ${raw}`, 'rawurl'));
      }
      gl.appendChild(li);
    }
    det.appendChild(gl);
    const goldFamilies = new Set(gold.map((g) => familyOf(d, g)).filter((x) => x !== null));
    const wrap = el('div', undefined, 'runs');
    d.runs.forEach((r, i) => {
      const box = el('div', undefined, 'run');
      box.appendChild(el('h4', block.runs[i]!.label));
      const goldRanks = r.goldRanks[q]!;
      const ranks = gold.map((g, j) => `${skillName(d, g)}: ${goldRanks[j] === null ? 'not retrieved' : `rank ${goldRanks[j]}`}`).join('; ');
      const vs = r.vsNoneText[q];
      box.appendChild(el('p', `${block.mainKey} ${r.valueText[q]}${vs !== null && vs !== undefined ? ` (Δ vs no reranker ${vs})` : ''}. Gold: ${ranks}`, 'muted'));
      const ol = el('ol', undefined, 'ranked');
      for (const s of r.top[q]!) {
        const hit = gold.includes(s);
        const li = el('li', skillName(d, s), hit ? 'hit' : undefined);
        if (hit) li.appendChild(el('span', ' ★ gold', 'goldmark'));
        else {
          const f = familyOf(d, s);
          if (f && goldFamilies.has(f)) li.appendChild(el('span', ' ◆ sibling of a gold skill', 'goldmark'));
        }
        ol.appendChild(li);
      }
      box.appendChild(ol);
      wrap.appendChild(box);
    });
    det.appendChild(wrap);
    return det;
  };

  const render = () => {
    const d = data;
    if (!d) return;
    const n = d.queries.id.length;
    const hits: number[] = [];
    for (let q = 0; q < n; q++) if (matches(d, q)) hits.push(q);
    count.textContent = `${hits.length} of ${n} queries`;
    list.replaceChildren(...hits.slice(0, shown).map((q) => card(d, q)));
    more.hidden = hits.length <= shown;
  };
  filter.addEventListener('change', () => {
    shown = PAGE;
    render();
  });
  search.addEventListener('input', () => {
    shown = PAGE;
    render();
  });
  more.addEventListener('click', () => {
    shown += PAGE;
    render();
  });

  // The columns: base64, raw DEFLATE, JSON.
  const inflate = async (b64: string): Promise<string> => {
    if (typeof DecompressionStream !== 'function') throw new Error('this browser has no DecompressionStream (current Chromium, Firefox and Safari have it)');
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text();
  };
  inflate(block.data).then(
    (text) => {
      data = JSON.parse(text) as Cols;
      render();
    },
    (e: unknown) => {
      count.textContent = `The query list could not be read: ${e instanceof Error ? e.message : String(e)}`;
    },
  );
}

/** The script text inlined in the page. */
export const CLIENT_SCRIPT = `(${reportClient.toString()})(${nextSortDirection.toString()}, ${sortOrder.toString()});\n`;
