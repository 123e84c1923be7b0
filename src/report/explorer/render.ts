/**
 * report.html: the explorer. One self-contained file: the overview as static HTML, the data
 * gzip-compressed as base64 in a non-executed <script> block, and one inline script allowed by
 * its hash in the Content-Security-Policy (no other script, no request of any kind).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { DocumentRecord, Report } from '../../metrics/generated/report.js';
import { esc, overviewHtml } from '../html.js';
import { renderRunsHtml } from '../runs-html.js';
import { renderHistoryHtml } from '../../history/html.js';
import { historySeries } from '../../history/series.js';
import type { StoredEntry } from '../../history/store.js';
import { explorerMain } from './client.js';
import { escapeControls } from '../../util/controls.js';
import { buildExplorerData, type ExplorerData, type ExplorerInput } from './data.js';

export type { ExplorerInput } from './data.js';

/**
 * The document list's rows are as wide as `#ek-spacer`: at least the sum of their columns' minimum
 * widths, gaps and padding (34.7em; 29.2em while a document is open and the item id column is
 * collapsed), so that a list narrower than that scrolls sideways instead of clipping the last
 * columns.
 */
const STYLE = `:root{--bg:#fff;--fg:#1d1d1f;--mute:#6b6b70;--line:#dcdce0;--head:#f3f3f5;--hover:#eef3fd;--cur:#dce7fb;--acc:#2f62c4;
--ok:#1f7a35;--bad:#b3261e;--okbg:#e3f4e6;--badbg:#fbe5e3;--fdbg:#fdf0d5;--track:#e8e8ec;--bar:#4a7bd0;--wh:#111;--hl:#fff3a8}
@media (prefers-color-scheme:dark){:root{--bg:#16171a;--fg:#e6e6e9;--mute:#9a9aa2;--line:#34353b;--head:#222329;--hover:#23283a;--cur:#2b3553;--acc:#8fb1ff;
--ok:#6cd68a;--bad:#ff8a80;--okbg:#1b3323;--badbg:#3d1f1d;--fdbg:#3a2f16;--track:#2c2d33;--bar:#6f9cf0;--wh:#e6e6e9;--hl:#5b4f12}}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}
header{padding:.8em 1.5em .3em;border-bottom:1px solid var(--line);position:sticky;top:0;background:var(--bg);z-index:3}
h1{font-size:1.25em;margin:.2em 0 .5em;overflow-wrap:anywhere}h2{font-size:1.1em;margin:1.4em 0 .4em}h3{font-size:1em;margin:1.2em 0 .3em}
nav{display:flex;gap:.25em;flex-wrap:wrap}nav button{font:inherit;border:1px solid var(--line);border-bottom:none;background:var(--head);color:var(--fg);padding:.35em .9em;border-radius:6px 6px 0 0;cursor:pointer}
nav button[aria-selected=true]{background:var(--bg);font-weight:600;border-color:var(--acc)}
main{padding:0 1.5em 2em;max-width:1500px}
a{color:var(--acc)}
table{border-collapse:collapse;margin:.5em 0 1.2em}th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--head)}code{font-size:12px}pre{margin:0;white-space:pre-wrap;word-break:break-word;max-width:420px;font-size:12px}
.scroll{overflow-x:auto;max-width:100%}#ek-overview table{display:block;overflow-x:auto;max-width:100%}
#ek-overview td:first-child,#ek-fbody td:first-child{max-width:24em;overflow-wrap:break-word}
.num{text-align:right;font-variant-numeric:tabular-nums}
.track{fill:var(--track)}.bar{fill:var(--bar)}.wh{stroke:var(--wh);stroke-width:1.5}.axis{stroke:var(--mute)}.pos{fill:#2e8b57}.neg{fill:#c0392b}
.ok{color:var(--ok);font-weight:600}.bad,.o-bad{color:var(--bad);font-weight:600}.warn{color:#a0761d}.empty{color:var(--mute);font-style:italic}
.reconciliation tr.differs{background:var(--fdbg)}.reconciliation td:nth-child(n+2):nth-child(-n+6){white-space:nowrap}.why{margin:0;padding-left:1.1em;font-size:12px;min-width:24em;max-width:46em}
.heat td{text-align:center}.heat td:first-child,.heat.pairs td:nth-child(2){text-align:left}.cell{display:inline-block;min-width:3em;padding:2px 4px}
.v-regressed{color:var(--bad);font-weight:600}.v-improved{color:var(--ok);font-weight:600}.v-inconclusive,.v-no_change,.v-not_comparable{color:var(--mute)}
.toolbar{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.8em 0}
.toolbar input,.toolbar select{font:inherit;padding:.3em .4em;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg);min-width:0}
.toolbar input[type=search]{flex:1 1 14em}.toolbar select{max-width:20em}.toolbar input[type=number]{width:6.5em}
#ek-fields th{cursor:pointer;user-select:none;white-space:nowrap}#ek-fields th.asc::after{content:" ▲"}#ek-fields th.desc::after{content:" ▼"}
#ek-fbody tr{cursor:pointer}#ek-fbody tr:hover,#ek-fbody tr:focus{background:var(--hover);outline:none}
#ek-docs-split{display:grid;grid-template-columns:1fr;gap:1em}
#ek-docs-split.with-doc{grid-template-columns:minmax(22em,2fr) 3fr}
#ek-list{position:relative;height:calc(100vh - 13em);min-height:18em;overflow-y:auto;border:1px solid var(--line);border-radius:4px;outline:none}
#ek-list:focus{border-color:var(--acc)}
#ek-list,#ek-listhead{scrollbar-gutter:stable}#ek-list{border-top-left-radius:0;border-top-right-radius:0}
.row.head{position:static;overflow:hidden;cursor:default;background:var(--head);color:var(--mute);border:1px solid var(--line);border-bottom:none;border-radius:4px 4px 0 0}.row.head:hover{background:var(--head)}.row.head>*{font-size:12px}
#ek-spacer{position:relative}
.row{position:absolute;left:0;right:0;height:30px;display:grid;grid-template-columns:minmax(6em,2fr) minmax(5em,1.3fr) 3.5em minmax(6em,1.5fr) 3.5em 7em;gap:.5em;align-items:center;padding:0 .6em;border-bottom:1px solid var(--line);cursor:pointer;white-space:nowrap}
#ek-spacer{min-width:34.7em}#ek-docs-split.with-doc .row{grid-template-columns:minmax(6em,2fr) 3.5em minmax(6em,1.5fr) 3.5em 7em}#ek-docs-split.with-doc #ek-spacer{min-width:29.2em}#ek-docs-split.with-doc .c-id{display:none}
.row>*{overflow:hidden;text-overflow:ellipsis}
.row:hover{background:var(--hover)}.row.cur{background:var(--cur)}.row.open{box-shadow:inset 3px 0 var(--acc)}
.c-id{color:var(--mute)}
.b{display:inline-block;font-size:11px;padding:0 5px;border-radius:8px;margin-right:3px}
.b.o-TP{background:var(--okbg);color:var(--ok)}.b.o-FA,.b.o-FN{background:var(--badbg);color:var(--bad)}.b.o-FD{background:var(--fdbg);color:#b06a00}
.ch-f{color:var(--ok)}.ch-b{color:var(--bad);font-weight:600}.ch-w,.ch-r,.ch-u{color:var(--mute)}
#ek-doc{border:1px solid var(--line);border-radius:4px;padding:.4em 1em 1em;max-height:calc(100vh - 9em);overflow:auto;position:sticky;top:7em}
#ek-doc .bar2{display:flex;gap:.4em;align-items:flex-start;justify-content:space-between}
#ek-doc .bar2 button{font:inherit;border:1px solid var(--line);background:var(--head);color:var(--fg);border-radius:4px;padding:.2em .6em;cursor:pointer}
#ek-doctitle{margin:.4em 0;font-size:1.1em;overflow-wrap:anywhere}
.facts{color:var(--mute)}.note{color:#a0761d}
table.diff td{max-width:26em;overflow-wrap:anywhere;white-space:pre-wrap}table.diff td:first-child{max-width:18em;overflow-wrap:break-word}
table.diff tr.o-FA td.pred,table.diff tr.o-FD td.pred,table.diff td.o-FA .pred,table.diff td.o-FD .pred{background:var(--badbg)}
table.diff tr.o-FN td.exp,table.diff td.o-FN .exp{background:var(--badbg)}
table.diff tr.o-FD td.exp,table.diff td.o-FD .exp{background:var(--fdbg)}
table.diff tr.o-TN td{color:var(--mute)}
table.diff td.out.o-FA,table.diff td.out.o-FN,table.diff td.out.o-FD{color:var(--bad);font-weight:600}table.diff td.out.o-TP{color:var(--ok)}
table.rows td .pred{border-top:1px dashed var(--line)}table.rows td .pred::before{content:"→ ";color:var(--mute)}
table.rows td .base{color:var(--mute);font-size:12px}
.rowkey{white-space:nowrap;font-weight:normal}
.hl{outline:2px solid #d4a600;outline-offset:-2px}tr.hl td:first-child{background:var(--hl)}
.ruler{display:grid;gap:3px 1px;align-items:center;margin:.5em 0;min-width:24em}
.ruler .lab{grid-column:1;color:var(--mute);font-size:12px}.ruler .pg{text-align:center;font-size:11px;color:var(--mute);border-bottom:1px solid var(--line)}
.ruler .seg{border-radius:4px;padding:2px 4px;font-size:11px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.seg.o-TP{background:var(--okbg);color:var(--ok);border:1px solid var(--ok)}.seg.o-FN,.seg.o-FA{background:var(--badbg);color:var(--bad);border:1px solid var(--bad)}
#ek-status{padding:.6em 1em;background:var(--badbg);color:var(--bad)}
.keys,.count{color:var(--mute);font-size:12px}
@media (max-width:760px){header{padding:.5em .8em .2em}main{padding:0 .8em 2em}
#ek-docs-split.with-doc{grid-template-columns:1fr}#ek-docs-split.with-doc #ek-list{display:none}
#ek-doc{position:static;max-height:none}
.row{grid-template-columns:minmax(5em,1fr) 2.5em minmax(5em,1fr) 3.5em}#ek-spacer{min-width:0}.row .c-id,.row .c-chg{display:none}
.keys{display:none}#ek-list{height:calc(100vh - 16em)}.toolbar input[type=number]{width:5.5em}}`;

