/**
 * The explorer's page script. `explorerMain` runs in the browser: the renderer embeds its source
 * (`explorerMain.toString()`) in report.html under a CSP hash, so it must stay self-contained
 * (no imports, no outer names but the browser's). Every value from the report is written with
 * textContent. The project compiles without the DOM library (it would retype Node's fetch and
 * streams), so the few DOM members used are typed here.
 */

interface Listener {
  addEventListener(type: string, fn: (e: KeyEvent) => void): void;
}
interface KeyEvent {
  key: string;
  target: unknown;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  preventDefault(): void;
}
export interface HTMLElement extends Listener {
  className: string;
  textContent: string | null;
  hidden: boolean;
  tabIndex: number;
  title: string;
  value: string;
  href: string;
  tagName: string;
  scrollTop: number;
  scrollLeft: number;
  readonly clientHeight: number;
  readonly style: Record<string, string>;
  readonly dataset: Record<string, string | undefined>;
  readonly classList: { add(c: string): void; remove(c: string): void };
  appendChild(n: Node): Node;
  setAttribute(name: string, value: string): void;
  closest(selector: string): HTMLElement | null;
  querySelector(selector: string): HTMLElement | null;
  focus(): void;
  blur(): void;
  getBoundingClientRect(): { top: number };
}
type Node = HTMLElement;
type HTMLInputElement = HTMLElement;
type HTMLSelectElement = HTMLElement;
type HTMLOptionElement = HTMLElement;
type HTMLAnchorElement = HTMLElement;
interface Page {
  document: Listener & { getElementById(id: string): HTMLElement | null; createElement(tag: string): HTMLElement; body: HTMLElement; readyState: string };
  location: { hash: string; pathname: string; search: string };
  history: { replaceState(data: null, unused: string, url: string): void };
  window: Listener;
  requestAnimationFrame(fn: () => void): void;
}

