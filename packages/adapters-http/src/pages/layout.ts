// The HTML shell of every page the service renders itself (sign-in, consent, error pages): an escaping `html`
// template, the page frame and the error page. Checklist M 153/160: no inline script or style, no third-party asset.
import { escape } from "html-escaper"
import { HttpServerResponse } from "effect/http"

/** Markup that is already safe: produced by `html` or explicitly trusted with `raw`. */
export class Html {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

/** Trusts a string as markup. Only for constants and for output of `html`; never for request or stored data. */
export const raw = (markup: string): Html => new Html(markup)

const interpolate = (value: unknown): string => {
  if (value instanceof Html) return value.value
  if (value === null || value === undefined || value === false) return ""
  if (Array.isArray(value)) return value.map(interpolate).join("")
  return escape(String(value))
}

/**
 * Tagged template: every interpolation is HTML-escaped unless it is `Html` (from `html` or `raw`). Arrays are
 * concatenated item by item (each escaped), `null`/`undefined`/`false` render as nothing.
 */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += interpolate(values[i]) + (strings[i + 1] ?? "")
  return new Html(out)
}

/** The stylesheet and the script are served from our own origin (CSP `style-src 'self'`, `script-src 'self'`). */
export const stylesheetPath = "/assets/app.css"
export const scriptPath = "/assets/app.js"

export const htmlHeaders = {
  "cache-control": "no-store",
  pragma: "no-cache"
} as const

export interface PageOptions {
  readonly title: string
  readonly body: Html
  /** The header strip; default: the brand alone (pages before sign-in). Signed-in pages pass workspaceFrame's. */
  readonly header?: Html
  /** A management page: a wider column for tables. */
  readonly wide?: boolean
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
}

/** The whole document around `body`; the response is `text/html; charset=utf-8` and never cached. */
export const renderDocument = (title: string, body: Html, options: { readonly header?: Html; readonly wide?: boolean } = {}): Html =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · adgate</title>
<link rel="stylesheet" href="${stylesheetPath}">
<script src="${scriptPath}" defer></script>
</head>
<body>
${options.header ?? html`<header class="top"><span class="brand">adgate</span></header>`}
<main${options.wide === true ? html` class="wide"` : ""}>
${body}
</main>
</body>
</html>
`

/** A page's redirect after a form post or to sign-in: 303, never cached (RFC 9700 §4.12: never 307). */
export const seeOther = (location: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.redirect(location, { status: 303, headers: { "cache-control": "no-store" } })

export const renderPage = (options: PageOptions): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(renderDocument(options.title, options.body, {
    ...(options.header === undefined ? {} : { header: options.header }),
    ...(options.wide === undefined ? {} : { wide: options.wide })
  }).value, {
    status: options.status ?? 200,
    contentType: "text/html; charset=utf-8",
    headers: { ...htmlHeaders, ...options.headers }
  })

export interface ErrorPageOptions {
  readonly status: number
  readonly title: string
  readonly message: string
  /** A link back (e.g. the app's redirect with `error=…`); shown as a "Return" link. */
  readonly returnTo?: string
  /** Shown so a person can quote it; it is also in the log line of the request. */
  readonly requestId?: string
  readonly headers?: Readonly<Record<string, string>>
}

export const renderErrorPage = (options: ErrorPageOptions): HttpServerResponse.HttpServerResponse =>
  renderPage({
    title: options.title,
    status: options.status,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    body: html`<section class="card error">