/**
 * Level 3: on the values of 50,000 documents (83 MB) 0.7 s for 18.0 MB, where level 6 took 2.0 s
 * for 15.7 MB and level 1 0.6 s for 20.3 MB.
 */
const gzip = (text: string | Buffer): Buffer => gzipSync(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, { level: 3 });

/**
 * Bytes per <script> block of the values (a multiple of 3, so each block is base64 of its own):
 * the HTML parser yields between elements, never inside one, so one 20 MB block would keep the
 * page from running its script until the whole file is parsed.
 */
const CHUNK = 3 * 2 ** 18;

/**
 * gzip + base64 of the index (with the byte length of each document's line) and of the lines.
 * The page decodes the index first and the lines after the document has loaded, so a large
 * report is interactive before its values are.
 */
export function packExplorerData(data: ExplorerData): { index: string; details: string[] } {
  // The lines' UTF-8 written one after the other into one buffer: a buffer per line and their
  // concatenation took twice the time (1.8 s for 50,000 documents) and twice the memory.
  const lineBytes = data.details.map((l) => Buffer.byteLength(l, 'utf8'));
  let total = 0;
  for (const n of lineBytes) total += n;
  const all = Buffer.allocUnsafe(total);
  let at = 0;
  for (const l of data.details) at += all.write(l, at, 'utf8');
  const details = gzip(all);
  const chunks: string[] = [];
  for (let i = 0; i < details.length; i += CHUNK) chunks.push(details.subarray(i, i + CHUNK).toString('base64'));
  return { index: gzip(JSON.stringify({ ...data.index, lineBytes })).toString('base64'), details: chunks };
}