/** `escapeControls` is src/util/controls.ts's, passed in by the renderer: every text from the data is shown through it. */
export function explorerMain(escapeControls: (s: string) => string): void {
  const { document, location, history, window } = globalThis as unknown as Page;
  const requestAnimationFrame = (fn: () => void): void => (globalThis as unknown as Page).requestAnimationFrame(fn);
  type Row = Record<string, number | string | null>;
  interface Index {
    type: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';
    units: string[];
    fields: Row[];
    values: boolean;
    baseline: { file: string; kind: string; values: boolean } | null;
    docs: { id: string[]; name: string[]; errors: number[]; flags: string; mask: string[]; wrong: number[]; conf: Array<number | null>; change: string; fchange: string[]; slices?: number[][] };
    sliceNames: string[];
    history: unknown[] | null;
  }
  const OUT = ['TP', 'TN', 'FA', 'FN', 'FD'];
  const BIT: Record<string, number> = { TP: 1, FA: 2, FN: 4, FD: 8, wrong: 14 };
  const CHANGE: Record<string, string> = { f: 'fixed', b: 'broke', r: 'right in both', w: 'wrong in both', u: 'unpaired', '.': '' };
  const ROW_H = 30;

  const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
  function el(tag: string, cls?: string | null, text?: string | number | null, ...kids: Node[]): HTMLElement {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = escapeControls(String(text));
    for (const k of kids) e.appendChild(k);
    return e;
  }
  const fmt = (v: unknown): string => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : v === null || v === undefined ? 'n/a' : String(v));
  const show = (v: unknown): string =>
    v === null || v === undefined
      ? '(empty)'
      : typeof v === 'string'
        ? v
        : typeof v === 'object' && !Array.isArray(v) && 'amount' in v && 'iso_4217_currency_code' in v && Object.keys(v).length === 2
          ? `${show((v as { amount: unknown }).amount)} ${show((v as { iso_4217_currency_code: unknown }).iso_4217_currency_code)}`
          : typeof v === 'object' && !Array.isArray(v)
          ? Object.entries(v as Record<string, unknown>)
              .map(([k, x]) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`)
              .join(', ')
          : JSON.stringify(v);

  let ix: Index & { lineBytes: number[]; unitWidth: number };
  let details: Uint8Array | null = null;
  let lineStart: Float64Array | null = null;
  const N = (): number => ix.docs.id.length;

  function bytesOf(id: string): Uint8Array {
    const b64 = (byId(id).textContent ?? '').trim();
    const U8 = Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array };
    if (U8.fromBase64) return U8.fromBase64(b64);
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }
  async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
    const parts: Uint8Array[] = [];
    let n = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      parts.push(r.value);
      n += r.value.length;
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
  async function load(): Promise<void> {
    ix = JSON.parse(new TextDecoder().decode(await gunzip(bytesOf('ek-index'))));
  }
  /** The documents' lines: decoded once the page has loaded (the element follows this script). */
  async function loadDetails(): Promise<void> {
    const chunks: Uint8Array[] = [];
    for (let k = 0; byId(`ek-details-${k}`); k++) chunks.push(bytesOf(`ek-details-${k}`));
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    details = await gunzip(all);
    lineStart = new Float64Array(N() + 1);
    for (let i = 0; i < N(); i++) lineStart[i + 1] = lineStart[i] + ix.lineBytes[i];
    document.body.dataset.values = 'ready';
    document.body.dataset.valuesMs = String(Math.round(performance.now()));
    if (st.doc) openDoc(st.doc);
  }
  function detail(i: number): unknown {
    if (!details || !lineStart || lineStart[i + 1] === lineStart[i]) return null;
    return JSON.parse(new TextDecoder().decode(details.subarray(lineStart[i], lineStart[i + 1])));
  }

  // ---- state and deep links -------------------------------------------------------------
  interface State {
    view: string;
    q: string;
    field: string;
    outcome: string;
    change: string;
    slice: string;
    cmin: string;
    cmax: string;
    sort: string;
    doc: string;
  }
  const st: State = { view: 'overview', q: '', field: '', outcome: '', change: '', slice: '', cmin: '', cmax: '', sort: 'worst', doc: '' };
  const KEYS: Array<keyof State> = ['view', 'q', 'field', 'outcome', 'change', 'slice', 'cmin', 'cmax', 'sort', 'doc'];

  function fromHash(): void {
    const p = new URLSearchParams(location.hash.slice(1));
    for (const k of KEYS) st[k] = p.get(k) ?? (k === 'view' ? 'overview' : k === 'sort' ? 'worst' : '');
    if (!p.get('view') && (st.doc || st.field || st.outcome)) st.view = 'documents';
  }
  function toHash(): void {
    const p = new URLSearchParams();
    for (const k of KEYS) if (st[k] && !(k === 'sort' && st[k] === 'worst') && !(k === 'view' && (st[k] === 'overview' || st.doc))) p.set(k, st[k]);
    const h = p.toString();
    history.replaceState(null, '', h ? `#${h}` : location.pathname + location.search);
  }

  // ---- tabs --------------------------------------------------------------------------------
  const VIEWS = ['overview', 'fields', 'documents', 'history'];
  function setView(v: string): void {
    // A link to the History tab of a report without history: the overview (the tab is hidden).
    if (!VIEWS.includes(v) || (v === 'history' && !(ix.history && ix.history.length))) v = 'overview';
    st.view = v;
    for (const x of VIEWS) {
      const sec = byId(`ek-${x}`);
      if (sec) sec.hidden = x !== v;
      const tab = byId(`ek-tab-${x}`);
      if (tab) tab.setAttribute('aria-selected', String(x === v));
    }
    if (v === 'documents') renderList();
  }

  // ---- fields ------------------------------------------------------------------------------
  const FCOLS: Array<[string, string]> = [
    ['name', 'field'],
    ['f1', 'F1'],
    ['lo', '95% interval'],
    ['precision', 'precision'],
    ['recall', 'recall'],
    ['tp', 'TP'],
    ['fa', 'FA'],
    ['fn', 'FN'],
    ['fd', 'FD'],
    ['delta', 'Δ F1'],
    ['verdict', 'verdict'],
  ];
  // Worst first: the lowest F1 at the top (fields with no F1 last), as the document list does.
  let fsort = 'f1';
  let fdir = 1;
  function renderFields(): void {
    const head = byId('ek-fhead');
    head.textContent = '';
    const tr = el('tr');
    for (const [k, label] of FCOLS) {
      if ((k === 'delta' || k === 'verdict') && !ix.baseline) continue;
      if (k === 'fd' && ix.type !== 'EXTRACT') continue;
      const th = el('th', fsort === k ? (fdir > 0 ? 'asc' : 'desc') : null, ix.type === 'EXTRACT' || k !== 'name' ? label : ix.type === 'CLASSIFY' ? 'class' : 'split type');
      th.tabIndex = 0;
      th.setAttribute('role', 'columnheader');
      th.setAttribute('aria-sort', fsort === k ? (fdir > 0 ? 'ascending' : 'descending') : 'none');
      const go = (): void => {
        fdir = fsort === k ? -fdir : k === 'name' ? 1 : -1;
        fsort = k;
        renderFields();
      };
      th.addEventListener('click', go);
      th.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), go()));
      tr.appendChild(th);
    }
    head.appendChild(tr);
    const q = (byId<HTMLInputElement>('ek-fq').value || '').toLowerCase();
    const verdict = byId<HTMLSelectElement>('ek-fverdict').value;
    const rows = ix.fields.filter((f) => String(f.name).toLowerCase().includes(q) && (!verdict || f.verdict === verdict));
    rows.sort((a, b) => {
      const x = a[fsort];
      const y = b[fsort];
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * fdir;
    });
    const body = byId('ek-fbody');
    body.textContent = '';
    for (const f of rows) {
      const r = el('tr');
      r.tabIndex = 0;
      r.title = 'show the documents with a wrong outcome of this field';
      const name = el('td', null, null, el('code', null, f.name));
      r.appendChild(name);
      r.appendChild(el('td', 'num', fmt(f.f1)));
      r.appendChild(el('td', 'num', f.lo === null ? '' : `${fmt(f.lo)} – ${fmt(f.hi)}`));
      r.appendChild(el('td', 'num', fmt(f.precision)));
      r.appendChild(el('td', 'num', fmt(f.recall)));
      for (const k of ['tp', 'fa', 'fn', 'fd']) if (k !== 'fd' || ix.type === 'EXTRACT') r.appendChild(el('td', `num${k !== 'tp' && Number(f[k]) > 0 ? ' o-bad' : ''}`, fmt(f[k])));
      if (ix.baseline) {
        const d = f.delta as number | null;
        r.appendChild(el('td', `num${d !== null && d < 0 ? ' o-bad' : ''}`, d === null ? 'n/a' : `${d >= 0 ? '+' : ''}${d.toFixed(3)}`));
        r.appendChild(el('td', `v-${f.verdict ?? 'none'}`, String(f.verdict ?? '').replace('_', ' ')));
      }
      const open = (): void => {
        Object.assign(st, { field: String(f.name), outcome: 'wrong', doc: '' });
        syncFilters();
        setView('documents');
        toHash();
      };
      r.addEventListener('click', open);
      r.addEventListener('keydown', (e) => e.key === 'Enter' && open());
      body.appendChild(r);
    }
    byId('ek-fcount').textContent = `${rows.length} of ${ix.fields.length}`;
  }

  // ---- documents: filter, sort, virtual list -----------------------------------------------
  const orders = new Map<string, Int32Array>();
  function order(sort: string): Int32Array {
    let o = orders.get(sort);
    if (o) return o;
    const d = ix.docs;
    const idx = Array.from({ length: N() }, (_, i) => i);
    const conf = (i: number): number => d.conf[i] ?? 2;
    if (sort === 'id') idx.sort((a, b) => (d.id[a] < d.id[b] ? -1 : d.id[a] > d.id[b] ? 1 : 0));
    else if (sort === 'name') idx.sort((a, b) => (d.name[a] < d.name[b] ? -1 : d.name[a] > d.name[b] ? 1 : a - b));
    else if (sort === 'conf') idx.sort((a, b) => conf(a) - conf(b) || d.errors[b] - d.errors[a] || a - b);
    // Worst first: most wrong outcomes; among those, CLASSIFY's confident mistakes, else the least confident.
    else if (ix.type === 'CLASSIFY') idx.sort((a, b) => d.errors[b] - d.errors[a] || (d.conf[b] ?? -1) - (d.conf[a] ?? -1) || a - b);
    else idx.sort((a, b) => d.errors[b] - d.errors[a] || conf(a) - conf(b) || a - b);
    o = Int32Array.from(idx);
    orders.set(sort, o);
    return o;
  }
  let shown = new Int32Array(0);
  let cursor = -1;
  let anyMask: Uint8Array | null = null;

  function applyFilter(): void {
    const d = ix.docs;
    const u = st.field ? ix.units.indexOf(st.field) : -1;
    const bit = st.outcome === 'right' ? 0 : (BIT[st.outcome] ?? 0);
    const q = st.q.toLowerCase();
    const lo = st.cmin === '' ? -Infinity : Number(st.cmin);
    const hi = st.cmax === '' ? Infinity : Number(st.cmax);
    const confOn = st.cmin !== '' || st.cmax !== '';
    const slice = st.slice === '' ? -1 : ix.sliceNames.indexOf(st.slice);
    const want = st.change;
    if (!anyMask) {
      anyMask = new Uint8Array(N());
      for (let i = 0; i < N(); i++) {
        let m = 0;
        const s = d.mask[i];
        for (let k = 0; k < s.length; k++) m |= parseInt(s[k], 16);
        anyMask[i] = m;
      }
    }
    const o = order(st.sort);
    const out = new Int32Array(o.length);
    let n = 0;
    for (let k = 0; k < o.length; k++) {
      const i = o[k];
      if (st.field) {
        if (u < 0) continue;
        const m = parseInt(d.mask[i][u], 16);
        // EXTRACT: no bit is a TN (nothing expected, nothing predicted: right), so every document
        // has the field; a class or split type without a bit is one the document does not involve.
        const none = ix.type === 'EXTRACT' ? false : m === 0;
        if (st.outcome === '' ? none : st.outcome === 'right' ? none || (m & 14) !== 0 : (m & bit) === 0) continue;
      } else if (st.outcome === 'wrong') {
        if (d.errors[i] === 0) continue;
      } else if (st.outcome === 'right') {
        if (d.errors[i] !== 0) continue;
      } else if (bit && (anyMask[i] & bit) === 0) continue;
      if (want) {
        const c = u >= 0 ? (d.fchange[i] ?? '')[u] : d.change[i];
        if (want === 'changed' ? c !== 'f' && c !== 'b' : c !== want) continue;
      }
      if (slice >= 0 && !(d.slices?.[i] ?? []).includes(slice)) continue;
      if (confOn) {
        const c = d.conf[i];
        if (c === null || c < lo || c > hi) continue;
      }
      if (q && !d.id[i].toLowerCase().includes(q) && !d.name[i].toLowerCase().includes(q)) continue;
      out[n++] = i;
    }
    shown = out.subarray(0, n);
  }

  function outcomeBadges(i: number): HTMLElement {
    const wrap = el('span', 'badges');
    const u = st.field ? ix.units.indexOf(st.field) : -1;
    let m = 0;
    // The document's outcomes of each kind (not the units that have one: a line-item field or a
    // split type can hold several).
    const w = ix.docs.wrong;
    const counts: Record<string, number> = { FA: w[3 * i], FN: w[3 * i + 1], FD: w[3 * i + 2] };
    const s = ix.docs.mask[i];
    if (u >= 0) m = parseInt(s[u], 16);
    else for (let k = 0; k < s.length; k++) m |= parseInt(s[k], 16);
    for (const o of ['FA', 'FN', 'FD']) if (u >= 0 ? m & BIT[o] : counts[o] > 0) wrap.appendChild(el('span', `b o-${o}`, u >= 0 ? o : `${o} ${counts[o]}`));
    if (m === BIT.TP) wrap.appendChild(el('span', 'b o-TP', 'TP'));
    return wrap;
  }

  function renderRows(): void {
    const list = byId('ek-list');
    const rows = byId('ek-rows');
    const top = list.scrollTop;
    byId('ek-listhead').scrollLeft = list.scrollLeft;
    const first = Math.max(0, Math.floor(top / ROW_H) - 5);
    const last = Math.min(shown.length, Math.ceil((top + list.clientHeight) / ROW_H) + 5);
    rows.textContent = '';
    const d = ix.docs;
    for (let k = first; k < last; k++) {
      const i = shown[k];
      const flags = Number(d.flags[i]);
      const r = el('div', `row${k === cursor ? ' cur' : ''}${d.id[i] === st.doc ? ' open' : ''}`);
      r.style.top = `${k * ROW_H}px`;
      r.setAttribute('role', 'option');
      r.setAttribute('aria-selected', String(k === cursor));
      r.dataset.k = String(k);
      // The item id collapses while a document is open (the list is narrower): the name's title keeps it.
      const name = r.appendChild(el('span', 'c-name', d.name[i]));
      name.title = escapeControls(`${d.name[i]} (item ${d.id[i]})`);
      r.appendChild(el('code', 'c-id', d.id[i]));
      r.appendChild(el('span', `c-err num${d.errors[i] ? ' o-bad' : ''}`, flags & 1 ? 'failed' : d.errors[i]));
      r.appendChild(el('span', 'c-out', null, outcomeBadges(i)));
      r.appendChild(el('span', 'c-conf num', d.conf[i] === null ? '' : fmt(d.conf[i])));
      if (ix.baseline) {
        const u = st.field ? ix.units.indexOf(st.field) : -1;
        const c = u >= 0 ? (d.fchange[i] ?? '')[u] : d.change[i];
        r.appendChild(el('span', `c-chg ch-${c}`, CHANGE[c ?? '.'] ?? ''));
      }
      rows.appendChild(r);
    }
  }

  /** The column headers above the list, in the rows' grid (the change column only with a baseline). */
  function renderListHead(): void {
    const head = byId('ek-listhead');
    head.textContent = '';
    const cols: Array<[string, string, string]> = [
      ['c-name', 'file', 'the file name'],
      ['c-id', 'item id', 'the evaluation set item'],
      ['c-err num', 'wrong', st.field ? `wrong outcomes of ${st.field}` : 'wrong outcomes (FA, FN, FD) of the document'],
      ['c-out', st.field ? st.field : 'outcomes', st.field ? `the outcome of ${st.field}` : 'outcomes by kind'],
      ['c-conf num', 'conf.', "the document's lowest confidence"],
      ...(ix.baseline ? [['c-chg', 'vs baseline', 'fixed, broke, wrong in both, right in both, unpaired'] as [string, string, string]] : []),
    ];
    for (const [cls, label, title] of cols) {
      const h = el('span', cls, label);
      h.title = escapeControls(title);
      head.appendChild(h);
    }
  }

  function renderList(): void {
    renderListHead();
    applyFilter();
    byId('ek-spacer').style.height = `${shown.length * ROW_H}px`;
    byId('ek-count').textContent = `${shown.length.toLocaleString('en')} of ${N().toLocaleString('en')} documents`;
    if (cursor >= shown.length) cursor = shown.length - 1;
    renderRows();
  }

  function moveCursor(k: number, open: boolean): void {
    if (shown.length === 0) return;
    cursor = Math.max(0, Math.min(shown.length - 1, k));
    const list = byId('ek-list');
    const y = cursor * ROW_H;
    if (y < list.scrollTop) list.scrollTop = y;
    else if (y + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = y + ROW_H - list.clientHeight;
    if (open) openDoc(ix.docs.id[shown[cursor]]);
    else renderRows();
  }

  // ---- one document -----------------------------------------------------------------------
  function valueCell(tag: string, v: unknown, cls: string): HTMLElement {
    return el(tag, `${cls}${v === null || v === undefined ? ' empty' : ''}`, show(v));
  }

  /** A line's columns (see data.ts extractLine) as one tuple per cell: [unit, rows or path, outcome, expected, predicted, confidence, baseline outcome, baseline predicted]. */
  function cellsOf(line: unknown[]): unknown[][] {
    const [units, rows, outcomes, E, P, C, B, S] = line as [string, string, string, unknown[], unknown[], Array<number | null> | 0, [string, unknown[]] | 0, string[] | 0];
    const rowList = rows.split(' ');
    const out: unknown[][] = [];
    let p = 0;
    let bp = 0;
    let s = 0;
    const W = ix.unitWidth;
    for (let k = 0; k < units.length / W; k++) {
      const u = parseInt(units.substr(k * W, W), 36) - 1;
      const o = Number(outcomes[k]);
      const e = E[k];
      const pred = o >= 5 ? P[p++] : e;
      let bo: number | null = null;
      let bv: unknown = null;
      if (B) {
        const ch = B[0][k];
        if (ch !== '-') {
          bo = Number(ch) % 5;
          bv = Number(ch) >= 5 ? B[1][bp++] : pred;
        }
      }
      out.push([u, u < 0 ? (S ? S[s++] : '') : rowList[k], o % 5, e, pred, C ? C[k] : null, bo, bv]);
    }
    return out;
  }

  /** `paired`: the document has a baseline document (a field missing there is then not in the baseline, not unpaired). */
  function extractView(box: HTMLElement, cells: unknown[][], paired: boolean): void {
    const base = !!ix.baseline?.values;
    const scalars = new Map<number, unknown[][]>();
    const groups = new Map<string, { subs: string[]; rows: Map<string, Map<string, unknown[]>> }>();
    const stray: unknown[][] = [];
    for (const c of cells) {
      const u = c[0] as number;
      if (u < 0) {
        stray.push(c);
        continue;
      }
      const path = ix.units[u];
      const cut = path.indexOf('[]');
      if (cut < 0) {
        const list = scalars.get(u) ?? [];
        list.push(c);
        scalars.set(u, list);
        continue;
      }
      const g = path.slice(0, cut);
      const sub = path.slice(cut + 2).replace(/^\./, '') || '(value)';
      let grp = groups.get(g);
      if (!grp) groups.set(g, (grp = { subs: [], rows: new Map() }));
      const key = String(c[1]);
      let row = grp.rows.get(key);
      if (!row) grp.rows.set(key, (row = new Map()));
      row.set(sub, c);
    }
    const head = ['field', 'expected', 'predicted', ...(base ? ['baseline'] : []), 'outcome', 'confidence'];
    const t = el('table', 'diff');
    t.appendChild(el('thead', null, null, el('tr', null, null, ...head.map((h) => el('th', null, h)))));
    const body = el('tbody');
    ix.units.forEach((path, u) => {
      if (path.includes('[]')) return;
      const list = scalars.get(u) ?? [[u, '', 1, null, null, null, null, null]];
      for (const c of list) body.appendChild(cellRow(path, c, base, paired));
    });
    t.appendChild(body);
    box.appendChild(el('h3', null, 'Fields'));
    box.appendChild(el('div', 'scroll', null, t));
    for (const u of ix.units) {
      const cut = u.indexOf('[]');
      if (cut < 0) continue;
      const g = u.slice(0, cut);
      const sub = u.slice(cut + 2).replace(/^\./, '') || '(value)';
      let grp = groups.get(g);
      if (!grp) groups.set(g, (grp = { subs: [], rows: new Map() }));
      if (!grp.subs.includes(sub)) grp.subs.push(sub);
    }
    for (const [g, grp] of groups) {
      box.appendChild(el('h3', null, `${g}: ${grp.rows.size} row(s), expected and predicted rows as they were paired`));
      const tt = el('table', 'diff rows');
      tt.appendChild(el('thead', null, null, el('tr', null, null, el('th', null, 'row (expected > predicted)'), ...grp.subs.map((s) => el('th', null, s)))));
      const tb = el('tbody');
      for (const [key, row] of grp.rows) {
        const tr = el('tr');
        const label = key.includes('>') ? (key.startsWith('>') ? `unpaired predicted ${key.slice(1)}` : key.endsWith('>') ? `${key.slice(0, -1)} unpaired` : key) : key;
        tr.appendChild(el('th', 'rowkey', label));
        for (const s of grp.subs) {
          const c = row.get(s);
          const td = el('td', c ? `o-${OUT[c[2] as number]}` : 'o-TN');
          // The cell's field (`evalkit view` selects it on a click, as a row of the values table).
          td.dataset.unit = s === '(value)' ? `${g}[]` : `${g}[].${s}`;
          if (c) {
            const e = c[3];
            const p = c[4];
            td.appendChild(valueCell('div', e, 'exp'));
            if ((c[2] as number) !== 0) td.appendChild(valueCell('div', p, 'pred'));
            if (base && c[6] !== null && c[6] !== undefined && show(c[7]) !== show(p)) td.appendChild(el('div', 'base', `baseline: ${show(c[7])}`));
            td.title = escapeControls(`${g}[${key}].${s}: ${OUT[c[2] as number]}`);
            if (`${g}[].${s}` === st.field || `${g}[]` === st.field) td.classList.add('hl');
          } else td.appendChild(el('span', 'empty', '(empty)'));
          tr.appendChild(td);
        }
        tb.appendChild(tr);
      }
      tt.appendChild(tb);
      box.appendChild(el('div', 'scroll', null, tt));
    }
    if (stray.length) {
      box.appendChild(el('h3', null, 'Predicted keys outside the fields (FA)'));
      const ts = el('table', 'diff');
      for (const c of stray) ts.appendChild(el('tr', null, null, el('td', null, null, el('code', null, String(c[1]))), valueCell('td', c[4], 'pred')));
      box.appendChild(ts);
    }
  }

  function cellRow(path: string, c: unknown[], base: boolean, paired: boolean): HTMLElement {
    const o = OUT[c[2] as number];
    const e = c[3];
    const p = c[4];
    const tr = el('tr', `o-${o}${path === st.field ? ' hl' : ''}`);
    tr.dataset.field = path; // as is: the cell shows it with its control characters escaped
    tr.appendChild(el('td', null, null, el('code', null, path)));
    tr.appendChild(valueCell('td', e, 'exp'));
    tr.appendChild(valueCell('td', p, 'pred'));
    if (base) {
      const bo = c[6];
      const td = bo === null || bo === undefined ? el('td', 'empty', paired ? 'not in the baseline' : 'not paired') : valueCell('td', c[7], `base o-${OUT[bo as number]}`);
      tr.appendChild(td);
    }
    tr.appendChild(el('td', `out o-${o}`, o));
    tr.appendChild(el('td', 'num', c[5] === null || c[5] === undefined ? '' : fmt(c[5])));
    return tr;
  }

  function classifyView(box: HTMLElement, v: unknown[]): void {
    const base = !!ix.baseline?.values;
    const t = el('table', 'diff');
    t.appendChild(el('thead', null, null, el('tr', null, null, ...['expected class', 'predicted class', 'confidence', ...(base ? ['baseline class', 'baseline confidence'] : [])].map((h) => el('th', null, h)))));
    const right = v[0] !== null && v[0] === v[1];
    const tr = el('tr', right ? 'o-TP' : 'o-FD');
    tr.appendChild(valueCell('td', v[0], 'exp'));
    tr.appendChild(valueCell('td', v[1], 'pred'));
    tr.appendChild(el('td', 'num', v[2] === null ? '' : fmt(v[2])));
    if (base) {
      tr.appendChild(v.length > 3 ? valueCell('td', v[3], `base ${v[3] === v[0] ? 'o-TP' : 'o-FD'}`) : el('td', 'empty', 'not paired'));
      tr.appendChild(el('td', 'num', v.length > 4 && v[4] !== null ? fmt(v[4]) : ''));
    }
    t.appendChild(el('tbody', null, null, tr));
    box.appendChild(t);
  }

  function splitterView(box: HTMLElement, v: unknown[]): void {
    type S = [string, number, number];
    const E = v[1] as S[];
    const P = v[2] as S[];
    const B = v.length > 3 ? (v[3] as S[]) : null;
    const pages = Math.max((v[0] as number | null) ?? 0, ...E.map((s) => s[2]), ...P.map((s) => s[2]), ...(B ?? []).map((s) => s[2]), 1);
    const key = (s: S): string => s.join('\u0000');
    const count = (list: S[]): Map<string, number> => {
      const m = new Map<string, number>();
      for (const s of list) m.set(key(s), (m.get(key(s)) ?? 0) + 1);
      return m;
    };
    const ruler = el('div', 'ruler');
    ruler.style.gridTemplateColumns = `7em repeat(${pages}, minmax(1.6em, 1fr))`;
    ruler.appendChild(el('span', 'lab', 'page'));
    for (let p = 1; p <= pages; p++) ruler.appendChild(el('span', 'pg', p));
    const band = (label: string, list: S[], other: S[]): void => {
      const pool = count(other);
      ruler.appendChild(el('span', 'lab', label));
      list.forEach((s, i) => {
        const k = key(s);
        const ok = (pool.get(k) ?? 0) > 0;
        if (ok) pool.set(k, (pool.get(k) ?? 0) - 1);
        const seg = el('span', `seg ${ok ? 'o-TP' : label === 'expected' ? 'o-FN' : 'o-FA'}`, `${s[0]} ${s[1]}–${s[2]}`);
        seg.style.gridColumn = `${s[1] + 1} / ${s[2] + 2}`;
        seg.style.gridRow = String(label === 'expected' ? 2 : label === 'predicted' ? 3 : 4);
        seg.title = escapeControls(`${label} split ${i + 1}: ${s[0]}, pages ${s[1]}–${s[2]}${ok ? '' : ', no exact match'}`);
        ruler.appendChild(seg);
      });
    };
    band('expected', E, P);
    band('predicted', P, E);
    if (B) band('baseline', B, E);
    box.appendChild(el('p', null, `${pages} page(s); green: a split with the same type and pages on the other side, red: none.`));
    box.appendChild(el('div', 'scroll', null, ruler));
  }

  function openDoc(id: string): void {
    const i = ix.docs.id.indexOf(id);
    const box = byId('ek-doc');
    st.doc = id;
    toHash();
    box.hidden = false;
    byId('ek-docs-split').classList.add('with-doc');
    const body = byId('ek-docbody');
    body.textContent = '';
    if (i < 0) {
      byId('ek-doctitle').textContent = escapeControls(`No document ${id} in this report`);
      return;
    }
    const k = Array.prototype.indexOf.call(shown, i) as number;
    if (k >= 0) cursor = k;
    renderRows();
    const d = ix.docs;
    byId('ek-doctitle').textContent = escapeControls(d.name[i]);
    const flags = Number(d.flags[i]);
    const facts = [`item ${d.id[i]}`, `${d.errors[i]} wrong outcome(s)`];
    if (flags & 1) facts.push('run failed (scored as an empty prediction)');
    if (d.conf[i] !== null) facts.push(`lowest confidence ${fmt(d.conf[i])}`);
    if (flags & 4) facts.push('straight-through');
    if (ix.baseline) facts.push(`against the baseline: ${CHANGE[d.change[i]] || 'n/a'}`);
    body.appendChild(el('p', 'facts', facts.join(' · ')));
    const link = el('a', null, 'link to this document') as HTMLAnchorElement;
    link.href = `#doc=${encodeURIComponent(id)}${st.field ? `&field=${encodeURIComponent(st.field)}` : ''}`;
    body.appendChild(el('p', null, null, link));
    if (ix.baseline && !ix.baseline.values) body.appendChild(el('p', 'note', `The baseline's predictions are not available: ${ix.baseline.file} is a report, not an export.`));
    const v = ix.values ? detail(i) : null;
    if (ix.values && !details) body.appendChild(el('p', 'note', 'Loading the values…'));
    else if (!v) {
      body.appendChild(el('p', 'note', 'Values are not in this report (it was rendered without the export); outcomes per field:'));
      const t = el('table', 'diff');
      ix.units.forEach((u, k2) => {
        const m = parseInt(d.mask[i][k2], 16);
        if (m) t.appendChild(el('tr', null, null, el('td', null, null, el('code', null, u)), el('td', null, ['TP', 'FA', 'FN', 'FD'].filter((o) => m & BIT[o]).join(' '))));
      });
      body.appendChild(t);
    } else if (ix.type === 'EXTRACT') extractView(body, cellsOf(v as unknown[]), d.change[i] !== 'u');
    else if (ix.type === 'CLASSIFY') classifyView(body, v as unknown[]);
    else splitterView(body, v as unknown[]);
    // Scrolls the document pane alone (scrollIntoView would move the page and hide the filters).
    const hl = body.querySelector('.hl');
    const pane = byId('ek-doc');
    pane.scrollTop = 0;
    if (hl) pane.scrollTop = Math.max(0, hl.getBoundingClientRect().top - pane.getBoundingClientRect().top - pane.clientHeight / 3);
  }

  function closeDoc(): void {
    st.doc = '';
    byId('ek-doc').hidden = true;
    byId('ek-docs-split').classList.remove('with-doc');
    toHash();
    renderRows();
    byId('ek-list').focus();
  }

  // ---- filters -----------------------------------------------------------------------------
  const FILTERS: Array<keyof State> = ['q', 'field', 'outcome', 'change', 'slice', 'cmin', 'cmax', 'sort'];
  function syncFilters(): void {
    for (const k of FILTERS) {
      const input = byId<HTMLInputElement>(`ek-f-${k}`);
      if (input) input.value = st[k];
    }
  }
  function option(sel: HTMLElement, value: string, label: string): void {
    const o = el('option', null, label) as HTMLOptionElement;
    o.value = value;
    sel.appendChild(o);
  }

  function setup(): void {
    const fieldSel = byId('ek-f-field');
    option(fieldSel, '', ix.type === 'EXTRACT' ? 'any field' : ix.type === 'CLASSIFY' ? 'any class' : 'any split type');
    for (const u of ix.units) option(fieldSel, u, u);
    const chg = byId('ek-f-change');
    if (ix.baseline) {
      option(chg, '', 'any change');
      for (const [v, l] of [['changed', 'fixed or broke'], ['f', 'fixed'], ['b', 'broke'], ['w', 'wrong in both'], ['r', 'right in both'], ['u', 'unpaired']]) option(chg, v, l);
    } else chg.hidden = true;
    const sl = byId('ek-f-slice');
    if (ix.sliceNames.length) {
      option(sl, '', 'any slice');
      for (const s of ix.sliceNames) option(sl, s, s);
    } else sl.hidden = true;
    for (const k of FILTERS) {
      const input = byId<HTMLInputElement>(`ek-f-${k}`);
      input.addEventListener(k === 'q' || k === 'cmin' || k === 'cmax' ? 'input' : 'change', () => {
        st[k] = input.value;
        cursor = -1;
        byId('ek-list').scrollTop = 0;
        renderList();
        toHash();
      });
    }
    const vsel = byId('ek-fverdict');
    if (ix.baseline) for (const v of ['regressed', 'improved', 'inconclusive', 'no_change', 'not_comparable']) option(vsel, v, v.replace('_', ' '));
    else vsel.hidden = true;
    byId('ek-fq').addEventListener('input', renderFields);
    vsel.addEventListener('change', renderFields);
    const list = byId('ek-list');
    let pending = false;
    list.addEventListener('scroll', () => {
      // Columns too wide for the list (a document open beside it) scroll sideways, the header with them.
      byId('ek-listhead').scrollLeft = list.scrollLeft;
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        renderRows();
      });
    });
    list.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest('.row') as HTMLElement | null;
      if (row) moveCursor(Number(row.dataset.k), true);
    });
    list.addEventListener('keydown', (e) => {
      const page = Math.max(1, Math.floor(list.clientHeight / ROW_H) - 1);
      const keys: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: page, PageUp: -page };
      if (e.key in keys) {
        e.preventDefault();
        moveCursor(cursor + keys[e.key], !!st.doc);
      } else if (e.key === 'Home' || e.key === 'End') {
        e.preventDefault();
        moveCursor(e.key === 'Home' ? 0 : shown.length - 1, !!st.doc);
      } else if (e.key === 'Enter') moveCursor(Math.max(0, cursor), true);
    });
    byId('ek-close').addEventListener('click', closeDoc);
    byId('ek-prev').addEventListener('click', () => moveCursor(cursor - 1, true));
    byId('ek-next').addEventListener('click', () => moveCursor(cursor + 1, true));
    for (const v of VIEWS) {
      const tab = byId(`ek-tab-${v}`);
      tab?.addEventListener('click', () => {
        st.view = v;
        st.doc = '';
        setView(v);
        toHash();
      });
    }
    document.addEventListener('keydown', (e) => {
      const t = e.target as HTMLElement;
      const typing = t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA';
      if (e.key === 'Escape') {
        if (st.doc) closeDoc();
        else if (typing) t.blur();
        return;
      }
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '/') {
        e.preventDefault();
        const target = st.view === 'fields' ? 'ek-fq' : 'ek-f-q';
        if (st.view !== 'fields') setView('documents');
        byId(target).focus();
      } else if (e.key >= '1' && e.key <= '4') {
        const v = VIEWS[Number(e.key) - 1];
        if (!byId(`ek-tab-${v}`)?.hidden) {
          setView(v);
          toHash();
        }
      } else if (st.view === 'documents' && t !== list && (e.key === 'j' || e.key === 'k' || e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
        e.preventDefault();
        moveCursor(cursor + (e.key === 'j' || e.key === 'ArrowDown' ? 1 : -1), !!st.doc);
      } else if (st.view === 'documents' && t !== list && e.key === 'Enter' && !t.closest('a, button, summary, [tabindex]')) {
        // Enter opens the document under the cursor, as in the list (a focused button, link or row keeps its own Enter).
        e.preventDefault();
        moveCursor(Math.max(0, cursor), true);
      }
    });
    window.addEventListener('hashchange', route);
    window.addEventListener('resize', () => st.view === 'documents' && renderRows());
    // The History tab's charts are static HTML (src/history/html.ts); without entries the tab is hidden.
    if (!(ix.history && ix.history.length)) byId('ek-tab-history').hidden = true;
  }

  function route(): void {
    fromHash();
    syncFilters();
    setView(st.view);
    if (st.doc) openDoc(st.doc);
    else {
      byId('ek-doc').hidden = true;
      byId('ek-docs-split').classList.remove('with-doc');
    }
  }

  load()
    .then(() => {
      document.body.classList.add('ready');
      byId('ek-tabs').hidden = false;
      setup();
      renderFields();
      route();
      document.body.dataset.state = 'ready';
      document.body.dataset.readyMs = String(Math.round(performance.now()));
      const rest = (): void => {
        loadDetails().catch((e: unknown) => {
          const box = byId('ek-status');
          box.hidden = false;
          box.textContent = `The explorer could not load the documents' values: ${e instanceof Error ? e.message : String(e)}.`;
        });
      };
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', rest);
      else rest();
    })
    .catch((e: unknown) => {
      const box = byId('ek-status');
      box.hidden = false;
      box.textContent = `The explorer could not load its data: ${e instanceof Error ? e.message : String(e)}. The overview above is complete.`;
      document.body.dataset.state = 'failed';
    });
}
