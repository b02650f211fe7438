/// <reference lib="dom" />
/**
 * The report page's only script (inlined, allowed by its hash in the CSP): sortable tables and the
 * per-query explorer. It builds every element with createElement/textContent, never HTML strings, so
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

  // Explorer.
  const dataEl = doc.getElementById('explorer-data');
  if (!dataEl) return;
  interface Run { top: string[]; goldRanks: (number | null)[]; value: number; valueText: string; failed: boolean; vsNone: number | null; vsNoneText: string | null }
  interface Q { id: string; text: string; generatorModel: string | null; gold: string[]; runs: Run[] }
  interface Data {
    mainKey: string;
    k: number;
    runs: { label: string; reranked: boolean }[];
    queries: Q[];
    skills: Record<string, { name: string; major: string | null; sub: string | null; url: string | null; rawUrl: string | null; family?: string }>;
  }
  const data = JSON.parse(dataEl.textContent || '{}') as Data;
  const filter = doc.getElementById('q-filter') as HTMLSelectElement;
  const search = doc.getElementById('q-search') as HTMLInputElement;
  const list = doc.getElementById('q-list')!;
  const count = doc.getElementById('q-count')!;
  const more = doc.getElementById('q-more') as HTMLButtonElement;
  const PAGE = 40;
  let shown = PAGE;

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
  data.runs.forEach((r, i) => opt(`failed:${i}`, `${r.label}: missed a gold skill in its top ${data.k}`));
  data.runs.forEach((r, i) => {
    if (r.reranked) opt(`hurt:${i}`, `${r.label}: the reranker hurt ${data.mainKey}`);
  });

  const skillName = (id: string) => data.skills[id]?.name || id;
  const matches = (q: Q): boolean => {
    const f = filter.value;
    if (f.startsWith('failed:') && !q.runs[Number(f.slice(7))]!.failed) return false;
    if (f.startsWith('hurt:')) {
      const d = q.runs[Number(f.slice(5))]!.vsNone;
      if (d === null || !(d < -1e-12)) return false;
    }
    const s = search.value.trim().toLowerCase();
    if (s === '') return true;
    const hay = [q.id, q.text, ...q.gold.map(skillName)].join('\n').toLowerCase();
    return hay.includes(s);
  };

  const card = (q: Q): HTMLElement => {
    const d = el('details', undefined, 'query');
    d.dataset.qid = q.id;
    const sum = el('summary');
    sum.appendChild(el('span', q.id, 'qid'));
    q.runs.forEach((r, i) => {
      const b = el('span', `${data.runs[i]!.label} ${r.valueText}`, r.failed ? 'badge failed' : 'badge');
      sum.appendChild(b);
    });
    sum.appendChild(el('span', q.text.length > 140 ? `${q.text.slice(0, 140)}…` : q.text, 'qtext-short'));
    d.appendChild(sum);
    d.appendChild(el('p', q.text, 'qtext'));
    if (q.generatorModel) d.appendChild(el('p', `generator_model: ${q.generatorModel}`, 'muted'));
    d.appendChild(el('h4', 'Gold skills'));
    const gl = el('ul', undefined, 'gold');
    for (const g of q.gold) {
      const s = data.skills[g];
      const li = el('li');
      li.appendChild(el('strong', s?.name || g));
      const labels = [s?.major, s?.sub].filter((x): x is string => !!x).join(' / ');
      if (labels) li.appendChild(el('span', ` (${labels})`, 'muted'));
      li.appendChild(el('span', ` ${g}`, 'sid'));
      if (s?.family) li.appendChild(el('span', ` sibling family ${s.family}`, 'muted'));
      if (s?.url && /^https?:\/\//i.test(s.url)) {
        const a = el('a', 'source', 'src');
        a.href = s.url;
        a.rel = 'noopener noreferrer';
        a.target = '_blank';
        li.appendChild(doc.createTextNode(' '));
        li.appendChild(a);
      } else if (s?.rawUrl) {
        li.appendChild(el('span', ` source: ${s.rawUrl}`, 'rawurl'));
      }
      gl.appendChild(li);
    }
    d.appendChild(gl);
    const wrap = el('div', undefined, 'runs');
    q.runs.forEach((r, i) => {
      const box = el('div', undefined, 'run');
      box.appendChild(el('h4', data.runs[i]!.label));
      const ranks = q.gold.map((g, j) => `${skillName(g)}: ${r.goldRanks[j] === null ? 'not retrieved' : `rank ${r.goldRanks[j]}`}`).join('; ');
      box.appendChild(el('p', `${data.mainKey} ${r.valueText}${r.vsNoneText !== null ? ` (Δ vs no reranker ${r.vsNoneText})` : ''}. Gold: ${ranks}`, 'muted'));
      const ol = el('ol', undefined, 'ranked');
      for (const id of r.top) {
        const li = el('li', skillName(id), q.gold.includes(id) ? 'hit' : undefined);
        if (q.gold.includes(id)) li.appendChild(el('span', ' ★ gold', 'goldmark'));
        else {
          const f = data.skills[id]?.family;
          if (f && q.gold.some((g) => data.skills[g]?.family === f)) li.appendChild(el('span', ' ◆ sibling of a gold skill', 'goldmark'));
        }
        ol.appendChild(li);
      }
      box.appendChild(ol);
      wrap.appendChild(box);
    });
    d.appendChild(wrap);
    return d;
  };

  const render = () => {
    const hits = data.queries.filter(matches);
    count.textContent = `${hits.length} of ${data.queries.length} queries`;
    list.replaceChildren(...hits.slice(0, shown).map(card));
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
  render();
}

/** The script text inlined in the page. */
export const CLIENT_SCRIPT = `(${reportClient.toString()})(${nextSortDirection.toString()}, ${sortOrder.toString()});\n`;
