/**
 * The document pane of `evalkit view`: runs in the browser beside the explorer of report.html
 * (served as /_view/view.js, `paneMain.toString()`, so it stays self-contained: no imports, no
 * outer names). It follows the explorer through the address (`#doc=…&field=…`) and the document
 * it draws in #ek-docbody, and draws the document's file above the values: a PDF page by page
 * through pdf.js (served by the same server; pages drawn as they scroll into view), an image as
 * it is, a text file as text (pages at form feeds). Citations are boxes on their page
 * (`data-page` on the page, `data-field` on the box); selecting a field outlines its boxes and
 * scrolls to them, clicking a box selects its field. Every value is written as text.
 *
 * The project compiles without the DOM library, so the browser's objects are loosely typed here.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the DOM is not in the project's type library (see above) */

/** `escapeControls` is src/util/controls.ts's, passed in by the server: every text from the data is shown through it. */
export function paneMain(escapeControls: (s: string) => string): void {
  const g = globalThis as any;
  const d = g.document;
  const location = g.location;
  const base: string = d.querySelector('meta[name=evalkit-view]')?.content ?? './';
  const PDFJS = '/_view/pdfjs/';
  /** Pages beyond this many are listed but drawn only when scrolled to, as all are. */
  const LH = 18;

  interface Cit {
    field: string;
    side: 'run' | 'baseline';
    page: number;
    polygon: Array<{ x: number; y: number }>;
    pageWidth?: number;
    pageHeight?: number;
    text?: string;
  }
  interface Doc {
    id: string;
    name: string;
    kind: string;
    fileUrl: string | null;
    missing?: string;
    type: string;
    pageCount: number | null;
    pageSizes?: Array<{ width: number; height: number }>;
    citations: Cit[];
    values: Record<string, { expected: unknown; predicted: unknown; baseline?: unknown }>;
    classify?: { expected: unknown; predicted: unknown; baseline?: unknown };
    splits?: { expected: Array<[string, number, number]>; predicted: Array<[string, number, number]>; baseline?: Array<[string, number, number]> };
    notes: string[];
    baselineMissing?: string;
  }

  function el(tag: string, cls?: string | null, text?: string | null): any {
    const e = d.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = escapeControls(text);
    return e;
  }
  const show = (v: unknown): string =>
    v === null || v === undefined
      ? '(empty)'
      : typeof v === 'string'
        ? v
        : typeof v === 'object' && !Array.isArray(v) && v !== null && 'amount' in v && 'iso_4217_currency_code' in v
          ? `${show((v as any).amount)} ${show((v as any).iso_4217_currency_code)}`
          : JSON.stringify(v);
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const unitOf = (f: string): string => f.replace(/\[\d+\]/g, '[]');

  const docbody = d.getElementById('ek-docbody');
  if (!docbody) return;
  let pane = d.getElementById('ev-pane');
  if (!pane) {
    pane = el('div');
    pane.id = 'ev-pane';
    pane.setAttribute('aria-label', 'the document');
    docbody.parentNode.insertBefore(pane, docbody);
  }

  let cur: { id: string; doc: Doc | null; pages: Map<number, any>; field: string } | null = null;
  let token = 0;
  let observer: any = null;
  let pdfDoc: any = null;

  function params(): { doc: string; field: string } {
    const p = new URLSearchParams(location.hash.slice(1));
    return { doc: p.get('doc') ?? '', field: p.get('field') ?? '' };
  }
  function setField(field: string): void {
    const p = new URLSearchParams(location.hash.slice(1));
    p.set('field', field);
    location.hash = p.toString();
  }
  function state(s: string): void {
    d.body.dataset.pane = s;
  }

  function clear(): void {
    token++;
    observer?.disconnect();
    observer = null;
    pdfDoc?.destroy?.();
    pdfDoc = null;
    pane.textContent = '';
    cur = null;
  }

  function message(cls: string, text: string): void {
    pane.appendChild(el('p', cls, text));
  }

  async function sync(): Promise<void> {
    const { doc, field } = params();
    if (!doc) return clear();
    if (!cur || cur.id !== doc) await load(doc);
    if (cur && cur.id === doc) select(field);
  }

  async function load(id: string): Promise<void> {
    clear();
    const my = ++token;
    cur = { id, doc: null, pages: new Map(), field: '' };
    state('loading');
    message('ev-note', 'Loading the document…');
    let doc: Doc;
    try {
      const res = await g.fetch(`${base}api/doc?id=${encodeURIComponent(id)}`);
      const body = await res.json();
      if (my !== token) return;
      if (!res.ok) {
        pane.textContent = '';
        message('ev-missing', String(body.error ?? `HTTP ${res.status}`));
        return state('missing');
      }
      doc = body as Doc;
    } catch (e) {
      if (my !== token) return;
      pane.textContent = '';
      message('ev-missing', `The document could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
      return state('error');
    }
    cur.doc = doc;
    pane.textContent = '';
    const notes = el('div', 'ev-notes');
    for (const n of doc.notes) notes.appendChild(el('div', null, n));
    if (doc.missing || !doc.fileUrl) {
      message('ev-missing', `The file of this document cannot be shown: ${doc.missing ?? 'no file'}.`);
      pane.appendChild(notes);
      return state('missing');
    }
    pane.appendChild(notes);
    try {
      if (doc.kind === 'pdf') await drawPdf(doc, my, notes);
      else if (doc.kind === 'image') drawImage(doc);
      else if (doc.kind === 'text') await drawText(doc, my);
      else if (doc.kind === 'tiff') (doc.pageSizes ?? []).forEach((size, k) => drawImage(doc, k + 1, `${doc.fileUrl}&page=${k + 1}`, size));
      else {
        message('ev-missing', `${doc.name}: evalkit view draws PDF, PNG, JPEG, GIF, WebP, BMP, TIFF and text files, not this type.`);
        listCitations(doc, notes);
        return state('missing');
      }
    } catch (e) {
      if (my !== token) return;
      message('ev-missing', `${doc.name} cannot be drawn: ${e instanceof Error ? e.message : String(e)}`);
      return state('error');
    }
    if (my !== token) return;
    decorate(doc, notes);
    state('ready');
  }

  function listCitations(doc: Doc, notes: any): void {
    for (const c of doc.citations) notes.appendChild(el('div', null, `${c.field}: page ${c.page}${c.text ? `, "${c.text}"` : ''}`));
  }

  /** A page element of `w` x `h` CSS pixels. */
  function pageEl(n: number, w: number, h: number, extra = ''): any {
    const p = el('div', `ev-page${extra}`);
    p.dataset.page = String(n);
    p.style.width = `${w}px`;
    p.style.height = `${h}px`;
    p.appendChild(el('span', 'ev-pno', String(n)));
    pane.appendChild(p);
    cur?.pages.set(n, p);
    return p;
  }
  const paneWidth = (): number => Math.max(240, pane.clientWidth - 88);

  async function drawPdf(doc: Doc, my: number, notes: any): Promise<void> {
    const lib = await import(`${PDFJS}pdf.min.mjs`);
    lib.GlobalWorkerOptions.workerSrc = `${PDFJS}pdf.worker.min.mjs`;
    let pdf: any;
    try {
      pdf = await lib.getDocument({
        url: doc.fileUrl,
        isEvalSupported: false,
        useWasm: false,
        enableXfa: false,
        standardFontDataUrl: `${PDFJS}standard_fonts/`,
        cMapUrl: `${PDFJS}cmaps/`,
        cMapPacked: true,
      }).promise;
    } catch (e: any) {
      const why = e?.name === 'PasswordException' ? 'it is protected by a password (evalkit view does not ask for it)' : e?.name === 'InvalidPDFException' ? 'it is not a readable PDF (corrupt or truncated)' : (e?.message ?? String(e));
      throw new Error(why);
    }
    if (my !== token) return void pdf.destroy();
    pdfDoc = pdf;
    const first = await pdf.getPage(1);
    const vp1 = first.getViewport({ scale: 1 });
    const scale = paneWidth() / vp1.width;
    const n = pdf.numPages;
    notes.appendChild(el('div', null, `${n} page(s); pages are drawn as they scroll into view.`));
    const sizes = new Map<number, { w: number; h: number }>([[1, { w: vp1.width, h: vp1.height }]]);
    for (let k = 1; k <= n; k++) {
      const p = pageEl(k, vp1.width * scale, vp1.height * scale);
      p.dataset.w = String(vp1.width);
      p.dataset.h = String(vp1.height);
    }
    const drawn = new Set<number>();
    const draw = async (k: number): Promise<void> => {
      if (drawn.has(k) || my !== token) return;
      drawn.add(k);
      const page = k === 1 ? first : await pdf.getPage(k);
      if (my !== token) return;
      const vp0 = page.getViewport({ scale: 1 });
      sizes.set(k, { w: vp0.width, h: vp0.height });
      const s = paneWidth() / vp0.width;
      const vp = page.getViewport({ scale: s * (g.devicePixelRatio || 1) });
      const box = cur?.pages.get(k);
      if (!box) return;
      box.style.width = `${vp0.width * s}px`;
      box.style.height = `${vp0.height * s}px`;
      box.dataset.w = String(vp0.width);
      box.dataset.h = String(vp0.height);
      const canvas = el('canvas');
      canvas.width = Math.floor(vp.width);
      canvas.height = Math.floor(vp.height);
      box.insertBefore(canvas, box.firstChild);
      await page.render({ canvasContext: canvas.getContext('2d'), viewport: vp }).promise;
      page.cleanup();
      box.dataset.drawn = '1';
      placeAll(box);
    };
    observer = new g.IntersectionObserver(
      (entries: any[]) => {
        for (const en of entries) if (en.isIntersecting) void draw(Number(en.target.dataset.page)).catch((e: unknown) => en.target.appendChild(el('p', 'ev-missing', `page ${en.target.dataset.page} cannot be drawn: ${String(e)}`)));
      },
      { root: pane, rootMargin: '400px 0px' },
    );
    for (const p of cur?.pages.values() ?? []) observer.observe(p);
  }

  /** An image as page `n`; a TIFF's pages come as PNG from the server, each with its size known, loaded as it nears the view. */
  function drawImage(doc: Doc, n = 1, src: string = doc.fileUrl as string, size?: { width: number; height: number }): void {
    const c = doc.citations.find((x) => x.pageWidth && x.pageHeight);
    const w = paneWidth();
    const p = pageEl(n, w, size ? (w * size.height) / size.width : c ? (w * (c.pageHeight as number)) / (c.pageWidth as number) : w * 1.3);
    if (size) {
      p.dataset.w = String(size.width);
      p.dataset.h = String(size.height);
    }
    const img = el('img');
    img.alt = size ? `${doc.name}, page ${n}` : doc.name;
    if (size) img.loading = 'lazy';
    img.addEventListener('load', () => {
      p.style.height = `${(w * img.naturalHeight) / img.naturalWidth}px`;
      p.dataset.w = String(img.naturalWidth);
      p.dataset.h = String(img.naturalHeight);
      p.dataset.drawn = '1';
      placeAll(p);
    });
    img.addEventListener('error', () => {
      const fallback = size ? `${doc.name}: page ${n} cannot be decoded (damaged, or a TIFF compression evalkit view does not read)` : `${doc.name} cannot be drawn as an image (damaged, or not the type its name says)`;
      // The server says why it did not send the page (a page past the pixels it decodes, ...): its answer, when it has one.
      g.fetch(src)
        .then(async (res: Response) => (res.ok ? '' : (await res.text()).trim()))
        .catch(() => '')
        .then((why: string) => p.appendChild(el('p', 'ev-missing', why ? `${doc.name}: ${why}` : fallback)));
    });
    img.src = src;
    p.insertBefore(img, p.firstChild);
  }

  async function drawText(doc: Doc, my: number): Promise<void> {
    const res = await g.fetch(doc.fileUrl);
    if (!res.ok) throw new Error((await res.text()).trim() || `HTTP ${res.status}`);
    const text: string = await res.text();
    if (my !== token) return;
    const pages = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\f');
    pages.forEach((t, i) => {
      const lines = t.split(/\r?\n/);
      const cols = Math.max(1, ...lines.map((l) => l.length));
      const p = pageEl(i + 1, 0, lines.length * LH, ' ev-text');
      p.style.width = `${cols}ch`;
      p.style.font = `12px/${LH}px ui-monospace,Menlo,Consolas,monospace`;
      p.style.tabSize = '1';
      p.dataset.w = String(cols);
      p.dataset.h = String(Math.max(1, lines.length));
      // The document's own text, as it is (citations are placed by its columns).
      const pre = el('pre');
      pre.textContent = t;
      p.appendChild(pre);
      p.dataset.drawn = '1';
    });
  }

  /** Boxes, bands and the class on their pages; what cannot be placed is said in the notes. */
  function decorate(doc: Doc, notes: any): void {
    const pages = cur?.pages ?? new Map();
    for (const c of doc.citations) {
      const p = pages.get(c.page);
      if (!p) {
        notes.appendChild(el('div', null, `${c.side === 'baseline' ? "the baseline's " : ''}citation of ${c.field} is on page ${c.page}, but the document has ${pages.size} page(s); not drawn`));
        continue;
      }
      const v = doc.values[c.field];
      const b = el('div', `ev-box${c.side === 'baseline' ? ' ev-base' : v && !same(v.expected, v.predicted) ? ' o-bad' : ''}`);
      b.dataset.field = c.field;
      b.dataset.side = c.side;
      b.dataset.poly = JSON.stringify(c.polygon);
      if (c.pageWidth) b.dataset.pw = String(c.pageWidth);
      if (c.pageHeight) b.dataset.ph = String(c.pageHeight);
      b.title = escapeControls(`${c.side === 'baseline' ? 'baseline: ' : ''}${c.field}${c.text ? `: "${c.text}"` : ''}`);
      b.addEventListener('click', () => setField(unitOf(c.field)));
      p.appendChild(b);
      place(p, b, notes);
    }
    if (doc.classify) {
      const p = pages.get(1);
      if (p) {
        const k = doc.classify;
        const box = el('div', 'ev-class');
        box.dataset.field = 'class';
        box.appendChild(el('div', null, `expected class: ${show(k.expected)}`));
        box.appendChild(el('div', same(k.expected, k.predicted) ? 'ok' : 'bad', `predicted class: ${show(k.predicted)}`));
        if ('baseline' in k) box.appendChild(el('div', same(k.expected, k.baseline) ? 'ok' : 'bad', `baseline class: ${show(k.baseline)}`));
        p.parentNode.insertBefore(box, p);
      }
    }
    if (doc.splits) {
      const s = doc.splits;
      const key = (x: [string, number, number]): string => x.join('\u0000');
      const exact = (x: [string, number, number], other: Array<[string, number, number]>): boolean => other.some((y) => key(y) === key(x));
      for (const [n, p] of pages) {
        const band = el('div', 'ev-band');
        band.dataset.field = 'splits';
        const add = (label: string, list: Array<[string, number, number]>, other: Array<[string, number, number]>, cls?: string): void => {
          for (const x of list) {
            if (n < x[1] || n > x[2]) continue;
            const span = el('span', cls ?? (exact(x, other) ? 'o-TP' : 'o-bad'), `${label}: ${x[0]} ${x[1]}–${x[2]}`);
            band.appendChild(span);
          }
        };
        add('expected', s.expected, s.predicted);
        add('predicted', s.predicted, s.expected);
        if (s.baseline) add('baseline', s.baseline, s.expected, 'ev-b');
        if (!band.firstChild) band.appendChild(el('span', 'o-bad', 'in no split'));
        band.dataset.bandPage = String(n);
        p.parentNode.insertBefore(band, p);
      }
    }
  }

  function placeAll(p: any): void {
    for (const b of p.querySelectorAll('.ev-box')) place(p, b, null);
    if (cur) select(cur.field, false);
  }

  /** Positions a box in per cent of its page (the citation's page size, else the page's own). */
  function place(p: any, b: any, notes: any): void {
    const poly = JSON.parse(b.dataset.poly) as Array<{ x: number; y: number }>;
    const pw = Number(b.dataset.pw || p.dataset.w);
    const ph = Number(b.dataset.ph || p.dataset.h);
    if (!(pw > 0 && ph > 0)) return;
    const xs = poly.map((q) => q.x);
    const ys = poly.map((q) => q.y);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const tol = 0.01;
    if (x0 < -tol * pw || y0 < -tol * ph || x1 > pw * (1 + tol) || y1 > ph * (1 + tol)) {
      b.hidden = true;
      b.dataset.outside = '1';
      notes?.appendChild(el('div', null, `citation of ${b.dataset.field} lies outside page ${p.dataset.page} (x ${x0}–${x1} of ${pw}, y ${y0}–${y1} of ${ph}); not drawn`));
      return;
    }
    b.style.left = `${(x0 / pw) * 100}%`;
    b.style.top = `${(y0 / ph) * 100}%`;
    b.style.width = `${((x1 - x0) / pw) * 100}%`;
    b.style.height = `${((y1 - y0) / ph) * 100}%`;
  }

  function select(field: string, scroll = true): void {
    if (!cur) return;
    cur.field = field;
    for (const t of pane.querySelectorAll('[data-tip]')) t.remove();
    let first: any = null;
    const doc = cur.doc;
    for (const b of pane.querySelectorAll('[data-field]')) {
      const f = b.dataset.field as string;
      const on = field !== '' && (f === field || unitOf(f) === field || (field === 'class' && f === 'class'));
      b.classList.toggle('ev-sel', on);
      if (!on || b.hidden || !b.classList.contains('ev-box')) continue;
      // The run's box first; the baseline's when the run cites nothing.
      if (!first || (first.dataset.side === 'baseline' && b.dataset.side === 'run')) first = b;
    }
    const v = first ? doc?.values[first.dataset.field] : undefined;
    if (first && v) {
      const tip = el('div', 'ev-tip');
      tip.dataset.tip = first.dataset.field;
      tip.appendChild(el('div', null, first.dataset.side === 'baseline' ? `${first.dataset.field} (where the baseline found its value; the run cites nothing)` : first.dataset.field));
      const line = (label: string, x: unknown): void => {
        const row = el('div');
        row.appendChild(el('b', null, `${label}: `));
        row.appendChild(d.createTextNode(escapeControls(show(x))));
        tip.appendChild(row);
      };
      line('expected', v.expected);
      line('predicted', v.predicted);
      if ('baseline' in v) line('baseline', v.baseline);
      // Beside the box, on the side of the page with room.
      if (parseFloat(first.style.left) > 50) tip.style.right = `${100 - parseFloat(first.style.left) - parseFloat(first.style.width)}%`;
      else tip.style.left = first.style.left;
      tip.style.top = `calc(${first.style.top} + ${first.style.height} + 4px)`;
      first.parentNode.appendChild(tip);
    }
    if (doc && field && !first && doc.type === 'EXTRACT') {
      const none = el('div', 'ev-note');
      none.dataset.tip = field;
      // Without the baseline's export its boxes are unknown, not absent: say that rather than "not found".
      none.textContent = escapeControls(doc.baselineMissing
        ? `${field}: the run cites nothing here, and the baseline's citations are not available (${doc.baselineMissing}).`
        : `${field}: no citation in the output (the value was not found in the document, or nothing was predicted).`);
      pane.insertBefore(none, pane.firstChild);
    }
    // The values beside the pane scroll on their own: the selected row into view.
    const hl = docbody.querySelector('.hl');
    if (scroll && hl) docbody.scrollTop = Math.max(0, hl.getBoundingClientRect().top - docbody.getBoundingClientRect().top + docbody.scrollTop - docbody.clientHeight / 3);
    if (scroll && first) {
      const page = first.parentNode;
      pane.scrollTop = Math.max(0, page.offsetTop + first.offsetTop - pane.clientHeight / 3);
    }
  }

  // Reverse selection from the values table: a row names its field in its first <code>.
  docbody.addEventListener('click', (e: any) => {
    // A cell of a line-item table names its field itself (line_items[].amount).
    const cell = e.target?.closest?.('td[data-unit]');
    if (cell && cur?.doc?.type === 'EXTRACT') return setField(String(cell.dataset.unit));
    const row = e.target?.closest?.('tr');
    const code = row?.querySelector?.('code');
    if (!code?.textContent || !cur) return;
    const f = String(row.dataset?.field ?? code.textContent);
    if (cur.doc?.type === 'EXTRACT') setField(unitOf(f));
  });
  new g.MutationObserver(() => void sync()).observe(docbody, { childList: true });
  g.addEventListener('hashchange', () => void sync());
  void sync();
}