<h1>${options.title}</h1>
<p>${options.message}</p>
${options.returnTo === undefined ? "" : html`<p><a class="button" href="${options.returnTo}">Return</a></p>`}
${options.requestId === undefined || options.requestId === "" ? "" : html`<p class="muted">Request id: <code>${options.requestId}</code></p>`}
</section>`
  })

/**
 * The stylesheet served at `stylesheetPath`: one calm design for every page, light and dark. Every text/background
 * pair meets WCAG AA (4.5:1; the figures are in docs/decisions.md, Pages): in dark mode the accent is light, so a
 * filled button's text is dark (`--on-accent`), never white on a light blue.
 */
export const stylesheet = `:root{color-scheme:light dark;--fg:#1d232b;--bg:#f6f7f9;--card:#fff;--muted:#4f5966;--accent:#1f4fc4;--on-accent:#fff;--danger:#a61b12;--on-danger:#fff;--ok:#0b5c2e;--ok-bg:#d7f5e3;--warn:#7a2e0e;--warn-bg:#fde7c8;--info:#1a3d8f;--info-bg:#dfe8fb;--neutral:#3a424d;--neutral-bg:#e7eaee;--border:#c9d0d9;--focus:#1f4fc4}
@media (prefers-color-scheme:dark){:root{--fg:#e7eaee;--bg:#14171b;--card:#1d2127;--muted:#a9b2bd;--accent:#8fb0ff;--on-accent:#0b1a3d;--danger:#ff9b92;--on-danger:#3b0603;--ok:#8fe3b0;--ok-bg:#0f3320;--warn:#ffc98a;--warn-bg:#3d2405;--info:#b5cbff;--info-bg:#18284d;--neutral:#d3d8de;--neutral-bg:#2c323a;--border:#3b434e;--focus:#8fb0ff}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.top{padding:.6rem 1.25rem;border-bottom:1px solid var(--border);background:var(--card);display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
.brand{font-weight:700;letter-spacing:.02em;color:var(--fg);text-decoration:none}
.who{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.who select{width:auto;max-width:14rem}
.switch{display:flex;gap:.35rem;align-items:center}
main{max-width:40rem;margin:2rem auto;padding:0 1rem}
main.wide{max-width:72rem;margin-top:1rem}
nav.sections{display:flex;flex-wrap:wrap;gap:.25rem;margin:0 0 1rem;border-bottom:1px solid var(--border)}
nav.sections a{padding:.5rem .75rem;text-decoration:none;color:var(--muted);border-bottom:3px solid transparent}
nav.sections a[aria-current=page]{color:var(--fg);border-bottom-color:var(--accent);font-weight:600}
.card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1.5rem;margin-bottom:1rem}
h1{font-size:1.4rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:1rem 0 .5rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text],input[type=number],select,textarea{width:100%;padding:.5rem;border:1px solid var(--border);border-radius:.375rem;font:inherit;background:var(--bg);color:var(--fg)}
textarea{min-height:6rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem}
button,.button{display:inline-block;margin-top:1rem;padding:.5rem 1rem;border-radius:.375rem;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);font:inherit;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger,.button.danger{background:var(--danger);border-color:var(--danger);color:var(--on-danger)}
button.small,.button.small{margin-top:0;padding:.25rem .6rem;font-size:.9rem}
button:disabled{opacity:.5;cursor:not-allowed}
.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.actions form{margin:0}
.muted{color:var(--muted);font-size:.9rem}
.error h1{color:var(--danger)}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;background:var(--bg);margin-bottom:1rem}
.warning{border-left:4px solid #b07b00;padding:.5rem .75rem;background:var(--bg)}
.notice{border-left:4px solid var(--ok);padding:.5rem .75rem;background:var(--card);margin:0 0 1rem}
.secret{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.secret code{padding:.4rem .6rem;background:var(--bg);border:1px solid var(--border);border-radius:.375rem;word-break:break-all}
.badge{display:inline-block;vertical-align:middle;margin-right:.35rem;padding:.1rem .5rem;border-radius:999px;font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;line-height:1.4;border:1px solid currentColor}
.badge.unverified,.badge.pending,.badge.pending_approval,.badge.expired{color:var(--warn);background:var(--warn-bg)}
.badge.verified,.badge.executed,.badge.approved,.badge.active{color:var(--ok);background:var(--ok-bg)}
.badge.failed,.badge.rejected,.badge.declined,.badge.ended{color:var(--danger);background:var(--card)}
.badge.neutral,.badge.withdrawn,.badge.revoked{color:var(--neutral);background:var(--neutral-bg)}
.badge.info{color:var(--info);background:var(--info-bg)}
.struck{text-decoration:line-through;color:var(--muted)}
ul.plain{list-style:none;padding:0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
.table-wrap{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;vertical-align:top;padding:.5rem .6rem;border-bottom:1px solid var(--border)}
th{font-size:.85rem;color:var(--muted);font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums}
.figures{display:flex;flex-wrap:wrap;gap:1rem;margin-bottom:1rem}
.figure{flex:1 1 10rem;background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem}
.figure strong{display:block;font-size:1.5rem}
.chart svg{width:100%;height:auto;display:block}
.chart .axis{stroke:var(--border)}
.chart text{fill:var(--muted);font-size:11px}
details>summary{cursor:pointer}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){th,td{padding:.4rem}.top{padding:.5rem .75rem}main.wide{padding:0 .5rem}}
.card.consent{padding:1.25rem}
.consent h1{font-size:1.25rem;margin-bottom:.5rem}
.consent .warning{margin:.5rem 0}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.75rem 0 0}
dl.summary dt{color:var(--muted);font-weight:600}
dl.summary dd{margin:0}
details.fold{margin:.5rem 0;border:1px solid var(--border);border-radius:.375rem;padding:.4rem .75rem}
details.fold>summary{font-weight:600}
details.fold fieldset{border:0;padding:0;margin:.25rem 0 0}
details.card.fold{padding:.75rem 1.25rem}
@media (max-width:40rem){dl.summary{grid-template-columns:1fr}dl.summary dd{margin-bottom:.35rem}}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem;margin-bottom:.5rem}
figure.chart{margin:0;background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem}
.chart .grid{stroke:var(--border);stroke-dasharray:2 3}
.chart rect{stroke:var(--card);stroke-width:1}
.series-0{fill:#1f4fc4;background:#1f4fc4}.series-1{fill:#b3261e;background:#b3261e}.series-2{fill:#0b7a3e;background:#0b7a3e}.series-3{fill:#8a4b00;background:#8a4b00}.series-4{fill:#6b3fa0;background:#6b3fa0}.series-5{fill:#00707a;background:#00707a}.series-6{fill:#5c6670;background:#5c6670}
@media (prefers-color-scheme:dark){.series-0{fill:#8fb0ff;background:#8fb0ff}.series-1{fill:#ff9b92;background:#ff9b92}.series-2{fill:#8fe3b0;background:#8fe3b0}.series-3{fill:#ffc98a;background:#ffc98a}.series-4{fill:#d0b0ff;background:#d0b0ff}.series-5{fill:#7fd8e0;background:#7fd8e0}.series-6{fill:#a9b2bd;background:#a9b2bd}}
.legend{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.15rem;margin-right:.35rem;vertical-align:-.05rem}
.figure a{display:inline-block;margin-top:.25rem}
.figures-table{margin:0 0 1.5rem}
table.facts th{width:12rem}
table.connected-apps time,table.audit-trail time{white-space:nowrap}
.end-form{margin-top:1rem;border-top:1px solid var(--border);padding-top:.5rem}
dl.facts,dl.change{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.35rem 1rem;margin:.75rem 0}
dl.facts dt,dl.change dt{font-weight:600;color:var(--muted)}
dl.facts dd,dl.change dd{margin:0}
.before-after span{color:var(--muted)}
pre.answer{overflow-x:auto;padding:.75rem;background:var(--bg);border:1px solid var(--border);border-radius:.375rem;font-size:.85rem;max-height:24rem}
form.filter label{margin:0}
form.filter select{width:auto}
@media (max-width:40rem){dl.facts,dl.change{grid-template-columns:1fr}}
.mail-text{white-space:pre-wrap;overflow-wrap:anywhere;font:.95rem/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg);color:var(--fg);padding:1rem;border:1px solid var(--border);border-radius:.375rem}
main.wide fieldset{border:1px solid var(--border);border-radius:.375rem;margin:1rem 0 0;padding:.5rem .75rem}
main.wide fieldset legend{font-weight:600;padding:0 .25rem}
main.wide fieldset label{font-weight:400}
nav.pages{display:flex;gap:1rem;margin-top:1rem}
[hidden]{display:none!important}
`

/**
 * The script served at `scriptPath`: a button or input with `data-enable-after="<ms>"` is rendered `disabled`
 * and enabled once the page has been on screen that long (the consent page's "Allow access"). A button with
 * `data-copy="<id>"` is rendered `hidden` (without the script the value is selected by hand) and, shown, copies the
 * text of the element with that id (a key or secret shown once).
 */
export const script = `"use strict";
document.addEventListener("DOMContentLoaded",function(){
  document.querySelectorAll("[data-enable-after]").forEach(function(el){
    var ms=parseInt(el.getAttribute("data-enable-after")||"0",10);
    setTimeout(function(){el.disabled=false;},isFinite(ms)?ms:0);
  });
  document.querySelectorAll("button[data-copy]").forEach(function(button){
    var target=document.getElementById(button.getAttribute("data-copy")||"");
    if(!target||!navigator.clipboard)return;
    button.hidden=false;
    button.addEventListener("click",function(){
      navigator.clipboard.writeText(target.textContent||"").then(function(){button.textContent="Copied";},function(){button.textContent="Copy failed: select it by hand";});
    });
  });
});
`
