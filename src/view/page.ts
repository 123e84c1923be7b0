/**
 * The page `evalkit view` serves for a report: the report's own report.html (the same explorer,
 * not a second UI) with the document pane added: one module script from this server (the pane,
 * which puts its element above the values) and its styles. The CSP stays that of report.html, widened
 * only by what a served pane needs: scripts, the pdf.js worker and fetches from this server
 * itself ('self'), and images from it or from blob: URLs. Still no inline script but the
 * explorer's hashed one, no eval, nothing from another origin.
 */

/** The policy of a served report; `hash` is the explorer script's `'sha256-…'` source from report.html. */
export function viewCsp(hash: string): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src ${hash} 'self'`,
    "worker-src 'self'",
    "connect-src 'self'",
    "img-src 'self' blob:",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const PANE_STYLE = `<style>
@media (min-width:761px){body #ek-docs-split.with-doc{grid-template-columns:minmax(0,1fr) minmax(30em,3fr)}
body #ek-docs-split.with-doc #ek-list{min-width:15em}}
#ek-doc:not([hidden]):has(#ev-pane:not(:empty)){display:grid;grid-template-columns:minmax(0,1.6fr) minmax(0,1fr);grid-template-rows:auto minmax(0,1fr);gap:0 .8em;overflow:hidden;height:calc(100vh - 9em)}
#ek-doc .bar2{grid-column:1/3}
#ev-pane{overflow:auto;border:1px solid var(--line);border-radius:4px;background:var(--head);margin:0 0 .4em;position:relative;min-height:12em}
#ek-doc:has(#ev-pane:not(:empty)) #ek-docbody{overflow:auto;min-height:0}
@media (max-width:900px){#ek-doc:not([hidden]):has(#ev-pane:not(:empty)){display:block;height:auto;overflow:auto}#ev-pane{height:60vh}}
#ev-pane:empty{display:none}
.ev-note{padding:.5em .8em;color:var(--mute)}.ev-missing{padding:1em;color:var(--bad);font-weight:600}
.ev-notes{margin:.3em 0;color:#a0761d;font-size:12px}
.ev-page{position:relative;margin:.6em auto;background:#fff;box-shadow:0 1px 4px rgba(0,0,0,.25);color:#111}
.ev-page canvas,.ev-page img{display:block;width:100%;height:100%}
.ev-page .ev-pno{position:absolute;right:100%;top:0;margin-right:4px;white-space:nowrap;font-size:11px;color:var(--mute)}
.ev-page pre{margin:0;font:12px/18px ui-monospace,Menlo,Consolas,monospace;white-space:pre;max-width:none;word-break:normal;padding:0}
.ev-box{position:absolute;border:2px solid #e0a800;background:rgba(255,214,0,.18);cursor:pointer;min-width:4px;min-height:4px}
.ev-box.o-bad{border-color:#c62828;background:rgba(198,40,40,.12)}
.ev-box{z-index:1}.ev-box.ev-base{z-index:0;border-style:dashed;border-color:#7a7a85;background:transparent}
.ev-box.ev-sel{outline:3px solid #2f62c4;outline-offset:2px;z-index:2}
.ev-tip{position:absolute;z-index:3;pointer-events:none;background:var(--bg);color:var(--fg);border:1px solid var(--acc);border-radius:4px;padding:3px 6px;font-size:12px;white-space:normal;width:max-content;max-width:min(26em,80%);overflow-wrap:anywhere;box-shadow:0 1px 4px rgba(0,0,0,.25)}
.ev-tip b{font-weight:600}
.ev-band{display:flex;flex-wrap:wrap;justify-content:center;gap:4px;margin:.9em auto .2em}
.ev-band span{font-size:12px;padding:1px 6px;border-radius:8px;white-space:nowrap}
.ev-band .o-TP{background:var(--okbg);color:var(--ok);border:1px solid var(--ok)}.ev-band .o-bad{background:var(--badbg);color:var(--bad);border:1px solid var(--bad)}
.ev-band .ev-b{background:var(--head);color:var(--mute);border:1px dashed var(--mute)}
.ev-class{margin:.8em auto .3em;max-width:36em;padding:.5em 1em;border-radius:6px;background:var(--bg);border:2px solid var(--acc);font-size:14px}
.ev-class div{margin:2px 0}
#ek-docbody tr{cursor:pointer}
</style>`;

/** The report's HTML with the pane; undefined when it is not a report.html of this evalkit (no explorer CSP). */
export function viewPage(html: string, base: string, index: string | null): { html: string; csp: string } | undefined {
  const m = /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src ('sha256-[A-Za-z0-9+/=]+')">/.exec(html);
  if (!m) return undefined;
  const csp = viewCsp(m[1]);
  const head =
    `<meta http-equiv="Content-Security-Policy" content="${csp}">\n<meta name="evalkit-view" content="${base}">\n${PANE_STYLE}\n` +
    `<script type="module" src="/_view/view.js"></script>`;
  let out = html.slice(0, m.index) + head + html.slice(m.index + m[0].length);
  if (index) out = out.replace('<header><h1>', `<header><p style="margin:.3em 0 0;font-size:12px"><a href="${index}">all reports</a></p><h1>`);
  return { html: out, csp };
}