/** The page script; `__name` guards against bundlers that wrap named functions. */
const SCRIPT = `"use strict";var __name=function(f){return f};(${explorerMain.toString()})(${escapeControls.toString()});`;
const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

export function renderExplorer(input: ExplorerInput): string {
  const r = input.report;
  const p = r.source.processor;
  const title = `evalkit report: ${p.name || p.id} ${p.version} (${r.type})`;
  const packed = packExplorerData(buildExplorerData(input));
  const unit = r.type === 'EXTRACT' ? 'field' : r.type === 'CLASSIFY' ? 'class' : 'split type';
  const units = r.type === 'CLASSIFY' ? 'classes' : `${unit}s`;
  const docsHelp = 'Keys: / search · j/k or ↑/↓ move · Enter open · Esc close · ←/→ scroll the list · 1–4 views';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body data-state="loading">
<header><h1>${esc(title)}</h1>
<nav id="ek-tabs" role="tablist" hidden>
<button role="tab" id="ek-tab-overview" aria-selected="true">Overview</button>
<button role="tab" id="ek-tab-fields" aria-selected="false">${r.type === 'EXTRACT' ? 'Fields' : r.type === 'CLASSIFY' ? 'Classes' : 'Split types'}</button>
<button role="tab" id="ek-tab-documents" aria-selected="false">Documents (${r.summary.documents})</button>
<button role="tab" id="ek-tab-history" aria-selected="false">History</button>
</nav></header>
<div id="ek-status" role="alert" hidden></div>
<main>
<section id="ek-overview" role="tabpanel">
${overviewHtml(r)}${r.runs ? renderRunsHtml(r.runs) : ''}
</section>
<section id="ek-fields" role="tabpanel" hidden>
<div class="toolbar"><input id="ek-fq" type="search" placeholder="search ${units}" aria-label="search ${units}"><select id="ek-fverdict" aria-label="verdict"><option value="">any verdict</option></select><span id="ek-fcount" class="count"></span></div>
<p class="keys">Click a column to sort; click a row for the documents with a wrong outcome of it.</p>
<div class="scroll"><table><thead id="ek-fhead"></thead><tbody id="ek-fbody"></tbody></table></div>
</section>
<section id="ek-documents" role="tabpanel" hidden>
${input.omitted ? `<p class="note">${esc(input.omitted)}</p>` : ""}<div${input.omitted ? " hidden" : ""}>
<div class="toolbar">
<input id="ek-f-q" type="search" placeholder="search id or file name" aria-label="search documents">
<select id="ek-f-field" aria-label="${unit}"></select>
<select id="ek-f-outcome" aria-label="outcome"><option value="">any outcome</option><option value="wrong">wrong (FA, FN or FD)</option><option value="right">right</option><option value="TP">TP</option><option value="FA">FA</option><option value="FN">FN</option><option value="FD">FD</option></select>
<select id="ek-f-change" aria-label="change against the baseline"></select>
<select id="ek-f-slice" aria-label="slice"></select>
<input id="ek-f-cmin" type="number" min="0" max="1" step="0.05" placeholder="conf ≥" aria-label="lowest confidence at least">
<input id="ek-f-cmax" type="number" min="0" max="1" step="0.05" placeholder="conf ≤" aria-label="lowest confidence at most">
<select id="ek-f-sort" aria-label="sort"><option value="worst">worst first</option><option value="conf">least confident first</option><option value="id">item id</option><option value="name">file name</option></select>
<span id="ek-count" class="count" aria-live="polite"></span>
</div>
<p class="keys">${esc(docsHelp)}</p>
<div id="ek-docs-split">
<div><div id="ek-listhead" class="row head" aria-hidden="true"></div>
<div id="ek-list" tabindex="0" role="listbox" aria-label="documents"><div id="ek-spacer"><div id="ek-rows"></div></div></div></div>
<aside id="ek-doc" hidden><div class="bar2"><h2 id="ek-doctitle"></h2><span><button id="ek-prev" title="previous (k)">‹</button> <button id="ek-next" title="next (j)">›</button> <button id="ek-close" title="close (Esc)">✕</button></span></div><div id="ek-docbody"></div></aside>
</div>
</div>
</section>
<section id="ek-history" role="tabpanel" hidden>${input.history?.length ? renderHistoryHtml(historySeries(input.history as readonly StoredEntry[])) : '<h2>History</h2>'}</section>
</main>
<script type="application/octet-stream" id="ek-index">${packed.index}</script>
<script>${SCRIPT}</script>
${packed.details.map((c, i) => `<script type="application/octet-stream" id="ek-details-${i}">${c}</script>`).join('\n')}
</body></html>
`;
}

/** The explorer of a report alone (no export: documents show outcomes, not values). */
export function renderHtml(report: Report, documents: readonly DocumentRecord[] = []): string {
  return renderExplorer({ report, documents });
}
